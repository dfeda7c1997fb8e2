"""What a table is (step 1 of :mod:`pipeline.statements`), and for which reporting entity.

A primary statement when its title or the page heading above it names one, or its lines are a statement's;
a summary when its title says "highlights", "selected financial data"…; else a note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.statements.settings import TREE_SETTINGS
from schemas.models import StatementKind, Table

__all__ = ["classify", "entity_of"]


_STATEMENT_WORDS = re.compile(r"\bstatements?\b|\bbalance sheets?\b|\bfinancial position\b", re.IGNORECASE)
"""Words every statement's title holds: "statement", "balance sheet", "financial position"."""
_KIND_PATTERNS: tuple[tuple[StatementKind, str], ...] = (
    ("comprehensive_income", r"\bcomprehensive (?:income|loss|earnings)\b"),
    ("cash_flow", r"\bcash flows?\b"),
    (
        "equity",
        r"\bchanges in (?:[\w’'-]+\s+){0,3}(?:equity|net assets|capital)\b|"
        r"\bstatements? of (?:[\w’'-]+\s+){0,2}equity\b",
    ),
    (
        "balance_sheet",
        r"\bbalance sheets?\b|\bfinancial position\b|\bfinancial condition\b|"
        r"\bstatements? of condition\b",
    ),
    (
        "income",
        r"\bstatements? of (?:consolidated )?(?:operations|income|earnings|profit|loss)|"
        r"\bincome statements?\b|\bprofit (?:and|or) loss\b",
    ),
)
"""Kind → the words of a title that name it, most specific first (comprehensive income before income)."""
_KIND_TITLES = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _KIND_PATTERNS]
"""The kind patterns, compiled once."""
_SUMMARY_TITLE = re.compile(
    r"\bhighlights\b|\bselected (?:[\w&’'-]+ ){0,5}?(?:data|information|metrics)\b|\bsummary\b|"
    r"\bkey figures\b|\bfive[- ]year\b|\bquarterly (?:financial )?(?:data|results|information)\b",
    re.IGNORECASE,
)
"""Titles of summaries of figures printed elsewhere or of a part of the company: highlights, "Selected
Financial Data", a segment's "Selected Income Statement Data", "Selected metrics"."""


_SENTENCE_WORDS = re.compile(
    r"\b(?:is|are|was|were|as follows|following|recorded|included|presented|shown|consists?|related|"
    r"information|supplemental|see|refer)\b|:\s*$",
    re.IGNORECASE,
)
"""Words of a sentence about a statement ("… is as follows:"), which no statement's title holds."""


_INTRODUCED = re.compile(
    r"\bas follows\b|\bthe following\b|\bfollowing table\b|^(?=(?:\S+\s+){5,}).*:\s*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A sentence that introduces the table below it: "… as follows:", "The following table presents …", or
a line of six words or more that ends in a colon ("… as of December 31:"); a head ("June 30:") is shorter."""


def _title_kind(text: str) -> StatementKind | None:
    """The statement a title line names, when it is a statement's title.

    Not a sentence about cash flows, nor a summary's "Selected income statement and balance sheet data",
    nor the end of a sentence wrapped onto a line of its own ("indicate debits to the Consolidated
    Statements of Operations": a title starts with a capital).
    """
    for line in text.splitlines():
        if (
            line.strip()[:1].islower()
            or len(line.split()) > TREE_SETTINGS.statement_title_words
            or not _STATEMENT_WORDS.search(line)
            or _SENTENCE_WORDS.search(line)
            or _SUMMARY_TITLE.search(line)
        ):
            continue
        for kind, pattern in _KIND_TITLES:
            if pattern.search(line):
                return kind
    return None


def classify(table: Table, heading: str, metrics: Sequence[str]) -> StatementKind:
    """What a table is: a primary statement, a summary, or a note.

    Args:
        table: The table.
        heading: The text printed above it on its page (its title lines and the page's first lines).
        metrics: The taxonomy metrics its row labels map to.

    Returns:
        The kind. The table's own title decides before the page heading: a summary's title, a statement's,
        or a sentence that introduces the table (a note); a summary title wins over the lines; otherwise the
        lines of a balance sheet or a cash-flow statement make it one.
    """
    title = table.title or ""
    if _SUMMARY_TITLE.search(title):
        return "summary"
    kind = _title_kind(title)
    if kind is not None:
        return kind
    if _INTRODUCED.search(title):
        # A statement is titled, never introduced: a table under "The Utility's cash flows were as follows:"
        # or a footnote's "(2) Amounts include stock-based compensation expense, as follows:" is the MD&A's or
        # a note's, whatever the page's statement heading above it or its lines' names say.
        return "summary" if _SUMMARY_TITLE.search(heading) else "note"
    kind = _title_kind(heading)
    if kind is not None:
        return kind
    if _SUMMARY_TITLE.search(heading):
        return "summary"
    found = set(metrics)
    # Equity makes a balance sheet: a fair-value note prints "Total assets" and "Total liabilities"
    # measured at fair value, by level, and no equity.
    if "total_assets" in found and found & {"total_liabilities_and_equity", "total_equity"}:
        return "balance_sheet"
    if len(found & {"operating_cash_flow", "investing_cash_flow", "financing_cash_flow"}) >= 2:
        return "cash_flow"
    return "note"


_ENTITY_LINE = re.compile(
    r"^[A-Z][\w&.,'’ -]{1,80}?,?\s+(?:inc\.?|incorporated|corp\.?|corporation|company|co\.|l\.\s?p\.|lp|"
    r"limited partnership|llc|l\.l\.c\.|plc|p\.l\.c\.|ltd\.?|limited|n\.v\.|s\.a\.|ag|se)\s*$",
    re.IGNORECASE,
)
"""A line that is a reporting entity's name alone ("Boston Properties Limited Partnership")."""


def entity_of(heading: str, title: str | None) -> str | None:
    """The reporting entity a table's title or heading names ("Boston Properties Limited Partnership").

    Filings of several registrants (a REIT and its operating partnership, a parent and its guarantor
    subsidiary) print the same statements once per entity; their figures differ by design.

    Returns:
        The entity's name, casefolded, from the title or the heading line nearest the table; None when no
        line is an entity's name alone.
    """
    for line in [title or "", *reversed(heading.splitlines())]:
        text = " ".join(line.split())
        if len(text.split()) <= TREE_SETTINGS.entity_line_words and _ENTITY_LINE.match(text):
            return text.casefold().rstrip(".")
    return None
