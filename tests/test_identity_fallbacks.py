"""The identity's fallbacks: what is read when the cover does not print a field in its text layer.

Pages are built as in ``test_identity_stage`` (one block per printed line); the OCR path runs the real
OCR on a PDF typeset here whose text layer is glyph codes over an image of the words (as a font without
a Unicode map leaves it), and is skipped only when the ``ocr`` extra is not installed.
"""

from __future__ import annotations

import importlib.util
import sys

import pymupdf
import pytest

from pipeline.engine import identify_bytes, parse_bytes
from pipeline.parse import cover_ocr
from pipeline.parse.cover_ocr import readable_share, unreadable_pages
from pipeline.parse.identity import read_identity
from schemas.models import Block
from tests.test_identity_stage import identify, page

HAS_OCR = importlib.util.find_spec("rapidocr_onnxruntime") is not None


def test_a_name_printed_as_an_image_is_read_from_the_incorporation_sentence() -> None:
    # Foot Locker's 10-K: no text between the file number and "(Exact name of registrant ...)"; page 4's
    # business section opens with the name as incorporated, under a "General" heading.
    cover = page(
        [
            "FORM 10-K",
            "For the fiscal year ended January 28, 2023",
            "Commission File No. 1-10299",
            "(Exact name of registrant as specified in its charter)",
        ]
    )
    body = page(
        [
            "PART I",
            "Item 1. Business",
            "General",
            "Acme Stores, Inc., incorporated under the laws of the State of New York in 1989. Acme Stores,",
            "Inc. and its subsidiaries hereafter are referred to as the Company.",
        ],
        number=4,
    )
    got = identify(cover, page(["Table of contents"], 2), page(["Index"], 3), body)
    assert got.issuer.value == "Acme Stores, Inc."
    assert got.issuer.page == 4 and got.issuer.source == "body"
    assert got.issuer.evidence == "Acme Stores, Inc., incorporated under the laws of"
    assert got.form.source == "cover" and got.period_end.source == "cover"
    assert got.issuer_key == "name:acmestores"


def test_the_company_was_incorporated_names_no_one() -> None:
    got = identify(page(["Annual information", "The Company was incorporated in Delaware in 1998."]))
    assert got.issuer.value is None and got.issuer.reason


def test_a_release_dateline_names_the_issuer() -> None:
    # The headline printed in capitals without spaces (as OCR reads a tight display font) names no one;
    # the dateline's sentence does.
    got = identify(
        page(
            [
                "FOR IMMEDIATE RELEASE",
                "ACME'SREPORTSFOURTHQUARTERANDFULLYEAR2022RESULTS",
                "CHICAGO, IL - Acme Burger Corporation today announced results for the fourth quarter and",
                "year ended December 31, 2022.",
            ]
        )
    )
    assert got.issuer.value == "Acme Burger Corporation" and got.issuer.source == "cover"
    assert got.form.value == "earnings release"
    assert got.period_end.value == "2022-12-31"


@pytest.mark.parametrize(
    "dateline",
    [
        "CHICAGO, IL -Acme Burger Corporation today announced",  # OCR: the space after the dash lost
        "CHICAGO--(BUSINESS WIRE)--Acme Burger Corporation today announced",  # a wire service's dashes
        "CHICAGO, Jan. 31, 2023 /PRNewswire/ —Acme Burger Corporation today announced",
    ],
)
def test_a_dateline_dash_set_against_the_name_still_names_the_issuer(dateline: str) -> None:
    sentence = f"{dateline} results for the year ended December 31, 2022."
    got = identify(page(["FOR IMMEDIATE RELEASE", sentence]))
    assert got.issuer.value == "Acme Burger Corporation"


def test_a_hyphen_inside_a_name_is_no_dateline_dash() -> None:
    sentence = "ATLANTA - Coca-Cola Bottling Company today announced results"
    got = identify(page(["FOR IMMEDIATE RELEASE", sentence]))
    assert got.issuer.value != "Cola Bottling Company"


def test_an_annual_report_without_an_ended_date_is_dated_by_its_balance_sheet() -> None:
    # Alpenglow's report prints "Annual Report 2025" and year column heads; its balance sheet is dated.
    cover = page(["Alpenglow Instruments AG", "Annual Report 2025", "Zug, 26 February 2026"])
    statements = page(
        [
            "Consolidated income statement",
            [("2025", 460.0), ("2024", 520.0)],
            [("Net sales", 56.0), ("2,031.7", 450.0), ("2,145.3", 508.0)],
            "Consolidated balance sheet",
            "in CHF million",
            [("31.12.2024", 380.0), ("31.12.2025", 440.0)],
            [("Cash and cash equivalents", 56.0), ("212.4", 390.0), ("250.1", 450.0)],
        ],
        number=4,
    )
    got = identify(cover, page(["Letter to shareholders"], 2), page(["Highlights"], 3), statements)
    assert got.period_end.value == "2025-12-31"  # the latest column, wherever it is printed
    assert got.period_end.page == 4 and got.period_end.source == "body"
    assert got.period_end.evidence == "Consolidated balance sheet: 31.12.2025"


def test_a_balance_sheet_headed_by_years_alone_gives_no_date() -> None:
    statements = page(
        ["Annual Report 2025", "Consolidated balance sheet", [("2025", 440.0), ("2024", 500.0)]]
    )
    got = identify(statements)
    assert got.period_end.value is None
    assert got.period_end.reason == "no '<period> ended <date>' printed on the first 1 page(s)"


GLYPHS = str.maketrans(
    {c: chr(33 + (ord(c) * 7) % 31) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}
)
"""Letters and digits to punctuation: what a font without a Unicode map leaves in the text layer."""

RELEASE = [
    "FOR IMMEDIATE RELEASE",
    "ACME BURGER REPORTS FOURTH QUARTER 2022 RESULTS",
    "CHICAGO, IL - Acme Burger Corporation today announced results",
    "for the fourth quarter and year ended December 31, 2022.",
    "Global comparable sales increased 12.6% for the quarter, with growth",
    "across all segments. Diluted earnings per share was $2.59.",
]


def test_glyph_codes_are_not_read_as_text_and_say_so() -> None:
    garbled = page([line.translate(GLYPHS) for line in RELEASE * 2])
    assert unreadable_pages(garbled) == [1]
    got = read_identity(garbled, pages_read=1)
    assert got.issuer.value is None and got.form.value is None and got.period_end.value is None
    assert (got.issuer.reason or "").startswith("text layer unreadable on page(s) 1, not read by OCR here; ")


def test_what_reads_is_words_numbers_and_other_scripts_not_dot_leaders() -> None:
    assert readable_share(RELEASE * 2) == pytest.approx(1.0, abs=0.05)
    assert (readable_share(["东北电气发展股份有限公司 2018 年第一季度报告全文"] * 10) or 0) > 0.9
    leaders = ["Business . . . . . . . . . . . . . . . . . . . . 1", "Risk Factors . . . . . . . . . 15"]
    assert (readable_share(leaders * 5) or 0) > 0.9
    assert readable_share(["too few words"]) is None


def _glyph_code_pdf() -> bytes:
    """A release page whose image shows the words and whose text layer is glyph codes (invisible text)."""
    with pymupdf.open() as src:
        shown = src.new_page()
        for i, line in enumerate(RELEASE):
            shown.insert_text((54, 90 + 24 * i), line, fontsize=13)
        pix = shown.get_pixmap(dpi=200)
    with pymupdf.open() as doc:
        out = doc.new_page()
        out.insert_image(out.rect, pixmap=pix)
        for i, line in enumerate(RELEASE * 3):
            out.insert_text((54, 300 + 12 * i), line.translate(GLYPHS), fontsize=9, render_mode=3)
        data: bytes = doc.tobytes()
    return data


def test_without_the_ocr_extra_an_unreadable_cover_says_how_to_read_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The extra is removed for this test (None in sys.modules makes its import fail), so that the path is
    # taken whether or not the test tier's venv has it.
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    cover_ocr._engine.cache_clear()
    try:
        got = identify_bytes(_glyph_code_pdf())
    finally:
        cover_ocr._engine.cache_clear()
    assert got.issuer.value is None
    assert (got.issuer.reason or "").startswith(
        "text layer unreadable on page(s) 1; install tieout[ocr] to read it by OCR; "
    )


@pytest.mark.skipif(not HAS_OCR, reason="the ocr extra (rapidocr-onnxruntime) is not installed")
def test_an_unreadable_cover_is_read_by_ocr() -> None:
    got = identify_bytes(_glyph_code_pdf())
    assert got.issuer.value == "Acme Burger Corporation"
    assert got.form.value == "earnings release"
    assert got.period_end.value == "2022-12-31"
    for field in (got.issuer, got.form, got.period_end):
        assert field.source == "ocr" and field.page == 1 and field.evidence
    assert (got.ticker.reason or "").startswith("text layer unreadable on page(s) 1, page(s) 1 read by OCR; ")


def test_unreadable_blocks_are_dropped_before_reading() -> None:
    # A glyph-code page beside a readable one: the readable page is read, the other's noise is not.
    garbled = [
        Block(page=2, bbox=b.bbox, text=b.text, font_size=9.0)
        for b in page([x.translate(GLYPHS) for x in RELEASE * 2])
    ]
    got = read_identity(
        [*page(["FORM 10-K", "For the fiscal year ended December 31, 2022"]), *garbled], pages_read=2
    )
    assert got.form.value == "10-K" and got.period_end.value == "2022-12-31"
    assert (got.issuer.reason or "").startswith("text layer unreadable on page(s) 2, not read by OCR here; ")


@pytest.mark.parametrize(
    ("period_line", "end"),
    [
        # A cover that labels the date ("ended:") and gives it after a colon.
        ("For the fiscal year ended: December 31, 2022", "2022-12-31"),
        # A 53-week year counted in digits.
        ("For the 53 weeks ended February 3, 2024", "2024-02-03"),
        # A transition report: its period is a range, and it ends on the range's second date.
        ("For the transition period from January 1, 2022 to June 30, 2022", "2022-06-30"),
    ],
)
def test_cover_period_lines_in_other_words(period_line: str, end: str) -> None:
    rows = ["FORM 10-K", period_line, "ACME CORP.", "(Exact name of registrant as specified in its charter)"]
    got = identify(page(rows))
    assert got.period_end.value == end and got.period_end.evidence == period_line


def test_a_blank_transition_range_leaves_the_fiscal_year_to_date_the_report() -> None:
    rows = [
        "FORM 10-K",
        "For the transition period from ______ to ______",
        "For the fiscal year ended December 31, 2022",
        "ACME CORP.",
    ]
    assert identify(page(rows)).period_end.value == "2022-12-31"


def _name_as_image_pdf() -> bytes:
    """A 10-K whose cover draws the registrant's name as a picture, and whose next page names it in text."""
    with pymupdf.open() as src:
        logo = src.new_page(width=300, height=40)
        logo.insert_text((10, 28), "ACME STORES, INC.", fontsize=20)
        pix = logo.get_pixmap(dpi=150)
    with pymupdf.open() as doc:
        cover = doc.new_page()
        for y, line in [
            (72, "FORM 10-K"),
            (90, "For the fiscal year ended January 28, 2023"),
            (108, "Commission File No. 1-10299"),
            (166, "(Exact name of registrant as specified in its charter)"),
        ]:
            cover.insert_text((72, y), line, fontsize=10)
        cover.insert_image(pymupdf.Rect(72, 116, 372, 156), pixmap=pix)
        body = doc.new_page()
        for y, line in [
            (72, "Item 1. Business"),
            (90, "General"),
            (108, "Acme Stores, Inc., incorporated under the laws of the State of New York in 1989."),
        ]:
            body.insert_text((72, y), line, fontsize=10)
        data: bytes = doc.tobytes()
    return data


def test_the_engine_reads_an_image_name_from_the_body_without_ocr() -> None:
    got = identify_bytes(_name_as_image_pdf())
    assert got.issuer.value == "Acme Stores, Inc." and got.issuer.page == 2 and got.issuer.source == "body"
    assert got.form.value == "10-K" and got.period_end.value == "2023-01-28"


def test_a_page_whose_text_layer_does_not_read_says_so() -> None:
    # Regression: such a page was parsed like any other and the document came out with no error item, so
    # a reader of its (empty or garbled) facts could not tell that the page was never read.
    result = parse_bytes(_glyph_code_pdf(), source="glyphs.pdf")
    unread = [e for e in result.errors if e.category == "no_text_layer"]
    assert [(e.page, e.stage, e.fatal) for e in unread] == [(1, "parse", False)]
    assert "text layer does not read" in unread[0].message


def test_a_readable_page_raises_no_such_error() -> None:
    with pymupdf.open() as doc:
        out = doc.new_page()
        for i, line in enumerate(RELEASE * 3):
            out.insert_text((54, 90 + 12 * i), line, fontsize=9)
        data = doc.tobytes()
    assert not [e for e in parse_bytes(data, source="plain.pdf").errors if e.category == "no_text_layer"]


@pytest.mark.skipif(not HAS_OCR, reason="the ocr extra (rapidocr-onnxruntime) is not installed")
def test_ocr_runs_its_networks_on_one_thread() -> None:
    # ONNX Runtime's default (a thread per core) spins against the other worker on a 2-core machine.
    engine = cover_ocr._engine()
    for stage in (engine.text_det.infer, engine.text_rec.session):
        options = stage.session.get_session_options()
        assert options.intra_op_num_threads == cover_ocr.OCR_THREADS == 1
