"""Statements as calculation trees, and the accounting identities between metrics.

The trees make explicit what XBRL's calculation linkbase would; checks, model grounding and rewards
share the identities.
"""
