"""The ``tieout`` command groups, one module each; :mod:`tieout.cli` assembles them into the app."""
