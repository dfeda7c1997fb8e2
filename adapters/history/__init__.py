"""The published figures of every issuer, kept for the documents that come after (issue 27)."""
