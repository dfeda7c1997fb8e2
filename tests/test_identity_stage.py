"""The identity stage: who, what and when, read from what the cover pages print, never guessed.

Pages are built as the engine hands them on (one :class:`~schemas.models.Block` per printed line, with its
page and box); the engine's wiring is checked on a small PDF typeset with PyMuPDF.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf
import pytest

from pipeline.engine import STAGES, identify_bytes, parse_bytes
from pipeline.parse.identity import isin_valid, lei_valid, name_key, read_identity
from schemas.events import DocumentSummary
from schemas.models import Block, DocumentIdentity

Row = str | tuple[str, float] | list[tuple[str, float]]
"""A printed line of a synthetic page: its text at the left margin, its text and left edge, or several
such texts sharing one baseline (a cover's columns)."""

VALID_LEI = "HWUPKR0MPOU8FGXBT394"
VALID_ISIN = "US88579Y1010"


def page(rows: Sequence[Row], number: int = 1) -> list[Block]:
    """One block per printed line, rows stacked 14 points apart, as the engine hands them on."""
    out: list[Block] = []
    for i, row in enumerate(rows):
        cells = row if isinstance(row, list) else [(row, 72.0) if isinstance(row, str) else row]
        for text, x0 in cells:
            y0 = 50.0 + 14.0 * i
            bbox = (x0, y0, x0 + 5.0 * len(text), y0 + 10.0)
            out.append(Block(page=number, bbox=bbox, text=text, font_size=9.0))
    return out


def identify(*pages: list[Block]) -> DocumentIdentity:
    return read_identity([b for p in pages for b in p], pages_read=len(pages))


COVER_10K: list[Row] = [
    "UNITED STATES",
    "SECURITIES AND EXCHANGE COMMISSION",
    "Washington, D.C. 20549",
    "FORM 10-K",
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    "For the fiscal year ended December 31, 2022",
    "Commission File Number 1-3285",
    "ACME WIDGETS, INC.",
    "(Exact name of registrant as specified in its charter)",
    "Central Index Key: 66740",
    [("Title of each class", 72.0), ("Trading Symbol(s)", 260.0), ("Name of each exchange", 400.0)],
    [("Common Stock, $.01 Par Value", 72.0), ("ACME", 270.0), ("New York Stock Exchange", 400.0)],
    f"Legal Entity Identifier (LEI): {VALID_LEI}",
    f"ISIN: {VALID_ISIN}",
]


def test_a_cover_page_with_everything() -> None:
    got = identify(page(COVER_10K))
    assert got.issuer.value == "ACME WIDGETS, INC."
    assert got.issuer.page == 1 and "Exact name of registrant" in (got.issuer.evidence or "")
    assert got.form.value == "10-K" and got.form.evidence == "FORM 10-K"
    assert got.period_end.value == "2022-12-31"
    assert got.period_end.evidence == "For the fiscal year ended December 31, 2022"
    assert got.file_number.value == "1-3285"
    assert got.cik.value == "0000066740" and got.cik.evidence == "Central Index Key: 66740"
    assert got.ticker.value == "ACME"
    assert got.lei.value == VALID_LEI and got.isin.value == VALID_ISIN
    assert got.issuer_key == "cik:0000066740"  # a printed CIK outranks the name
    assert got.version_key == "cik:0000066740|10-K|2022-12-31"
    fields = [got.issuer, got.cik, got.file_number, got.ticker, got.lei, got.isin, got.form, got.period_end]
    assert all(f.reason is None and f.page == 1 and f.evidence for f in fields)


def test_a_cover_in_two_columns_reads_each_column_down() -> None:
    # JPMorgan's 10-Q prints the period's date under its phrase, beside the file number's two lines.
    got = identify(
        page(
            [
                "FORM 10-Q",
                [("For the quarterly period ended", 160.0), ("Commission file", 395.0)],
                [("March 31, 2021", 180.0), ("number 1-5805", 395.0)],
                ("JPMorgan Chase & Co.", 205.0),
                ("(Exact name of registrant as specified in its charter)", 200.0),
            ]
        )
    )
    assert got.period_end.value == "2021-03-31"
    assert got.file_number.value == "1-5805"
    assert got.issuer.value == "JPMorgan Chase & Co."  # not the date above it
    assert got.issuer_key == "name:jpmorganchase"


def test_a_press_release() -> None:
    got = identify(
        page(
            [
                "NEWS RELEASE",
                "eBay Inc. Reports Better Than Expected Second Quarter 2023",
                "Results",
                "SAN JOSE, Calif., July 26, 2023 /PRNewswire/ -- eBay Inc. (Nasdaq: EBAY), a global",
                "commerce leader, today reported results for its second quarter ended June 30, 2023.",
            ]
        )
    )
    assert got.form.value == "earnings release"
    assert got.issuer.value == "eBay Inc." and got.ticker.value == "EBAY"
    assert got.period_end.value == "2023-06-30"
    assert got.file_number.value is None and got.file_number.reason
    assert got.version_key == "name:ebay|earnings release|2023-06-30"


def test_a_release_reads_the_period_it_reports_not_the_one_it_compares_with() -> None:
    got = identify(
        page(
            [
                "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results",
                "announced financial results for the thirteen-week period (“fourth quarter”) and 52-week",
                "period (“fiscal year”) ended January 28, 2023 compared to the same periods ended January",
                "29, 2022.",
            ]
        ),
        page(["in our Annual Report on Form 10-K for the fiscal year ended January 29, 2022"], 2),
    )
    assert got.period_end.value == "2023-01-28"
    assert got.issuer.value == "Ulta Beauty"  # the headline's subject


@pytest.mark.parametrize(
    ("lines", "form", "file_number"),
    [
        (
            ["Filed Pursuant to Rule 424(b)(4)", "Registration No. 333-271234", "PROSPECTUS"],
            "424B",
            "333-271234",
        ),
        (
            [
                "Registration No. 333-271234",
                "FORM S-1 REGISTRATION STATEMENT",
                "UNDER THE SECURITIES ACT OF 1933",
            ],
            "S-1",
            "333-271234",
        ),
        (["Subject to completion", "Preliminary Prospectus dated March 2, 2026"], "prospectus", None),
    ],
)
def test_a_prospectus(lines: list[str], form: str, file_number: str | None) -> None:
    got = identify(page(["Aurelia Logistik SE", *lines, "Prospectus dated 16 March 2026"]))
    assert got.form.value == form
    assert got.file_number.value == file_number
    assert got.issuer.value == "Aurelia Logistik SE"
    # Every draft of the offering, registration statement to final prospectus, is a version of one document.
    assert got.version_key == "name:aurelialogistik|prospectus|undated"


def test_a_page_with_no_identity_says_unknown_and_why() -> None:
    got = identify(page(["Revenue grew in the year.", "The board met four times.", "Net sales 1,234 1,100"]))
    fields = [got.issuer, got.cik, got.file_number, got.ticker, got.lei, got.isin, got.form, got.period_end]
    assert all(f.value is None and f.page is None and f.evidence is None for f in fields)
    assert all(f.reason and "first 1 page(s)" in f.reason for f in fields)
    assert got.issuer_key is None and got.version_key is None
    assert identify().form.reason == (
        "no form line, prospectus or annual report title, or results headline on no page with text"
    )


def test_a_20_character_string_failing_the_lei_checksum_is_not_an_lei() -> None:
    bad = VALID_LEI[:-1] + "5"
    assert len(bad) == 20 and not lei_valid(bad) and lei_valid(VALID_LEI)
    got = identify(page([f"LEI: {bad}"]))
    assert got.lei.value is None
    assert got.lei.reason == f"'{bad}' (page 1): not an LEI (ISO 17442), its check digits do not verify"
    # A well-formed LEI printed on a page that does not name one is not taken either.
    assert identify(page([f"Reference {VALID_LEI}"])).lei.value is None


def test_an_isin_with_a_bad_check_digit_is_not_an_isin() -> None:
    bad = VALID_ISIN[:-1] + "1"
    assert not isin_valid(bad) and isin_valid(VALID_ISIN) and isin_valid("DE0007164600")
    got = identify(page([f"ISIN: {bad}", "ISIN: CONSOLIDATE1"]))
    assert got.isin.value is None and "check digits do not verify" in (got.isin.reason or "")
    assert identify(page([f"ISIN {bad} / ISIN {VALID_ISIN}"])).isin.value == VALID_ISIN


@pytest.mark.parametrize(
    "form_lines", [["FORM 10-K/A"], ["FORM 10-K", "(Amendment No. 1)"], ["Form 10-K/A (Amendment No. 2)"]]
)
def test_an_amendment_keeps_its_a_and_is_a_version_of_its_filing(form_lines: list[str]) -> None:
    cover = [
        *form_lines,
        "For the fiscal year ended December 31, 2022",
        "ACME WIDGETS, INC.",
        "(Exact name of registrant as specified in its charter)",
    ]
    got = identify(page(cover))
    assert got.form.value == "10-K/A"
    original = identify(page(["FORM 10-K", *cover[len(form_lines) :]]))
    assert original.form.value == "10-K"
    assert got.version_key == original.version_key == "name:acmewidgets|10-K|2022-12-31"


def test_the_first_page_that_names_a_form_decides() -> None:
    # A glossy annual report wraps the 10-K whose cover it prints a few pages in.
    glossy = page(["2022 ANNUAL REPORT ON FORM 10-K"])
    got = identify(glossy, page(COVER_10K, 2))
    assert got.form.value == "annual report" and got.form.page == 1
    assert got.issuer.value == "ACME WIDGETS, INC." and got.issuer.page == 2
    assert got.period_end.value == "2022-12-31"
    # A table of contents' "Form 10-K Summary" is no form line.
    assert identify(page(["Item 16. Form 10-K Summary"])).form.value is None


def test_several_registrants_the_first_is_the_issuer() -> None:
    got = identify(
        page(
            [
                "Commission File Number: 0-50209 (Boston Properties Limited Partnership)",
                "BOSTON PROPERTIES, INC.",
                "BOSTON PROPERTIES LIMITED PARTNERSHIP",
                "(Exact name of Registrants as specified in its charter)",
            ]
        )
    )
    assert got.issuer.value == "BOSTON PROPERTIES, INC."


@pytest.mark.parametrize(
    ("printed", "key"),
    [
        ("3M COMPANY", "3m"),
        ("PG&E Corporation", "pge"),
        ("The Kraft Heinz Company", "kraftheinz"),
        ("JPMorgan Chase & Co.", "jpmorganchase"),
        ("THE BOEING COMPANY", "boeing"),
        ("Kaizen Precision Co., Ltd.", "kaizenprecision"),
        ("Royal Philips N.V.", "royalphilips"),
        ("The Company", "company"),  # a name that is nothing but a legal form keeps its word
    ],
)
def test_name_keys_fold_case_punctuation_the_and_legal_forms(printed: str, key: str) -> None:
    assert name_key(printed) == key


def _cover_pdf() -> bytes:
    doc = pymupdf.open()
    pdf_page = doc.new_page()
    y = 72.0
    for line in [
        "FORM 10-Q",
        "For the quarterly period ended June 30, 2023",
        "Commission File Number 1-3247",
        "CORNING INCORPORATED",
        "(Exact name of registrant as specified in its charter)",
    ]:
        pdf_page.insert_text((72, y), line, fontsize=10)
        y += 16
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_the_engine_sets_the_identity_without_reading_the_file_name() -> None:
    assert [s.name for s in STAGES][:3] == ["pages", "identity", "tables"]
    data = _cover_pdf()
    one = parse_bytes(data, source="financebench__OTHER_2019_10K.pdf")
    two = parse_bytes(data, source="whatever.pdf")
    assert one.identity is not None and one.identity == two.identity == identify_bytes(data)
    assert one.identity.form.value == "10-Q" and one.identity.period_end.value == "2023-06-30"
    assert one.identity.issuer_key == "name:corning" and one.identity.pages_read == 1
    assert "identity" in one.stats.stage_seconds
    # The summaries topic's record carries it as the result has it.
    summary = DocumentSummary(
        doc_id=one.doc_id,
        trace_id="t",
        source=one.source,
        pipeline_version=one.pipeline_version,
        produced_at="2026-01-01T00:00:00Z",
        pages=1,
        tables=0,
        facts=0,
        flags=0,
        errors=0,
        model_stage="skipped",
        identity=one.identity,
    )
    assert DocumentSummary.model_validate_json(summary.model_dump_json()).identity == one.identity
