"""How the tick-and-tie marks look: their subjects, colours and sizes, and the fonts their text is set in.

Shared by the placing (:mod:`adapters.review.tick_placing`), the summary's layout
(:mod:`adapters.review.tick_summary`) and the drawing (:mod:`adapters.review.tick_drawing`); text is measured
with the fonts it is drawn in, so a label placed to fit does fit.
"""

from __future__ import annotations

from typing import Any

import pymupdf

__all__ = [
    "CLEARED",
    "GREEN",
    "GREY",
    "INK",
    "MARGIN",
    "NOTE_MAX_WIDTH",
    "NOTE_MIN_WIDTH",
    "NOTE_PAD",
    "NOTE_SIZE",
    "SEVERITY_COLORS",
    "SUBJECT_BREAK",
    "SUBJECT_NOTE",
    "SUBJECT_TICK",
    "TICK_GAP",
    "TITLE",
    "WHITE",
    "Color",
    "ascii_text",
    "cached_font",
    "font_runs",
    "is_latin",
    "text_width",
    "wrap",
]

SUBJECT_TICK = "tieout tick"
SUBJECT_BREAK = "tieout break"
SUBJECT_NOTE = "tieout note"
TITLE = "tieout"

Color = tuple[float, float, float]
GREEN: Color = (0.0, 0.55, 0.25)
SEVERITY_COLORS: dict[str, Color] = {
    "error": (0.85, 0.1, 0.1),
    "warning": (0.93, 0.5, 0.0),
    "info": (0.15, 0.4, 0.85),
}
CLEARED: Color = (0.38, 0.4, 0.48)  # a break an analyst dismissed: slate grey, whatever its severity
INK: Color = (0.1, 0.1, 0.1)
GREY: Color = (0.4, 0.4, 0.4)
WHITE: Color = (1.0, 1.0, 1.0)

NOTE_SIZE = 7.0  # the labels' font size (pt): read at 100 % (a footnote's size), small enough for a margin
NOTE_PAD = 1.5
NOTE_MIN_WIDTH = 44.0
NOTE_MAX_WIDTH = 110.0
TICK_GAP = 1.5  # between a figure's box and its tick
MARGIN = 48.0  # the summary's page margins

# --- text: fonts, widths, wrapping -------------------------------------------------------------------

_FONTS: dict[str, Any] = {}


def is_latin(text: str) -> bool:
    """Whether a base-14 font shows the text (WinAnsi), so nothing needs embedding."""
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def cached_font(name: str) -> Any:
    """A MuPDF font by its built-in name (``helv``, ``hebo``, ``cjk``), loaded once per process."""
    if name not in _FONTS:
        _FONTS[name] = pymupdf.Font(name)
    return _FONTS[name]


def font_runs(text: str, bold: bool) -> list[tuple[str, str]]:
    """The text cut into runs of one font each: Helvetica, or MuPDF's built-in CJK font for other scripts."""
    latin = "hebo" if bold else "helv"
    runs: list[tuple[str, str]] = []
    for ch in text:
        face = latin if is_latin(ch) else "cjk"
        if runs and runs[-1][1] == face:
            runs[-1] = (runs[-1][0] + ch, face)
        else:
            runs.append((ch, face))
    return runs


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The text's advance width (pt) at ``size``, each run in the font that shows it."""
    return sum(
        float(cached_font(face).text_length(run, fontsize=size)) for run, face in font_runs(text, bold)
    )


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """Greedy word wrap; a word longer than the line is cut."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size, bold) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while text_width(word, size, bold) > width and len(word) > 1:
            cut = len(word)
            while cut > 1 and text_width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines or [""]


def ascii_text(text: str) -> str:
    """Text a base-14 font can show in an annotation's appearance (FreeText has no font fallback)."""
    replaced = text.replace("…", "...").replace("—", "-").replace("–", "-").replace("’", "'")
    return "".join(ch if is_latin(ch) else "?" for ch in replaced)
