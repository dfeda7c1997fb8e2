"""Text from users and documents shown inert: its bidirectional controls become visible markers.

A note, a reason, a label or a document's message may hold Unicode's bidirectional controls: an override
(U+202E) makes the text after it read right to left, so ``pay 12 to bob`` typed with one shows reversed
to the next reviewer, and an embedding, isolate or mark can reorder what surrounds it. The console never
lets one act: every text it prints passes :func:`visible_controls` (the templates' ``finalize``,
:func:`console.pages.templates`), which replaces each control with its name in brackets (``[RLO]``), and
the templates print user text through :func:`user_text` (the ``user`` filter), which also styles the
markers and isolates the text in ``<bdi dir="auto">``, so that right-to-left scripts still read in their
own direction without reordering the page around them.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

__all__ = ["BIDI_CONTROLS", "user_text", "visible_controls"]

BIDI_CONTROLS: dict[str, tuple[str, str]] = {
    "\u202a": ("LRE", "left-to-right embedding"),
    "\u202b": ("RLE", "right-to-left embedding"),
    "\u202c": ("PDF", "pop directional formatting"),
    "\u202d": ("LRO", "left-to-right override"),
    "\u202e": ("RLO", "right-to-left override"),
    "\u2066": ("LRI", "left-to-right isolate"),
    "\u2067": ("RLI", "right-to-left isolate"),
    "\u2068": ("FSI", "first strong isolate"),
    "\u2069": ("PDI", "pop directional isolate"),
    "\u200e": ("LRM", "left-to-right mark"),
    "\u200f": ("RLM", "right-to-left mark"),
    "\u061c": ("ALM", "Arabic letter mark"),
}
"""Each bidirectional control character: the short name its marker shows, and what it is."""

_CONTROL = re.compile("[" + "".join(BIDI_CONTROLS) + "]")


def visible_controls(text: str) -> str:
    """``text`` with each bidirectional control replaced by its bracketed name (``[RLO]``): plain text."""
    return _CONTROL.sub(lambda m: f"[{BIDI_CONTROLS[m.group()][0]}]", text)


def _marker(m: re.Match[str]) -> str:
    name, what = BIDI_CONTROLS[m.group()]
    return f'<span class="bidi-control" title="U+{ord(m.group()):04X} {what}">[{name}]</span>'


def user_text(value: object) -> Markup:
    """``value`` as text for an element's content: escaped, its controls shown as styled markers, isolated.

    Returns:
        ``<bdi dir="auto">…</bdi>``: the text takes the direction of its first strong letter and cannot
        reorder what is around it; each control in it is a ``<span class="bidi-control">`` saying its name.
    """
    text = "" if value is None else str(value)
    inert = _CONTROL.sub(_marker, str(escape(text)))
    return Markup(f'<bdi dir="auto">{inert}</bdi>')  # the text is escaped above; the markers are ours
