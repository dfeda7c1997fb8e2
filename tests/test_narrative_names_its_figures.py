"""A sentence's own figures say which table figures its change is about (generated release).

Retailers name a fiscal year by the calendar year it begins in: Ulta Beauty's "fiscal 2022" ended on
January 28, 2023, and its tables date the year by its end. "Net sales increased 18.3% to $10.2 billion
compared to $8.6 billion in fiscal 2021" was compared with the years the tables date 2022 and 2021, and
the 18.3 % found wrong. The sentence prints both figures: when a table figure is no keying error away
from the sentence's (8.6 billion against 6,152.0 million), it is another period's, and the change is not
compared with it.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, right_aligned, titled_page, write_table

_XS = (380.0, 450.0, 520.0)


def _release(sentence: str) -> DocumentResult:
    doc = pymupdf.open()
    page = titled_page(doc, "Fiscal year results (Dollars in millions)", (), (), title_y=44.0)
    page.insert_text((405, 60), "52 Weeks Ended", fontsize=SIZE)  # over the three columns
    for x, day in zip(_XS, ("January 28,", "January 29,", "January 30,"), strict=True):
        right_aligned(page, x, 72, day)
    rows = [
        ("Net sales", ("10,208.6", "8,630.9", "6,152.0")),
        ("Operating income", ("1,646.2", "1,297.6", "238.7")),
    ]
    write_table(page, 84.0, ("2023", "2022", "2021"), rows, _XS)
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 96), sentence, fontsize=SIZE)
    return process_bytes(doc.tobytes(), source="release.pdf")


def test_a_change_between_other_periods_than_the_tables_date_raises_nothing() -> None:
    sentence = "Net sales increased 18.3% to $10.2 billion compared to $8.6 billion in fiscal 2021."
    assert [f.rule for f in _release(sentence).flags] == []


def test_a_wrong_change_between_the_sentence_s_own_figures_is_flagged() -> None:
    sentence = "Net sales increased 28.3% to $10.2 billion compared to $8.6 billion in fiscal 2022."
    # (its own figures give 18.6 %: the sentence contradicts itself, NAR002, before any table is needed)
    assert [f.rule for f in _release(sentence).flags] == ["NAR002"]
