"""A note's last line named as the sentence introducing the table names its subject (generated page).

"Inventories consisted of the following (in millions):", four lines, then "Inventories": the last line is
the total, though its label does not say so. The table's title named it only as the whole sentence, so in
a table of two columns the last line was never tried as a total and a component keyed wrong raised
nothing (Corning's quarterly report). The subject of such a sentence ("X consisted of the following",
"The components of X were as follows") now names the table (``labels.table_names``).
"""

from __future__ import annotations

import pytest

from schemas.models import DocumentResult
from tests.support.pages import only_flag, page_rows, table_result


def _note(title: str, work_in_process: str = "553") -> DocumentResult:
    rows = page_rows(f"""
        Finished goods                 | 1,234             | 1,315
        Work in process                | {work_in_process} | 571
        Raw materials and accessories  | 515               | 537
        Supplies and packing materials | 455               | 481
        Inventories                    | 2,757             | 2,904
    """)
    return table_result(title, ("June 30, 2023", "December 31, 2022"), rows, source="inventories.pdf")


_TITLES = (
    "Inventories consisted of the following (in millions):",
    "The components of inventories were as follows (in millions):",
)


@pytest.mark.parametrize("title", _TITLES)
def test_the_clean_note_raises_nothing(title: str) -> None:
    assert _note(title).flags == []


@pytest.mark.parametrize("title", _TITLES)
def test_a_component_keyed_wrong_is_flagged(title: str) -> None:
    assert "Inventories" in only_flag(_note(title, work_in_process="535"), "TOT001").message
