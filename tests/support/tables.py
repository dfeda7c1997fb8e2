"""Builders of typed tables in the shapes the table extractor produces, shared by the stage tests."""

from __future__ import annotations

from collections.abc import Sequence

from schemas.models import Block, Cell, Period, Table, TypedNumber
from tests.support.printed import printed_rows


def block(text: str, page: int = 2) -> Block:
    """A block of prose on ``page``, one line wide, as the text extractor yields it."""
    return Block(page=page, bbox=(50, 100, 550, 140), text=text, font_size=10)


# An income statement of two years that add up, its costs printed positive and its tax in parentheses: gross
# profit, operating income and net income are totals of the lines above them.
INCOME_STATEMENT: list[tuple[str, list[str]]] = printed_rows("""
    Revenue                             | 1,000.0 | 900.0
    Cost of sales                       | 600.0   | 540.0
    Gross profit                        | 400.0   | 360.0
    Selling, general and administrative | 100.0   | 90.0
    Research and development            | 50.0    | 45.0
    Operating income                    | 250.0   | 225.0
    Income tax expense                  | (50.0)  | (45.0)
    Net income                          | 200.0   | 180.0
""")


def period(key: str) -> Period:
    if key.startswith("FY"):
        return Period(kind="duration", key=key, label=key[2:], fiscal_year=int(key[2:]), months=12)
    if key.startswith("Q"):
        return Period(
            kind="duration", key=key, label=key, fiscal_year=int(key[3:]), quarter=int(key[1]), months=3
        )
    return Period(kind="instant", key=key, label=key, fiscal_year=int(key[:4]), end_date=key)


def number(
    text: str, *, scale: int | None = 6, per: Period | None = None, currency: str | None = "USD"
) -> TypedNumber:
    t = text.strip()
    dash = t in {"—", "-", "–"}
    negative = t.startswith("(")
    pct = t.endswith("%")
    digits = t.strip("()%$ ").replace(",", "")
    value = 0.0 if dash else float(digits) * (-1 if negative else 1)
    places = len(digits.split(".")[1]) if "." in digits else 0
    sc = 0 if pct else scale
    return TypedNumber(
        text=t,
        value=value,
        scale=sc,
        scale_source=None if sc is None else "cell" if pct else "caption",
        base_value=None if sc is None else round(value * 10**sc, 6),
        decimals=None if sc is None else places - sc,
        places=places,
        unit="percent" if pct else "currency",
        currency=None if pct else currency,
        negative=negative,
        is_dash=dash,
        period=per,
    )


def make_table(
    rows: Sequence[tuple[str, Sequence[str | None]]],
    *,
    periods: Sequence[str | None] = ("FY2025", "FY2024"),
    headers: Sequence[str] | None = None,
    scale: int | None = 6,
    table_id: str = "t1",
    page: int = 1,
    title: str | None = None,
    indents: Sequence[float] | None = None,
    currency: str | None = "USD",
) -> Table:
    pers = [period(p) if p else None for p in periods]
    heads = list(headers) if headers is not None else [p.label if p else "" for p in pers]
    cells = [Cell(row=0, col=0, text="", page=page, is_header=True)]
    cells += [
        Cell(
            row=0,
            col=i + 1,
            text=h,
            page=page,
            is_header=True,
            bbox=(300.0 + 80 * i, 90, 360.0 + 80 * i, 100),
        )
        for i, h in enumerate(heads)
    ]
    for r, (label, values) in enumerate(rows, start=1):
        y = 100.0 + 12 * r
        x0 = indents[r - 1] if indents else 50.0
        if label:
            cells.append(Cell(row=r, col=0, text=label, page=page, bbox=(x0, y, 250.0, y + 10)))
        for i, v in enumerate(values):
            if v is None:
                continue
            if v == "$":
                cells.append(Cell(row=r, col=i + 1, text="$", page=page))
                continue
            n = number(v, scale=scale, per=pers[i] if i < len(pers) else None, currency=currency)
            cells.append(
                Cell(
                    row=r,
                    col=i + 1,
                    text=v,
                    page=page,
                    number=n,
                    bbox=(300.0 + 80 * i, y, 360.0 + 80 * i, y + 10),
                )
            )
    n_rows = len(rows) + 1
    return Table(
        table_id=table_id,
        doc_id="doc",
        source="doc.pdf",
        page=page,
        pages=[page],
        bbox=(40, 80, 560, 100 + 12 * n_rows),
        title=title,
        n_rows=n_rows,
        n_cols=len(heads) + 1,
        header_rows=1,
        row_pages=[page] * n_rows,
        cells=cells,
        method="whitespace",
        scale=scale,
        scale_source=None if scale is None else "caption",
        currency=currency,
    )
