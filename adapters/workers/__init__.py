"""The engine's runtime: killable worker processes under kernel quotas.

Isolation in :mod:`.isolation`, the limits in :mod:`.quotas`.
"""
