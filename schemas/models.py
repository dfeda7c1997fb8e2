"""Typed records for everything tieout reads and writes.

Every record is a frozen pydantic model that rejects unknown fields and carries ``schema_version``,
so that a consumer can tell which contract a line or a message follows. Coordinates are PDF points in
PyMuPDF's page space (origin top-left, y grows downwards, rotation already applied); page numbers are
1-based everywhere.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "OUTPUT_RECORDS",
    "SCHEMA_VERSION",
    "BBox",
    "Basis",
    "Block",
    "Cell",
    "Chunk",
    "ColumnSum",
    "DocumentChanges",
    "DocumentIdentity",
    "DocumentResult",
    "DocumentStats",
    "ErrorCategory",
    "ErrorRecord",
    "Evidence",
    "Fact",
    "FactProvenance",
    "FigureChange",
    "FigurePlace",
    "Flag",
    "FlagKind",
    "IdentityField",
    "LineItem",
    "LineRole",
    "Localization",
    "ModelCall",
    "ModelReport",
    "PageBox",
    "PageInfo",
    "PageNo",
    "Period",
    "ProposalOutcome",
    "PublishedFigure",
    "Record",
    "ScaleSource",
    "Statement",
    "StatementColumn",
    "StatementKind",
    "Table",
    "TieChange",
    "TypedNumber",
    "Unit",
]

SCHEMA_VERSION = "2.1"
"""2.1: flags carry ``localization``, ``proof`` and ``features``; documents carry ``structure_questions``."""

BBox = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in PDF points, top-left origin, as PyMuPDF reports them."""

PageNo = Annotated[int, Field(ge=1)]


class Record(BaseModel):
    """Base of every record: frozen, no unknown fields, versioned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: str = SCHEMA_VERSION


class Period(Record):
    """A reporting period as printed, normalised where it can be.

    ``key`` is the comparison key: ``FY2025`` for a fiscal year, ``Q1-2021`` for a quarter, ``H1-2025`` /
    ``9M-2025`` for other durations, ``2025-12-31`` for an instant ("As at 31 December 2025").
    """

    kind: Literal["duration", "instant", "unknown"]
    key: str
    label: str = Field(description="The period as printed, e.g. 'Year ended 31 December 2025'.")
    fiscal_year: int | None = None
    quarter: Annotated[int, Field(ge=1, le=4)] | None = None
    months: int | None = Field(default=None, description="Length of a duration in months (3, 6, 9, 12).")
    end_date: str | None = Field(
        default=None,
        description="The period end when printed: an ISO date, or YYYY-MM when the day is not printed.",
    )

    def end_day(self) -> date | None:
        """The last day of the period: its printed date, or the last day of a month printed without a day.

        A month is a period that ends on its last day ("Year ended December 2016"); the day is derived,
        never guessed from elsewhere. None when no end is printed.
        """
        if not self.end_date:
            return None
        if len(self.end_date) == 7:  # "YYYY-MM"
            year, month = int(self.end_date[:4]), int(self.end_date[5:])
            return date(year, month, calendar.monthrange(year, month)[1])
        return date.fromisoformat(self.end_date)


Unit = Literal["currency", "percent", "shares", "per_share", "ratio", "count", "number"]


ScaleSource = Literal["cell", "column_head", "row_head", "caption", "page_header", "document", "agreement"]
"""Where a figure's scale was established.

* ``cell``: the figure itself ("$1.3 billion", "£219.3m"), or a unit that takes no scale (a percentage, a
  multiple, a per-share amount);
* ``column_head``: the head of its column ("£m", "$'000", "(in millions)" over the labels);
* ``row_head``: its row's own label ("Sales (millions)");
* ``caption``: a caption tied to the table: the lines above it, across intervening paragraphs, or on the
  same line as its title;
* ``page_header``: a scale stated higher up the page, above an earlier table;
* ``document``: a statement heading stated once for several pages, or a document-wide statement
  ("All amounts in millions unless otherwise stated");
* ``agreement``: the same figure printed elsewhere with an established scale agrees only at this scale.
"""


class TypedNumber(Record):
    """A number as printed, with everything needed to compare it to another one.

    ``value`` is the printed magnitude with its sign (``(1,234.5)`` gives ``-1234.5``); ``base_value``
    applies ``scale`` (``value * 10**scale``). ``decimals`` is the displayed precision *in base units*
    (``1,234.5`` in millions has ``decimals=-5``), as XBRL's ``decimals`` attribute; ``places`` is the
    number of decimal places as printed. When nothing establishes the scale, ``scale``, ``base_value``
    and ``decimals`` are None: the figure is known only as printed.
    """

    text: str
    value: float
    scale: int | None = Field(
        default=0, description="Power of ten the printed value is expressed in (3, 6, 9); None if unknown."
    )
    scale_source: ScaleSource | None = Field(default=None, description="Where the scale came from.")
    base_value: float | None
    decimals: int | None
    places: int = Field(default=0, ge=0, description="Decimal places as printed.")
    unit: Unit = "number"
    currency: str | None = Field(default=None, description="ISO 4217 code when the figure is money.")
    negative: bool = False
    is_dash: bool = Field(default=False, description="Printed as a dash and read as zero.")
    period: Period | None = None


class Block(Record):
    """A text block on a page: a paragraph, a heading, a line of a table."""

    page: PageNo
    bbox: BBox
    text: str
    font_size: float = Field(description="Font size in points, estimated from the glyph boxes' height.")
    n_lines: int = 1
    kind: Literal["heading", "text", "table"] = "text"

    @model_validator(mode="before")
    @classmethod
    def _drop_legacy_bold(cls, data: object) -> object:
        # Artifacts written before the parser stopped claiming font weights carry "bold": false (it was
        # never set); they must still load under extra="forbid".
        if isinstance(data, dict) and data.get("bold") is False:
            return {k: v for k, v in data.items() if k != "bold"}
        return data


class PageInfo(Record):
    """What the parser saw on one page."""

    doc_id: str
    source: str
    page: PageNo
    width: float
    height: float
    rotation: int = 0
    n_words: int = 0
    n_blocks: int = 0
    n_tables: int = 0
    has_text_layer: bool = True


class Cell(Record):
    """One cell of a logical table; ``row``/``col`` are 0-based grid positions."""

    row: Annotated[int, Field(ge=0)]
    col: Annotated[int, Field(ge=0)]
    row_span: Annotated[int, Field(ge=1)] = 1
    col_span: Annotated[int, Field(ge=1)] = 1
    text: str
    bbox: BBox | None = None
    page: PageNo
    is_header: bool = False
    number: TypedNumber | None = None


class Table(Record):
    """A logical table, possibly stitched from fragments on consecutive pages.

    ``row_pages[i]`` is the page that row ``i`` was printed on.
    """

    table_id: str
    doc_id: str
    source: str
    page: PageNo = Field(description="First page of the table.")
    pages: list[PageNo]
    bbox: BBox = Field(description="Bounding box on the first page.")
    title: str | None = None
    n_rows: int
    n_cols: int
    header_rows: int = 0
    row_pages: list[PageNo]
    ruled_rows: list[int] = Field(default_factory=list, description="Body rows printed under a rule.")
    cells: list[Cell]
    method: Literal["ruled", "whitespace"]
    continued: bool = Field(default=False, description="True when stitched across a page break.")
    scale: int | None = Field(default=0, description="Scale of the table's figures; None if unknown.")
    scale_source: ScaleSource | None = None
    currency: str | None = None
    confidence: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Agreement with pdfplumber's own reading (0.5 + 0.5 x cell F1); None if not re-read.",
    )


class PageBox(Record):
    """A bounding box on a given page."""

    page: PageNo
    bbox: BBox


class Chunk(Record):
    """A retrieval chunk: heading-aware, token-bounded, with its provenance."""

    chunk_id: str
    doc_id: str
    source: str
    page: PageNo = Field(description="First page of the chunk.")
    pages: list[PageNo]
    heading_path: list[str]
    text: str
    token_count: int
    kind: Literal["text", "table"] = "text"
    table_id: str | None = None
    boxes: list[PageBox] = Field(default_factory=list)


StatementKind = Literal[
    "income", "comprehensive_income", "balance_sheet", "cash_flow", "equity", "note", "summary"
]
"""What a table is: one of the five primary statements, a note or MD&A table, or a summary that repeats
the statements' figures (highlights, selected financial data, key figures)."""

LineRole = Literal["item", "subtotal", "total"]
"""A line's place in its statement's calculation tree: an item adds into a parent; a subtotal is the sum
of items and adds into a parent itself; a total is the sum of items and is nobody's item."""

Basis = Literal[
    "reported", "restated", "pro_forma", "non_gaap", "condensed_consolidating", "constant_currency"
]
"""What a column's figures are: as reported, restated or recast, pro forma, non-GAAP or adjusted, a column of
condensed consolidating information (issuer, guarantors, eliminations), or at constant exchange rates."""


FactProvenance = Literal["taxonomy", "model_corroborated", "model_uncorroborated"]
"""Who mapped a fact's label to its metric: the taxonomy (deterministic), or the model, with or without a
figure the taxonomy mapped that agrees with it."""


class Fact(Record):
    """A key figure mapped to the metric taxonomy, in base units.

    ``value`` is in base units only when the scale is established (``scale_source`` says how); a figure
    whose scale is unknown has ``value``, ``scale`` and ``decimals`` None and is known only as printed
    (``printed_value``), never as if it were in units.
    """

    fact_id: str
    doc_id: str
    source: str
    metric: str
    concept_us_gaap: str | None = None
    concept_ifrs: str | None = None
    label: str = Field(description="The label as printed.")
    period: Period | None
    value: float | None = Field(
        description="Value in base units (scale applied); None if the scale is unknown."
    )
    printed: str = Field(description="The number as printed.")
    printed_value: float = Field(description="The printed number with its sign, no scale applied.")
    decimals: int | None = Field(description="Precision in base units (XBRL decimals); None if unknown.")
    scale: int | None = 0
    scale_source: ScaleSource | None = None
    currency: str | None = None
    unit: Unit = "currency"
    page: PageNo
    bbox: BBox | None = None
    origin: Literal["table_cell", "text_span"]
    table_id: str | None = None
    row: int | None = None
    col: int | None = None
    context: str | None = Field(
        default=None,
        description=(
            'Segment or dimension the figure belongs to, when not the whole entity; "not the primary '
            "statements' figures\" when its table prints the statements' lines at another measure's figures."
        ),
    )
    basis: Basis = Field(default="reported", description="What the figure's column reports.")
    statement: StatementKind | None = Field(default=None, description="The kind of table it is printed in.")
    role: LineRole | None = Field(default=None, description="Its line's role in the calculation tree.")
    parent: str | None = Field(default=None, description="The label of the line it adds into, as printed.")
    provenance: FactProvenance = Field(
        default="taxonomy",
        description=(
            "Who mapped its label to the metric: the taxonomy, or the model (a verified label mapping) — "
            "'model_corroborated' when a figure the taxonomy mapped agrees with it, else "
            "'model_uncorroborated'."
        ),
    )


class Evidence(Record):
    """One side of a finding: where the figure is printed and what it says."""

    page: PageNo
    bbox: BBox | None = None
    text: str
    role: str = Field(description="e.g. 'total', 'component', 'narrative', 'table', 'assets'.")
    value: float | None = None
    source: str | None = Field(
        default=None,
        description="The document it is printed in, when not the flag's own (a finding across documents).",
    )


FlagKind = Literal[
    "sum_mismatch",
    "cross_reference_mismatch",
    "narrative_mismatch",
    "balance_identity",
    "change_mismatch",
    "scale_mismatch",
    "model_finding",
    "prior_period_mismatch",
]


class Localization(Record):
    """Which printed figure(s), changed, make every relation of a finding hold (error localization).

    The checks' relations form one system of equalities over printed figures; the localization is the
    smallest, most keying-error-like set of figures (usually one) whose change repairs every failing relation
    of the finding while every relation that holds and prints them still holds
    (:mod:`pipeline.checks.localize`).
    """

    figures: list[Evidence] = Field(description="The figure(s) to change: page, box and text as printed.")
    corrected: list[str] = Field(
        description="The value each figure would have to be, as it would be printed."
    )
    signatures: list[str] = Field(
        description=(
            "How each change looks: swap, digit, digit_count, sign, scale (keying errors), near_miss, other."
        )
    )
    repairs: list[str] = Field(description="The failing relations the change repairs.")
    holding: int = Field(ge=0, description="Relations printing these figures that hold, and still would.")
    alternatives: int = Field(ge=0, description="Other changes that explain the breaks as well (0: unique).")
    note: str = Field(description="One sentence for the analyst.")


class Flag(Record):
    """A consistency finding with the evidence for every side."""

    flag_id: str
    doc_id: str
    source: str
    rule: str = Field(description="Id of the rule that raised it, e.g. 'TOT001'.")
    kind: FlagKind
    severity: Literal["error", "warning", "info"]
    metric: str | None = None
    period: Period | None = None
    message: str
    expected: float | None = None
    actual: float | None = None
    difference: float | None = None
    tolerance: float | None = None
    pages: list[PageNo]
    evidence: list[Evidence]
    confidence: float = Field(
        default=0.5, ge=0.0, le=1.0, description="How sure the rule is that this is a real inconsistency."
    )
    reasons: list[str] = Field(
        default_factory=list,
        description="The structural evidence that made the comparison valid: why like is compared with like.",
    )
    proof: str | None = Field(
        default=None,
        description=(
            "The proof the rule required before it compared (e.g. 'proven in other columns', 'labelled "
            "total', 'same metric and period in tables that agree elsewhere')."
        ),
    )
    localization: Localization | None = Field(
        default=None, description="The figure(s) whose change explains the finding; None when not localized."
    )
    features: dict[str, float] = Field(
        default_factory=dict,
        description="The evidence features its confidence was computed from (pipeline/checks/confidence.py).",
    )


class LineItem(Record):
    """One line of a statement's calculation tree."""

    row: Annotated[int, Field(ge=0)] = Field(description="Row index in the table grid.")
    label: str = Field(description="The label, cleaned of dot leaders and footnote marks.")
    page: PageNo
    role: LineRole
    parent: int | None = Field(default=None, description="Row of the line it adds into (or is a part of).")
    sign: Literal[1, -1] = Field(default=1, description="How it enters its parent: added or subtracted.")
    metric: str | None = Field(default=None, description="The taxonomy metric its label maps to.")
    children: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list, description="Rows of the lines that add up to it (a subtotal or total)."
    )
    proven: bool = Field(
        default=False,
        description="Its children add up to it in other columns, so a column where they do not is an error.",
    )
    twin_page: PageNo | None = Field(
        default=None,
        description=(
            "The page of a table printing the same lines for another date, where they add up the same way: "
            "the proof of a total its own table's columns prove only once."
        ),
    )
    rollforward: bool = Field(default=False, description="A closing balance: blank movements are nil.")
    parts: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list,
        description=(
            "Rows of the lines printed below it that split it ('attributable to …', 'of which …'); they add "
            "up to it in every column, as its children do."
        ),
    )


class StatementColumn(Record):
    """A value column of a statement: what period and basis its figures are for."""

    col: Annotated[int, Field(ge=0)]
    header: str
    period: Period | None = None
    basis: Basis = "reported"
    context: str | None = Field(default=None, description="Segment or dimension the column names.")


class ColumnSum(Record):
    """A column that is the sum of other columns of its table, row by row."""

    total: Annotated[int, Field(ge=0)]
    components: list[Annotated[int, Field(ge=0)]]


class Statement(Record):
    """A table rebuilt as a calculation tree.

    The structure XBRL's calculation linkbase makes explicit, inferred from the page: each line's parent
    and how it enters it, the columns' periods and basis, and what kind of statement the table is.
    """

    statement_id: str
    doc_id: str
    source: str
    table_id: str
    kind: StatementKind
    title: str | None = None
    entity: str | None = Field(
        default=None, description="The reporting entity its heading names, in filings of several registrants."
    )
    pages: list[PageNo]
    columns: list[StatementColumn]
    lines: list[LineItem]
    column_sums: list[ColumnSum] = Field(
        default_factory=list,
        description="Columns that are the sum of other columns, row by row ('Total' beside its parts).",
    )


ErrorCategory = Literal[
    "encrypted",
    "corrupt",
    "not_a_pdf",
    "empty",
    "too_large",
    "too_many_pages",
    "timeout",
    "memory_limit",
    "cpu_limit",
    "file_limit",
    "output_too_large",
    "no_text_layer",
    "page_error",
    "table_error",
    "scale_unknown",
    "unsupported",
    "internal",
]


class PublishedFigure(Record):
    """A figure a document published, as its issuer's history keeps it for later documents (issue 27).

    Only figures the XBRL report publishes become history: scale, period and unit established, one figure
    a cell, no conflicting copy (:mod:`adapters.xbrl.figures`). ``key`` is what a later document's figure
    must share to be compared with it (:func:`pipeline.across.prior.figure_key`).
    """

    issuer_key: str = Field(description="Who published it (DocumentIdentity.issuer_key).")
    doc_id: str
    source: str
    period_end: str | None = Field(
        description="The publishing document's period end (ISO date): orders history."
    )
    key: str = Field(description="Statement kind, line, period, unit, basis and dimension, normalised.")
    table_id: str
    statement: StatementKind | None = None
    label: str = Field(description="The line's label as printed.")
    column: str | None = Field(default=None, description="The column's head as printed.")
    period: str = Field(description="The OIM period: an instant or start/end.")
    unit: str = Field(description="The OIM unit, e.g. 'iso4217:USD'.")
    basis: Basis = "reported"
    dimension: str | None = None
    entity: str | None = Field(
        default=None, description="The reporting entity its statement names (a parent and a subsidiary)."
    )
    parent_key: str | None = Field(
        default=None, description="The key of the total its line adds into, in the same column."
    )
    value: float
    decimals: int
    printed: str
    page: PageNo
    bbox: BBox | None = None
    flagged: bool = Field(default=False, description="An open flag of its own document touches it.")


class ErrorRecord(Record):
    """A problem with a document (``page`` is None) or with one page of it.

    ``fatal`` errors mean the document produced no results; the others are recorded and the document's
    other pages carry on.
    """

    doc_id: str
    source: str
    stage: str
    category: ErrorCategory
    message: str
    page: PageNo | None = None
    fatal: bool = False


class ModelCall(Record):
    """One request to a model server, for cost and latency accounting."""

    task: str = Field(description="e.g. 'cross_page_links', 'label_mapping', 'narrative_claims'.")
    prompt_version: str
    model: str
    tier: Literal["standard", "deep"]
    route: str | None = Field(
        default=None,
        description="Why this tier answered: the task's route, or 'fallback from <tier>: <error>'.",
    )
    mode: Literal["whole", "ledger"] = "whole"
    call_id: str | None = Field(
        default=None, description="The call's id within the document ('c1', 'c2', …); outcomes cite it."
    )
    messages: list[dict[str, str]] = Field(
        default_factory=list, description="The chat messages sent (role, content), for reward records."
    )
    answer: str | None = Field(default=None, description="The raw text the model returned.")
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int | None = None
    latency_ms: float = 0.0
    ok: bool = True
    error: str | None = None


class ProposalOutcome(Record):
    """What verification decided about one thing the model proposed."""

    task: str
    accepted: bool
    reason: str = Field(description="'verified' or why it was rejected: schema, page_out_of_range, …")
    proposal: dict[str, object] = Field(description="The proposal as the model gave it.")
    pages: list[PageNo] = Field(default_factory=list)
    flag_id: str | None = None
    call_id: str | None = Field(default=None, description="The ModelCall that proposed it.")


class ModelReport(Record):
    """The model stage's account of a document: status, calls, proposals and their verification."""

    status: Literal["done", "skipped", "pending", "partial"] = Field(
        description="'partial': the document's deadline passed with tasks left; they are resumed later."
    )
    reason: str | None = None
    calls: list[ModelCall] = Field(default_factory=list)
    outcomes: list[ProposalOutcome] = Field(default_factory=list)


class IdentityField(Record):
    """One field of a document's identity: its value and where it is printed, or why it is unknown.

    ``value`` None means unknown: ``reason`` says why (nothing of the kind is printed on the pages read, a
    candidate failed its check digit, ...). A known value always has the ``page`` and the ``evidence`` it
    was read from and its ``source``; it is never guessed (from the file name or anything else not
    printed).
    """

    value: str | None = Field(default=None, description="The normalised value; None when unknown.")
    page: PageNo | None = Field(default=None, description="The page the evidence is printed on.")
    evidence: str | None = Field(default=None, description="The text as printed that proves the value.")
    reason: str | None = Field(default=None, description="Why the value is unknown (None when known).")
    source: Literal["cover", "body", "ocr"] | None = Field(
        default=None,
        description=(
            "Where a known value was read: 'cover', the cover's own statement of it (the registrant line, the"
            " form line, 'For the fiscal year ended ...', a results headline); 'body', the text elsewhere on"
            " the pages read, a weaker witness (an 'X, Inc., incorporated under the laws of ...' sentence,"
            " the balance sheet's date); 'ocr', the page image read by OCR because its text layer is"
            " unreadable. None when unknown."
        ),
    )


class DocumentIdentity(Record):
    """Who published a document, what it is and which period it reports: read from its cover pages.

    ``issuer_key`` says "same issuer": ``cik:<10 digits>`` when a CIK is printed, else ``name:<key>``
    with the issuer's name normalised (:func:`pipeline.parse.identity.name_key`: case folded, ``&``
    and punctuation dropped, a leading "The" and trailing legal forms such as "Inc.", "Corporation",
    "Co.", "plc" removed, spaces squeezed out: "The Boeing Company" and "BOEING" are both ``boeing``).
    ``version_key`` is ``<issuer_key>|<form family>|<period_end or undated>``: two documents with the same
    key are versions of one document (a draft and the next, a filing and its amendment); the doc id tells
    their bytes apart. The form family drops an amendment's ``/A`` and counts every prospectus form (S-1,
    F-1, 424B, "prospectus") as one. Either key is None when the issuer or the form is unknown.
    """

    issuer: IdentityField = Field(description="The issuer's name as printed.")
    cik: IdentityField = Field(description="SEC Central Index Key, 10 digits with leading zeros.")
    file_number: IdentityField = Field(description="SEC Commission file number, as printed ('1-3285').")
    ticker: IdentityField = Field(description="The first trading symbol printed (the cover's table).")
    lei: IdentityField = Field(description="Legal Entity Identifier (ISO 17442, check digits verified).")
    isin: IdentityField = Field(description="ISIN (ISO 6166, Luhn check digit verified).")
    form: IdentityField = Field(
        description=(
            "What the document is: '10-K', '10-Q', '8-K', '20-F', 'S-1', 'F-1', '424B', 'prospectus', "
            "'earnings release', 'annual report', ...; an amendment keeps its '/A' ('10-K/A')."
        )
    )
    period_end: IdentityField = Field(description="ISO date the reported fiscal period ends.")
    issuer_key: str | None = Field(default=None, description="Same issuer, same key (see above).")
    version_key: str | None = Field(default=None, description="Same document in another version, same key.")
    pages_read: int = Field(default=0, ge=0, description="How many of the first pages were read.")


class DocumentStats(Record):
    """Counters and timings of one document's run."""

    pages: int = 0
    pages_parsed: int = 0
    words: int = 0
    tables: int = 0
    facts: int = 0
    flags: int = 0
    chunks: int = 0
    errors: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(
        default_factory=dict, description="Wall time of each engine stage (pages, tables, …, checks)."
    )


class DocumentResult(Record):
    """Everything the core engine produces for one document."""

    doc_id: str
    source: str
    pipeline_version: str
    page_info: list[PageInfo] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    structure_questions: list[Flag] = Field(
        default_factory=list,
        description=(
            "Breaks that no one or two printed figures explain (the table or relation was likely misread): "
            "kept with their evidence, out of the analyst's default queue."
        ),
    )
    errors: list[ErrorRecord] = Field(default_factory=list)
    blocks: list[Block] = Field(
        default_factory=list, description="Narrative text blocks (outside tables), kept for the checks."
    )
    statements: list[Statement] = Field(
        default_factory=list, description="Calculation trees of the tables, built once per document."
    )
    model: ModelReport | None = Field(default=None, description="The model stage's report, once it ran.")
    stats: DocumentStats = Field(default_factory=DocumentStats)
    identity: DocumentIdentity | None = Field(
        default=None, description="Who, what and when, read from the cover pages (None: not read)."
    )

    @property
    def failed(self) -> bool:
        """True when the document could not be processed at all."""
        return any(e.fatal for e in self.errors)


class FigurePlace(Record):
    """Where a figure sits among a document's statements, as two drafts are matched (never by page)."""

    statement: StatementKind
    title: str | None = None
    line: str = Field(description="The line's label as printed (the new draft's when both print it).")
    column: str = Field(description="The column's head as printed.")
    period: str | None = Field(default=None, description="The column's period key, e.g. 'FY2025'.")
    basis: Basis = "reported"
    context: str | None = Field(default=None, description="Segment or dimension the column names.")


class FigureChange(Record):
    """A statement figure added, removed or changed between drafts, each printing with its page and box."""

    kind: Literal["added", "removed", "changed"]
    place: FigurePlace
    old: Evidence | None = Field(default=None, description="As printed in the earlier draft (None: added).")
    new: Evidence | None = Field(default=None, description="As printed in the later draft (None: removed).")


class TieChange(Record):
    """One relation (a total line in one column) in two drafts: whether it held before and after."""

    rule: str = Field(
        description="The rule that evaluates it: 'TOT001' (a line's children), 'TOT002' (a row)."
    )
    place: FigurePlace = Field(description="The total: its line and column.")
    held_before: bool | None = Field(description="Held in the earlier draft; None: not evaluated there.")
    held_after: bool | None = Field(description="Held in the later draft; None: not evaluated there.")
    status: Literal["held", "broke", "repaired", "still_broken", "old_only", "new_only"]
    flag_id: str | None = Field(default=None, description="The VER001 flag of a relation the changes broke.")
    changed: list[int] = Field(
        default_factory=list,
        description="The relation's figures (in either draft) that changed, were added or were removed: "
        "indices into DocumentChanges.changes.",
    )


class DocumentChanges(Record):
    """What changed between two drafts of a document: figures matched by statement, line and column."""

    old_doc_id: str
    old_source: str
    new_doc_id: str
    new_source: str
    old_figures: int = Field(ge=0, description="Statement figures of the earlier draft.")
    new_figures: int = Field(ge=0, description="Statement figures of the later draft.")
    matched: int = Field(ge=0, description="Figures of the earlier draft that found a partner in the later.")
    matched_share: float = Field(ge=0.0, le=1.0, description="matched / old_figures (0 when there are none).")
    changes: list[FigureChange] = Field(default_factory=list)
    ties: list[TieChange] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list, description="VER001: a change that broke a tie.")


OUTPUT_RECORDS: dict[str, type[Record]] = {
    "facts": Fact,
    "flags": Flag,
    "structure_questions": Flag,
    "chunks": Chunk,
    "tables": Table,
    "errors": ErrorRecord,
    "changes": DocumentChanges,
}
"""The embedded run's output files (``<name>.jsonl``) and the record each line holds."""
