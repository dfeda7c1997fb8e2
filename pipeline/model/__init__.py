"""The model stage: proposals from a long-context model, grounded by code.

The model sits behind a port (:mod:`.ports`); no proposal becomes a flag before :mod:`.grounding` finds
its figures printed and its arithmetic true.
"""
