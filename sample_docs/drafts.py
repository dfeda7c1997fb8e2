"""Two drafts of a prospectus and the changes between them, for the draft-to-draft figure diff.

Run ``python -m sample_docs.drafts --out DIR [--seeds 0-9]``. For each seed, the prospectus of
``generate.py`` (Aurelia's layout: IFRS, € thousand, three years) is drawn for a new issuer with its own
figures, then again as its next draft, and ``draft_<seed>.json`` records what changed from what was drawn
(every numeric cell the renderer printed, keyed by table, model key and period, never by page):

* figures **changed**: two segments' revenue moved between them (the total unchanged); a provision raised
  with the totals above it and retained earnings lowered by as much (every tie still holds); the
  figure the earlier draft misprinted, corrected (the tie it broke is **repaired**);
* figures **added**: a new line ("Right-of-use assets", split out of other non-current assets) and a new
  column (the segment table's third year);
* figures **removed**: "Other current assets", merged into receivables;
* a component changed and its total not: the tie **broken** (TOT001 in the later draft, VER001 across);
* the balance sheet **reflowed** over a different page break, and **paragraphs inserted** in the review
  ahead of the statements, so that later figures move pages: neither is a change.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sample_docs.generate import (
    BASIS,
    DOCS,
    FILLER,
    Builder,
    Col,
    DocConfig,
    Figures,
    Printed,
    Renderer,
    TableSpec,
    _label,
    build_balance_sheet,
    build_cash_flow,
    build_figures,
    build_income_statement,
    build_segment_table,
    build_summary,
    draw_opening,
    instant_key,
    narrative_paragraphs,
    ordered_years,
    segment_figures,
    transpose_digits,
)

__all__ = ["DraftPair", "render_pair", "seed_range", "write_pairs"]

BASE = next(d for d in DOCS if d.file == "aurelia_2025_prospectus.pdf")
ISSUERS = (
    "Vantora Mobility SE",
    "Kessler Pharma AG",
    "Lumenhaus Energie SE",
    "Brückner Systems AG",
    "Ostwind Netze SE",
    "Falkenrath Chemie AG",
    "Solvay Marine Logistik SE",
    "Aldenhoven Software AG",
    "Rivane Medtech SE",
    "Tauberg Baustoffe AG",
)
INSERTED = (
    "Recent developments",
    (
        "Since the end of the last financial year the Company has continued to expand its network of "
        "sites and has signed framework agreements with several new customers in its core markets. The "
        "Management Board expects these agreements to contribute to revenue from the second half of the "
        "current financial year onwards.",
        "The Company has also refinanced part of its bank borrowings under a new syndicated facility with "
        "a longer maturity. The terms of the facility are described in the section on capitalisation and "
        "indebtedness of this prospectus.",
        FILLER,
        "In the first quarter of the current financial year the Company opened two further distribution "
        "centres and commissioned an automated sorting facility. The investment was financed from "
        "operating cash flow and from the existing revolving credit facility.",
        "The Company intends to use the net proceeds of the offering to fund the expansion of its network, "
        "to invest in automation and information technology and to repay part of its existing borrowings. "
        "The allocation of the proceeds may change as the Company's plans develop.",
        "Following the offering the Company will be subject to the disclosure obligations of the market "
        "abuse regulation and will publish inside information without undue delay, unless the conditions "
        "for a delay of its disclosure are met.",
        BASIS,
        "The Management Board is not aware of any other significant change in the financial position or "
        "the financial performance of the Group since the end of the last financial year for which "
        "audited financial statements have been published.",
    ),
)
BREAKABLE = ("inv", "ppe", "intang")
"""Components whose change, with their total left as it was, breaks a tie."""
MISPRINTABLE = ("pay", "stb", "ctax")
"""Components the earlier draft misprints (digits transposed) and the later one corrects."""


@dataclass(frozen=True)
class DraftPair:
    """Two drafts and the truth of what changed between them."""

    seed: int
    old: bytes
    new: bytes
    truth: dict[str, Any]


@dataclass(frozen=True)
class _Plan:
    """What the next draft changes, drawn from the seed."""

    latest: int
    shifted: tuple[int, int]  # segment revenue moves from the first to the second, in the latest year
    shift: int
    provision: int  # raised in the latest year; retained earnings lowered by as much
    right_of_use: float  # share of other non-current assets split out as right-of-use assets
    broken: str  # a component changed in the latest year, its total not
    broken_by: int
    misprinted: str  # misprinted in the earlier draft, corrected in the later
    misprint_year: int
    old_break: str | None  # the balance sheet's page break, before this row (None: where it overflows)
    new_break: str
    inserted: tuple[int, ...]  # the paragraphs inserted in the later draft's review, in their order


def _config(seed: int) -> DocConfig:
    rng = random.Random(f"drafts-{seed}")
    return replace(
        BASE,
        file=f"draft_{seed}",
        seed=9_000 + seed,
        issuer=ISSUERS[seed % len(ISSUERS)],
        revenue_base=rng.randrange(150_000, 900_000),
        style=rng.choice(("grid", "grid", "filing")),
    )


def _plan(cfg: DocConfig, figs: Figures, seed: int) -> _Plan:
    rng = random.Random(f"plan-{seed}")
    latest = max(cfg.years)
    f = figs[latest]
    broken = rng.choice(BREAKABLE)
    old_break = rng.choice((None, "cl_head", "eq_head"))
    return _Plan(
        latest=latest,
        shifted=(0, 1) if rng.random() < 0.5 else (2, 0),
        shift=round(f["revenue"] * rng.uniform(0.004, 0.02)),
        provision=round(f["prov"] * rng.uniform(0.05, 0.3)) + 1,
        right_of_use=rng.uniform(0.3, 0.6),
        broken=broken,
        broken_by=round(f[broken] * rng.uniform(0.01, 0.05)) + 1,
        misprinted=rng.choice(MISPRINTABLE),
        misprint_year=rng.choice(sorted(cfg.years)),
        old_break=old_break,
        new_break=rng.choice([k for k in ("cl_head", "eq_head", "tca", "cash") if k != old_break]),
        inserted=tuple(rng.sample(range(len(INSERTED[1])), len(INSERTED[1]))),
    )


def _misprinted(figs: Figures, plan: _Plan) -> Figures:
    """The earlier draft: one component's digits transposed, its total left as computed."""
    out = {y: dict(f) for y, f in figs.items()}
    f = out[plan.misprint_year]
    f[plan.misprinted] = transpose_digits(f[plan.misprinted])
    return out


def _revised(figs: Figures, segs: Figures, plan: _Plan) -> tuple[Figures, Figures]:
    """The later draft's figures: every change the plan makes to the model."""
    out = {y: dict(f) for y, f in figs.items()}
    out_segs = {y: dict(s) for y, s in segs.items()}
    f, s = out[plan.latest], out_segs[plan.latest]
    src, dst = plan.shifted
    s[f"segrev{src}"] -= plan.shift
    s[f"segrev{dst}"] += plan.shift
    for key in ("prov", "tncl", "tl"):
        f[key] += plan.provision
    for key in ("ret", "te"):
        f[key] -= plan.provision
    for g in out.values():
        g["rou"] = round(g["other_nca"] * plan.right_of_use)
        g["other_nca"] -= g["rou"]
        g["recv"] += g["other_ca"]
    f[plan.broken] += plan.broken_by  # and its total not: the tie breaks
    return out, out_segs


def _balance_sheet(
    cfg: DocConfig, figs: Figures, cols: Sequence[Col], *, revised: bool, page_break: str | None
) -> TableSpec:
    spec = build_balance_sheet(cfg, figs, cols)
    rows = list(spec.rows)
    if revised:
        b = Builder(cfg, figs, "bs", cols)
        b.add("Right-of-use assets", "rou", indent=1)
        at = next(i for i, r in enumerate(rows) if r.key == "ppe") + 1
        rows.insert(at, b.rows[0])
        rows = [r for r in rows if r.key != "other_ca"]
    if page_break is not None:
        at = next(i for i, r in enumerate(rows) if r.key == page_break)
        rows[at] = replace(rows[at], break_before=True)
    return replace(spec, rows=tuple(rows))


def _draw(
    cfg: DocConfig,
    figs: Figures,
    segs: Figures,
    *,
    revised: bool,
    page_break: str | None,
    inserted: Sequence[int],
) -> tuple[bytes, Renderer, list[TableSpec]]:
    """One draft, laid out as ``generate.render_document`` lays out the prospectus.

    ``revised``: the later draft's lines and columns; ``page_break``: the balance sheet's forced break;
    ``inserted``: the paragraphs inserted in the review, in their order.
    """
    years = ordered_years(cfg)
    dur = [Col(y, f"FY{y}") for y in years]
    inst = [Col(y, instant_key(cfg, y)) for y in years]
    r = Renderer(cfg)
    specs = [
        build_summary(cfg, figs, dur, {}),
        build_segment_table(cfg, figs, segs, dur if revised else dur[:2]),
        build_income_statement(cfg, figs, dur),
        _balance_sheet(cfg, figs, inst, revised=revised, page_break=page_break),
        build_cash_flow(cfg, figs, dur),
    ]
    summary, segments, income, balance, cash = specs
    draw_opening(r, cfg, summary)
    if inserted:
        title, paragraphs = INSERTED
        r.heading(title, 11)
        for i in inserted:  # a page of them, so that the statements after them move a page on
            r.paragraph(paragraphs[i])
    paras = narrative_paragraphs(cfg, figs, segs)
    r.heading(_label(cfg, "mdna_results", "Group results"), 11)
    for text, tag in paras[:2]:
        r.paragraph(text, (tag,))
    r.table(segments)
    r.heading(_label(cfg, "mdna_cash", "Profit, tax and cash flow"), 11)
    for text, tag in paras[2:]:
        r.paragraph(text, (tag,))
    r.table(income, new_page=True)
    # Where no break is forced the balance sheet follows the income statement and overflows naturally.
    r.table(balance, new_page=page_break is not None)
    r.table(cash, new_page=True)
    r.heading(_label(cfg, "notes_title", "Notes to the financial statements"), 13, new_page=True)
    r.heading("1. Basis of preparation", 10)
    r.paragraph(BASIS)
    return r.finish(), r, specs


def _cells(r: Renderer, specs: Sequence[TableSpec]) -> dict[tuple[str, str, str, int], dict[str, Any]]:
    """Every numeric cell drawn, keyed by table, model key, period and occurrence (never by page)."""
    labels = {(s.tid, row.key): row.label for s in specs for row in s.rows if row.key}
    titles = {s.tid: s.title for s in specs}
    seen: Counter[tuple[str, str, str]] = Counter()
    out: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for p in r.printed:
        if p.key is None or p.period is None:
            continue  # a change column (none in this layout) has no key
        # Keyed as its column's head states the period: the summary's heads are years ended (its
        # balance-sheet lines' figures, instants in the model, sit under "Year ended 31 December").
        period = f"FY{p.period[:4]}" if p.tid == "sum" and not p.period.startswith("FY") else p.period
        base = (p.tid, p.key, period)
        out[(*base, seen[base])] = {"cell": p, "line": labels[(p.tid, p.key)], "table": titles[p.tid]}
        seen[base] += 1
    return out


def _printing(p: Printed) -> dict[str, Any]:
    return {"page": p.page, "text": p.text}


def _truth(
    cfg: DocConfig,
    plan: _Plan,
    old: tuple[Renderer, list[TableSpec]],
    new: tuple[Renderer, list[TableSpec]],
    files: tuple[str, str],
) -> dict[str, Any]:
    a, b = _cells(*old), _cells(*new)
    changes: list[dict[str, Any]] = []
    moved = 0
    for key in [*a, *(k for k in b if k not in a)]:
        was, now = a.get(key), b.get(key)
        ref = now or was
        assert ref is not None
        entry = {"table": ref["table"], "line": ref["line"], "period": key[2]}
        if was is None:
            changes.append({"kind": "added", **entry, "old": None, "new": _printing(now["cell"])})  # type: ignore[index]
        elif now is None:
            changes.append({"kind": "removed", **entry, "old": _printing(was["cell"]), "new": None})
        elif was["cell"].text != now["cell"].text:
            changes.append(
                {"kind": "changed", **entry, "old": _printing(was["cell"]), "new": _printing(now["cell"])}
            )
        elif was["cell"].page != now["cell"].page:
            moved += 1
    spec = {s.tid: s for s in new[1]}
    bs_labels = {row.key: row.label for row in spec["bs"].rows if row.key}
    total_of = {"inv": "tca", "ppe": "tnca", "intang": "tnca", "pay": "tcl", "stb": "tcl", "ctax": "tcl"}
    bs_title = spec["bs"].title

    def tie(key: str, year: int) -> dict[str, Any]:
        return {"table": bs_title, "line": bs_labels[total_of[key]], "period": instant_key(cfg, year)}

    def pages(r: Renderer, tid: str) -> list[int]:
        return sorted({p.page for p in r.printed if p.tid == tid})

    return {
        "old": files[0],
        "new": files[1],
        "issuer": cfg.issuer,
        "changes": changes,
        "ties": {
            "broken": [tie(plan.broken, plan.latest)],
            "repaired": [tie(plan.misprinted, plan.misprint_year)],
        },
        "reflowed": {"table": bs_title, "old_pages": pages(old[0], "bs"), "new_pages": pages(new[0], "bs")},
        "inserted_paragraphs": len(plan.inserted),
        "income_statement_pages": {"old": pages(old[0], "is"), "new": pages(new[0], "is")},
        "unchanged_on_other_pages": moved,
    }


def render_pair(seed: int, *, revise: bool = True, insert: bool = True, reflow: bool = True) -> DraftPair:
    """A prospectus and its next draft for ``seed``, with the truth of what changed between them.

    Args:
        seed: Any integer; different seeds give different issuers, figures and changes.
        revise: Change figures, lines and columns (False: the same figures, no misprint in the earlier draft).
        insert: Insert paragraphs in the later draft's review.
        reflow: Break the later draft's balance sheet before another row.

    Returns:
        Both PDFs' bytes (reproducible) and the truth: each change (kind, table, line, period, both
        printings with their pages), the tie broken and the tie repaired, the balance sheet's pages in
        each draft, and how many unchanged figures moved to another page.
    """
    cfg = _config(seed)
    figs = build_figures(cfg)
    segs = segment_figures(cfg, figs)
    plan = _plan(cfg, figs, seed)
    new_figs, new_segs = _revised(figs, segs, plan) if revise else (figs, segs)
    old_figs = _misprinted(figs, plan) if revise else figs
    old_pdf, old_r, old_specs = _draw(
        cfg, old_figs, segs, revised=False, page_break=plan.old_break, inserted=()
    )
    inserted = plan.inserted if insert else ()
    new_pdf, new_r, new_specs = _draw(
        cfg,
        new_figs,
        new_segs,
        revised=revise,
        page_break=plan.new_break if reflow else plan.old_break,
        inserted=inserted,
    )
    files = (f"draft_{seed}_v1.pdf", f"draft_{seed}_v2.pdf")
    truth = {"seed": seed, **_truth(cfg, plan, (old_r, old_specs), (new_r, new_specs), files)}
    truth["inserted_paragraphs"] = len(inserted)
    if not revise:
        truth["ties"] = {"broken": [], "repaired": []}
    return DraftPair(seed, old_pdf, new_pdf, truth)


def write_pairs(out: Path, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Write each seed's two PDFs and ``draft_<seed>.json`` into ``out``; return the truths."""
    out.mkdir(parents=True, exist_ok=True)
    truths = []
    for seed in seeds:
        pair = render_pair(seed)
        (out / pair.truth["old"]).write_bytes(pair.old)
        (out / pair.truth["new"]).write_bytes(pair.new)
        (out / f"draft_{seed}.json").write_text(json.dumps(pair.truth, indent=1, ensure_ascii=False) + "\n")
        truths.append(pair.truth)
    return truths


def seed_range(text: str) -> list[int]:
    """Seeds given as ``3`` or ``0-9`` (both ends included)."""
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--seeds", type=seed_range, default=seed_range("0-9"), help="e.g. 0-9 or 3 (default 0-9)"
    )
    args = parser.parse_args(argv)
    for truth in write_pairs(args.out, args.seeds):
        kinds = Counter(c["kind"] for c in truth["changes"])
        print(
            f"{truth['old']} -> {truth['new']}: {dict(kinds)}, reflowed {truth['reflowed']['old_pages']} -> "
            f"{truth['reflowed']['new_pages']}, {truth['unchanged_on_other_pages']} unchanged figures moved"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
