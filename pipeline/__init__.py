"""The flow: pure stages, one PDF in and one :class:`~schemas.models.DocumentResult` out.

The stages run in the order :data:`pipeline.engine.STAGES` declares: :mod:`pipeline.parse` (page geometry
to typed tables and chunks), :mod:`pipeline.figures` (numbers, periods and key facts),
:mod:`pipeline.statements` (calculation trees), :mod:`pipeline.checks` (the rules and their localization),
then :mod:`pipeline.model` (the model's proposals, verified by code) and :mod:`pipeline.rewards`. Nothing
here writes a file, talks to a server or reads the environment (import-linter contracts in
``pyproject.toml``; ``tests/test_architecture.py``).
"""
