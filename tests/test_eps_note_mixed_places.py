"""An EPS note prints whole millions, share counts to one place and cents in every year (generated layout).

Each column's decimal places were the most common among its figures, dashes left out. In Foot Locker's
note the year without discontinued operations prints dashes on two per-share lines, so its most common
places were those of the amounts, another year's those of the cents: the columns read as three kinds of
figure and two of the three were dropped from the calculation tree. The diluted share count keyed with the
wrong sign then broke nothing (development seeds 33-34). Places are now counted on the lines where every
column prints a figure.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, table_result


@Keyed
def _note(diluted_shares: str = "103.8") -> DocumentResult:
    rows = [
        ("Income from continuing operations", ("344", "892", "323")),
        ("Net loss attributable to noncontrolling interests", ("1", "1", "—")),
        ("Income from continuing operations attributable to Acme", ("345", "893", "323")),
        ("Net loss from discontinued operations, net of tax", ("(3)", "—", "—")),
        ("Net income attributable to Acme", ("342", "893", "323")),
        ("Weighted-average common shares outstanding", ("94.3", "102.5", "104.3")),
        ("Dilutive effect of potential common shares", ("1.2", "1.3", "0.8")),
        ("Weighted-average common shares outstanding assuming dilution", ("95.5", diluted_shares, "105.1")),
        ("Basic earnings per share:", ("", "", "")),
        ("Earnings per share from continuing operations", ("3.66", "8.72", "3.10")),
        ("Net loss per share from discontinued operations", ("(0.04)", "—", "—")),
        ("Net earnings per share attributable to Acme", ("3.62", "8.72", "3.10")),
        ("Diluted earnings per share:", ("", "", "")),
        ("Earnings per share from continuing operations", ("3.62", "8.61", "3.08")),
        ("Net loss per share from discontinued operations", ("(0.04)", "—", "—")),
        ("Net earnings per share attributable to Acme", ("3.58", "8.61", "3.08")),
    ]
    return table_result(
        "The computation of basic and diluted EPS is as follows (in millions, except per share data):",
        ("2022", "2021", "2020"),
        rows,
        (380.0, 440.0, 500.0),
    )


test_the_clean_note_raises_nothing = _note.quiet_test()


def test_the_diluted_count_keyed_with_the_wrong_sign_is_flagged() -> None:
    flags = _note(diluted_shares="(103.8)").flags
    assert "TOT001" in [f.rule for f in flags], [f.message for f in flags]
    assert all("(103.8)" in f.message or "-103.8" in f.message for f in flags), [f.message for f in flags]
