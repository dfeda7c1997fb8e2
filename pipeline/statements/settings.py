"""The calculation trees' tuning knobs, named and documented in one place; unknown keys raise.

pdfplumber's ``table_settings`` are the model, as for the table finder's
(:class:`pipeline.parse.table_types.TableFinderSettings`): every threshold the statements stage decides with
is a
field here, and the modules of :mod:`pipeline.statements` read :data:`TREE_SETTINGS`. The regexes and word
lists stay beside the code that reads them: they are the vocabulary of financial statements, not knobs.
"""

from __future__ import annotations

from pydantic import Field

from pipeline.knobs import Knobs

__all__ = ["TREE_SETTINGS", "TreeSettings"]


class TreeSettings(Knobs):
    """Thresholds of the calculation trees: how many lines, columns and rows prove a structure.

    Frozen and strict as every :class:`~pipeline.knobs.Knobs`: one default instance is shared by every
    document, and a misspelt knob raises.
    """

    # --- which lines a total may add up (pipeline.statements.resolve, .totals, .schedules, .breakdowns)
    max_components: int = Field(
        80,
        ge=2,
        description="Longest run of rows tried as components (a schedule of debt lists fifty notes and "
        "more).",
    )
    max_unlabelled: int = Field(
        6, ge=2, description="Longest run tried under a line whose label does not say it is a total."
    )
    outdent_points: float = Field(
        2.0,
        description="A label this many points left of the previous row's label is outdented (a total under "
        "items).",
    )
    min_schedule_years: int = Field(
        3,
        ge=1,
        description="Consecutive years a single-column maturity schedule lists before its total is taken.",
    )
    breakdown_reach: int = Field(
        3,
        ge=1,
        description="Lines between a total and the first line of its breakdown (another breakdown of the "
        "same total).",
    )

    # --- when a column proves a structure (pipeline.statements.structures)
    min_signal: float = Field(
        50.0,
        description="A supporting column's total must be at least this many tolerances away from zero: with "
        "figures of two or three digits, a sum holding by coincidence is too likely to prove a structure.",
    )
    min_signal_each: float = Field(
        10.0,
        description="When two columns or more hold, each needs less: agreement in several at once is itself "
        "the evidence.",
    )

    # --- columns that add up (pipeline.statements.column_sums)
    min_sum_rows: int = Field(
        2, ge=1, description="Rows, each adding two figures or more, that prove a column headed as a total."
    )
    min_sum_rows_with_copies: int = Field(
        5,
        ge=1,
        description="Rows a column sum headed as a total must hold in when only one of them adds two figures "
        "or more (the others copy one figure).",
    )
    min_sum_rows_unheaded: int = Field(
        5,
        ge=1,
        description="Rows, each adding two figures or more, that prove a sum column whose head does not say "
        "it is a total.",
    )

    # --- titles and headings (pipeline.statements.kinds, .columns)
    title_words: int = Field(
        10,
        ge=1,
        description="A heading line of at most this many words, not ending a sentence, is a title that may "
        "name the table's basis; longer lines are prose.",
    )
    statement_title_words: int = Field(
        14,
        ge=1,
        description="A line of more words names no statement: it is a sentence about one.",
    )
    entity_line_words: int = Field(
        8, ge=1, description="A line naming the reporting entity alone has at most this many words."
    )

    # --- statements of changes in equity (pipeline.statements.equity)
    fiscal_year_months: tuple[int, int] = Field(
        (11, 13),
        description="Months between two balance dates, inclusive, for the net income between them to be a "
        "fiscal year's (52/53-week years end a few days either side of the anniversary).",
    )


TREE_SETTINGS = TreeSettings()
"""The settings every module of :mod:`pipeline.statements` reads."""
