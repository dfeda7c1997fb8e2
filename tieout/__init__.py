"""The composition root: the ``tieout`` command wires stages, adapters and services together."""
