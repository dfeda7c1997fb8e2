"""The base of the engine's tuning knobs: every threshold a stage decides with, as a named field.

pdfplumber's ``table_settings`` are the model: the engine's limits (:class:`pipeline.config.EngineConfig`),
the table finder's tolerances (:class:`pipeline.parse.table_types.TableFinderSettings`), the calculation
trees'
thresholds (:class:`pipeline.statements.settings.TreeSettings`) and the claim parser's windows
(:class:`pipeline.figures.claims.ClaimSettings`) are each a :class:`Knobs`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Knobs"]


class Knobs(BaseModel):
    """A set of tuning knobs, each a documented field.

    Frozen, so that one default instance can be shared by every document; ``extra="forbid"``, so that a
    misspelt knob raises instead of being ignored while its default silently applies.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
