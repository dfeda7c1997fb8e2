"""The model stage: propose with a long-context model, then verify symbolically.

Routing: short, simple tasks (label normalisation, claims read from the text) go to the ``standard`` tier;
cross-page reasoning goes to the ``deep`` tier (:data:`ROUTES`). A task whose prompt does not fit its tier's
window goes to the deep tier instead (windows are sized for the deep tier, whose server then also holds the
window's cached prefix); every call records the route it took and why (``ModelStage._route``).

**Context that fits.** Sizes are counted in the served model's tokens (a
:class:`~pipeline.model.ports.TokenCounter`, one count per page, cached), falling back to the word-piece
estimate when the server cannot tokenize. A document whose pages, the instructions and the answer fit the
deep tier's window goes **whole**. One that does not is read in **windows** of consecutive pages, as many as
fit beside a bounded **ledger**: the key figures printed in the document (metric, period, value, page) and a
one-line summary of each page read so far, kept under ``ledger_tokens`` by compressing, then dropping, the
oldest summaries first (:func:`fit_ledger`, deterministic).

**Prompt layout for prefix caching.** Every call on a window is ``[shared system message][the window's
pages][the task's own instruction]``: the task-specific text comes last, so all tasks on one window (or on
the whole document) share one cached prefix on the server. The first task of a window runs alone and warms
the cache; its siblings then run concurrently and read the prefix from it.

**Concurrency and the dependent chain.** Only the ledger steps depend on each other: step *i* reads the
summaries of the windows up to *i* − ``ledger_lag`` (1: every earlier window, one strict chain; *n*: *n*
steps at once, with a staler but still deterministic ledger). Windows are as large as the window allows, so
the chain is short (a 300-page 10-K is 3 windows of a 128k model). Each window's other tasks (pairs within
the window, narrative claims) and the label mapping run beside the chain, all under one semaphore of
``concurrency`` calls.

**Deadline.** A document gets ``deadline_s``, well under the verify consumer's processing budget. When it
passes, the calls in flight are cancelled, what finished is verified and merged, and the report is
``partial``; :class:`Progress` (the tasks left and the ledger so far) lets a later pass finish the rest, so
the input message is committed and never redelivered for being slow.

Degradation: with no model configured the stage is ``skipped``; when the server is down (circuit open,
connection refused) the document is ``pending`` and keeps its deterministic results — a later pass
completes it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pipeline.figures.taxonomy import Taxonomy, load_taxonomy
from pipeline.model.grounding import PageIndex, verify_claim, verify_link, verify_mapping
from pipeline.model.ports import ModelPort, ModelUnavailable, Tier, TokenCounter
from pipeline.model.proposals import (
    CrossPageLinks,
    FigureLink,
    LabelMapping,
    LabelMappings,
    LedgerUpdate,
    ProposedClaim,
    ProposedClaims,
)
from pipeline.parse.chunks import count_tokens
from schemas.models import DocumentResult, Fact, Flag, ModelCall, ModelReport, ProposalOutcome, Table

__all__ = [
    "CHAT_OVERHEAD_TOKENS",
    "DOCUMENT_REF",
    "MARKER_TOKENS",
    "ROUTES",
    "SHARED_SYSTEM",
    "Mode",
    "ModelStage",
    "ModelStageConfig",
    "Progress",
    "Prompt",
    "RunStats",
    "Unit",
    "compress_summary",
    "fit_ledger",
    "key_figures",
    "layout",
    "load_prompt",
    "render_pages",
    "route",
    "unknown_labels",
    "with_markers",
]

Mode = Literal["whole", "ledger"]

SHARED_SYSTEM = (
    "You check financial documents for consistency. The document's pages come first, each marked "
    '"=== Page N ==="; your task follows them. Use only what is printed on those pages. '
    "Answer with JSON only."
)
"""The one system message of every call: the cached prefix starts here, so it names no task."""

DOCUMENT_REF = "(the pages above)"
"""What a prompt's ``{document}`` field says once the pages have moved before the instruction."""

MARKER_TOKENS = 10
"""Upper bound of a page marker's tokens (``=== Page 123 ===`` and the blank line before it)."""

CHAT_OVERHEAD_TOKENS = 32
"""The chat template's tokens around three messages (role headers, separators), rounded up."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """A versioned prompt: ``<task>.v<N>.md`` with ``---system---`` and ``---user---`` sections."""

    task: str
    version: str
    system: str
    user: str

    def instruction(self, **fields: str) -> str:
        """The task's own message: both sections of the file, placed after the document."""
        user = self.user.format(**{"document": DOCUMENT_REF, **fields})
        return f"{self.system}\n\n{user}"

    def messages(self, document: str, **fields: str) -> list[dict[str, str]]:
        """Shared system message, then the document (the cached prefix), then the task's instruction."""
        return layout(document, self.instruction(**fields))


def layout(document: str, instruction: str) -> list[dict[str, str]]:
    """The chat messages of one call: the prefix every task on ``document`` shares, its instruction last."""
    return [
        {"role": "system", "content": SHARED_SYSTEM},
        {"role": "user", "content": document},
        {"role": "user", "content": instruction},
    ]


@cache
def load_prompt(task: str) -> Prompt:
    """The newest version of a task's prompt shipped in ``pipeline/model/prompts``."""
    folder = resources.files("pipeline.model") / "prompts"
    versions = sorted(
        (int(p.name.removeprefix(f"{task}.v").removesuffix(".md")), p)
        for p in folder.iterdir()
        if p.name.startswith(f"{task}.v") and p.name.endswith(".md")
    )
    if not versions:
        raise FileNotFoundError(f"no prompt for task {task!r}")
    n, path = versions[-1]
    text = path.read_text(encoding="utf-8")
    _, _, rest = text.partition("---system---")
    system, _, user = rest.partition("---user---")
    return Prompt(task, f"v{n}", system.strip(), user.strip())


@dataclass(frozen=True, slots=True)
class ModelStageConfig:
    """Budgets of the model stage (the services take them from :class:`adapters.settings.Settings`)."""

    context_tokens: int = 131_072
    """The deep tier's window: prompt and answer of one call together (a 128k-context model)."""
    standard_context_tokens: int | None = None
    """The standard tier's window (None: as large as the deep tier's); a standard task that does not fit
    it goes to the deep tier."""
    max_output_tokens: int = 800
    """Answer budget of each call."""
    ledger_tokens: int = 2_000
    """The ledger's budget: key figures and page summaries carried between windows."""
    window_pages: int | None = None
    """At most this many pages per window (None: as many as fit)."""
    concurrency: int = 4
    """Calls in flight at once for one document."""
    ledger_lag: int = 1
    """Ledger step *i* reads the summaries of windows up to *i* − ``ledger_lag``: 1 is one strict chain;
    *n* lets *n* steps run at once, each with a ledger *n* − 1 windows staler."""
    deadline_s: float | None = 240.0
    """Wall-clock budget of one document's model stage (None: no deadline)."""
    max_labels: int = 10


ROUTES: dict[str, Tier] = {
    "label_mapping": "standard",
    "narrative_claims": "standard",
    "cross_page_links": "deep",
    "ledger_step": "deep",
}


def route(task: str) -> Tier:
    """The tier a task goes to."""
    return ROUTES[task]


def _table_lines(t: Table, page: int) -> list[str]:
    rows: dict[int, list[tuple[int, str]]] = {}
    for c in t.cells:
        if c.page == page or (c.is_header and page == t.page):
            rows.setdefault(c.row, []).append((c.col, c.text))
    return [" | ".join(text for _, text in sorted(cells)) for _, cells in sorted(rows.items())]


def render_pages(doc: DocumentResult) -> dict[int, str]:
    """Each page as text for the model: narrative blocks, then tables as ``label | value | …`` rows."""
    pages: dict[int, list[str]] = {}
    for b in doc.blocks:
        pages.setdefault(b.page, []).append(b.text)
    for t in doc.tables:
        for p in t.pages:
            pages.setdefault(p, []).extend(_table_lines(t, p))
    return {p: "\n".join(lines) for p, lines in sorted(pages.items())}


def with_markers(pages: dict[int, str], only: Sequence[int] | None = None) -> str:
    """Pages joined with ``=== Page N ===`` markers."""
    keys = only if only is not None else sorted(pages)
    return "\n\n".join(f"=== Page {p} ===\n{pages[p]}" for p in keys if p in pages)


def key_figures(facts: Sequence[Fact]) -> list[str]:
    """The ledger's figure lines: the first printing of each (metric, period) in a table, in page order."""
    seen: set[tuple[str, str]] = set()
    lines: list[str] = []
    for f in sorted(facts, key=lambda f: f.page):
        if f.period is None or f.origin != "table_cell" or f.context is not None:
            continue
        if (f.metric, f.period.key) in seen:
            continue
        seen.add((f.metric, f.period.key))
        lines.append(f"{f.metric} {f.period.key} {f.printed} (page {f.page})")
    return lines


def compress_summary(summary: str, words: int = 8) -> str:
    """An old page summary cut to its first words (the ledger's first resort before dropping it)."""
    parts = summary.split()
    return summary if len(parts) <= words else " ".join(parts[:words]) + " …"


def fit_ledger(
    figures: Sequence[str], summaries: dict[int, str], budget: int, count: Callable[[str], int]
) -> str:
    """The ledger under ``budget`` tokens, decided the same way every time.

    Key figures take at most half the budget (the earliest printings first). Page summaries take the rest:
    first as many pages as fit with their summaries compressed to a few words, newest first (the oldest are
    dropped, noted in one line); then, newest first, compressed summaries are given back whole while the
    budget lasts. Each line costs its tokens plus one for the newline.

    Args:
        figures: Figure lines, most important first (:func:`key_figures`).
        summaries: One-line summary by page.
        budget: Tokens the ledger may take.
        count: Tokens of a text.
    """
    used = 0
    fig_lines: list[str] = []
    for line in figures:
        cost = count(line) + 1
        if used + cost > budget // 2:
            break
        fig_lines.append(line)
        used += cost
    dropped_note = "earlier pages: summaries dropped to keep the ledger within its budget"
    left = budget - used - (count(dropped_note) + 1)  # room kept for the note, should it be needed
    whole = {p: f"page {p}: {s}" for p, s in summaries.items()}
    short = {p: f"page {p}: {compress_summary(s)}" for p, s in summaries.items()}
    kept: dict[int, str] = {}
    for page in sorted(summaries, reverse=True):
        cost = count(short[page]) + 1
        if cost > left:
            break
        kept[page] = short[page]
        left -= cost
    for page in kept:  # newest first
        extra = count(whole[page]) - count(short[page])
        if extra > left:
            break
        kept[page] = whole[page]
        left -= extra
    note = [dropped_note] if len(kept) < len(summaries) else []
    lines = fig_lines + note + [kept[p] for p in sorted(kept)]
    return "\n".join(lines) or "(empty)"


def unknown_labels(doc: DocumentResult, taxonomy: Taxonomy, limit: int) -> list[str]:
    """Row labels with figures that the taxonomy does not map, most frequent first."""
    seen: dict[str, int] = {}
    for t in doc.tables:
        numeric_rows = {c.row for c in t.cells if c.number is not None}
        for c in t.cells:
            if c.col == 0 and not c.is_header and c.row in numeric_rows and taxonomy.match(c.text) is None:
                seen[c.text] = seen.get(c.text, 0) + 1
    return [lbl for lbl, _ in sorted(seen.items(), key=lambda kv: -kv[1])][:limit]


class Unit(BaseModel):
    """One call to make: a task on a window of pages (the window is the call's cached prefix)."""

    model_config = ConfigDict(frozen=True)

    task: str
    pages: tuple[int, ...]

    @property
    def key(self) -> str:
        """``task:first-last`` (how the report names what is left)."""
        return f"{self.task}:{self.pages[0]}-{self.pages[-1]}" if self.pages else self.task


class Progress(BaseModel):
    """Where a ``partial`` document stopped: the calls left and the ledger so far (JSON, for the resume)."""

    mode: Mode
    left: list[Unit]
    summaries: dict[int, str] = {}
    windows: list[tuple[int, ...]] = []


@dataclass
class RunStats:
    """What one run of the stage did, beside the report: for the bench and the resume."""

    mode: Mode | None = None
    token_source: str = "estimate"
    document_tokens: int = 0
    windows: int = 0
    peak_concurrency: int = 0
    wall_s: float = 0.0
    left: list[str] = field(default_factory=list)
    progress: Progress | None = None


@dataclass
class _Run:
    """One document's run: what was asked, answered and learnt (never shared between documents)."""

    doc: DocumentResult
    pages: dict[int, str]
    mode: Mode
    windows: list[tuple[int, ...]]
    todo: list[Unit]
    gate: asyncio.Semaphore
    summaries: dict[int, str]
    next_call: int
    labels: list[str]
    figures: list[str]
    instructions: dict[str, str] = field(default_factory=dict)
    """Each task's instruction with its fields filled, as measured at planning."""
    tokens: dict[str, int] = field(default_factory=dict)
    calls: list[ModelCall] = field(default_factory=list)
    results: dict[Unit, tuple[str, BaseModel | None]] = field(default_factory=dict)
    in_flight: int = 0
    peak: int = 0

    def count(self, text: str) -> int:
        """Tokens of a measured text (the estimate for one never measured)."""
        return self.tokens.get(text) or count_tokens(text)


class ModelStage:
    """Runs the tasks for one document and verifies everything they propose."""

    def __init__(
        self,
        client: ModelPort | None,
        config: ModelStageConfig | None = None,
        taxonomy: Taxonomy | None = None,
        tokenizer: TokenCounter | None = None,
    ) -> None:
        """Use ``client`` (None: skipped); count tokens with ``tokenizer`` (None: the estimate)."""
        self.client = client
        self.config = config or ModelStageConfig()
        self.taxonomy = taxonomy or load_taxonomy()
        self.tokenizer = tokenizer

    async def run(self, doc: DocumentResult) -> DocumentResult:
        """The document with the model's verified findings merged in and a :class:`ModelReport`."""
        result, _ = await self.run_with_stats(doc)
        return result

    async def run_with_stats(
        self,
        doc: DocumentResult,
        progress: Progress | None = None,
        deadline_s: float | None = -1.0,
    ) -> tuple[DocumentResult, RunStats]:
        """:meth:`run`, with what the run did; ``progress`` resumes a ``partial`` document.

        Args:
            doc: The verified document (for a resume: as the partial run left it, report included).
            progress: The tasks left by the partial run (None: a fresh run of every task).
            deadline_s: Overrides the configured deadline (None: none; the default keeps the configured).
        """
        stats = RunStats()
        if doc.failed:
            return doc, stats
        if self.client is None:
            return doc.model_copy(
                update={"model": ModelReport(status="skipped", reason="no model configured")}
            ), stats
        t0 = time.monotonic()
        deadline = self.config.deadline_s if deadline_s == -1.0 else deadline_s
        before = doc.model if progress is not None else None
        run: _Run | None = None
        expired = False
        try:
            async with asyncio.timeout(deadline) as limit:
                run = await self._plan(doc, progress, len(before.calls) if before else 0)
                stats.mode, stats.windows = run.mode, len(run.windows)
                stats.token_source = self.tokenizer.source if self.tokenizer else "estimate"
                stats.document_tokens = sum(run.count(run.pages[p]) for p in run.pages)
                await self._execute(run)
        except ModelUnavailable as exc:
            report = ModelReport(status="pending", reason=str(exc), calls=run.calls if run else [])
            stats.wall_s = round(time.monotonic() - t0, 2)
            return doc.model_copy(update={"model": report}), stats
        except TimeoutError:
            if not limit.expired():
                raise
            expired = True
        if run is None:  # the deadline passed while the pages were counted: nothing asked yet
            return doc.model_copy(
                update={"model": ModelReport(status="pending", reason="deadline passed before any call")}
            ), stats
        stats.peak_concurrency = run.peak
        stats.wall_s = round(time.monotonic() - t0, 2)
        left = [u for u in run.todo if u not in run.results]
        stats.left = [u.key for u in left]
        merged = self._merge(doc, run, before)
        assert merged.model is not None
        if expired and left:
            stats.progress = Progress(mode=run.mode, left=left, summaries=run.summaries, windows=run.windows)
            keys = ", ".join(stats.left[:8]) + (", …" if len(left) > 8 else "")
            reason = (
                f"deadline of {deadline:.0f} s passed: {len(left)} of {len(run.todo)} tasks left ({keys})"
            )
            merged = merged.model_copy(
                update={"model": merged.model.model_copy(update={"status": "partial", "reason": reason})}
            )
        return merged, stats

    # -------------------------------------------------------------------------------------- planning
    async def _measure(self, run: _Run, texts: Sequence[str]) -> None:
        """Count ``texts`` with the tokenizer (once each) into ``run.tokens``."""
        new = sorted({t for t in texts if t not in run.tokens})
        if not new:
            return
        counts = await self.tokenizer.count(new) if self.tokenizer else [count_tokens(t) for t in new]
        run.tokens.update(zip(new, counts, strict=True))

    def _instructions(self, run: _Run) -> dict[str, str]:
        """Each task's instruction with its fields filled (the ledger empty: it has its own budget)."""
        metrics = ", ".join(self.taxonomy.ids())
        return {
            "cross_page_links": load_prompt("cross_page_links").instruction(max_items="6"),
            "ledger_step": load_prompt("ledger_step").instruction(ledger=""),
            "narrative_claims": load_prompt("narrative_claims").instruction(metrics=metrics),
            "label_mapping": load_prompt("label_mapping").instruction(
                metrics=metrics, labels="\n".join(run.labels)
            ),
        }

    async def _plan(self, doc: DocumentResult, progress: Progress | None, calls_so_far: int) -> _Run:
        cfg = self.config
        pages = render_pages(doc)
        run = _Run(
            doc=doc, pages=pages, mode="whole", windows=[], todo=[], gate=asyncio.Semaphore(cfg.concurrency),
            summaries=dict(progress.summaries) if progress else {}, next_call=calls_so_far,
            labels=unknown_labels(doc, self.taxonomy, cfg.max_labels), figures=key_figures(doc.facts),
        )  # fmt: skip
        run.instructions = instructions = self._instructions(run)
        await self._measure(run, [*pages.values(), SHARED_SYSTEM, *instructions.values(), *run.figures])
        if progress is not None:
            run.mode, run.todo = progress.mode, list(progress.left)
            run.windows = list(progress.windows) or sorted({u.pages for u in run.todo})
            return run
        if len(pages) < 1:
            return run
        # The server's own limit wins over the configured window (a tokenizer that asked it knows it).
        served = getattr(self.tokenizer, "max_model_len", None)
        window = (
            min(cfg.context_tokens, served) if isinstance(served, int) and served > 0 else cfg.context_tokens
        )
        fixed = (
            run.count(SHARED_SYSTEM)
            + max(run.count(i) for i in instructions.values())
            + CHAT_OVERHEAD_TOKENS
            + cfg.max_output_tokens
        )
        whole = sum(run.count(t) + MARKER_TOKENS for t in pages.values()) + fixed
        if whole <= window and (cfg.window_pages is None or len(pages) <= cfg.window_pages):
            run.windows = [tuple(sorted(pages))]
        else:
            run.mode = "ledger"
            run.windows = self._windows(run, window - fixed - cfg.ledger_tokens)
        run.todo = self._units(run)
        return run

    def _windows(self, run: _Run, budget: int) -> list[tuple[int, ...]]:
        """Consecutive pages packed greedily under ``budget`` tokens (and ``window_pages``).

        A page larger than a window on its own is cut to fit (its end is lost, and the model told nothing
        of it: a table's rows go before the page's end only when the table is at the end of the page).
        """
        budget = max(budget, 64)
        windows: list[tuple[int, ...]] = []
        current: list[int] = []
        used = 0
        for p, text in run.pages.items():
            cost = run.count(text) + MARKER_TOKENS
            if cost > budget:
                keep = int(len(text) * (budget - MARKER_TOKENS) / cost)
                run.pages[p] = text[:keep]
                run.tokens[run.pages[p]] = budget - MARKER_TOKENS
                cost = budget
            full = len(current) == (self.config.window_pages or len(run.pages) + 1)
            if current and (used + cost > budget or full):
                windows.append(tuple(current))
                current, used = [], 0
            current.append(p)
            used += cost
        if current:
            windows.append(tuple(current))
        return windows

    def _units(self, run: _Run) -> list[Unit]:
        """The calls of a fresh run, in the order their proposals are verified."""
        narrative = {b.page for b in run.doc.blocks if any(ch.isdigit() for ch in b.text)}
        units: list[Unit] = []
        for w in run.windows:
            if run.mode == "ledger":
                units.append(Unit(task="ledger_step", pages=w))
            if len(w) >= 2:
                units.append(Unit(task="cross_page_links", pages=w))
        if run.labels and run.windows:
            units.append(Unit(task="label_mapping", pages=run.windows[0]))
        units += [Unit(task="narrative_claims", pages=w) for w in run.windows if narrative & set(w)]
        return units

    # ------------------------------------------------------------------------------------- execution
    async def _execute(self, run: _Run) -> None:
        """Every window at once, each its lead call first, then its siblings; leads wait only on the ledger.

        In ledger mode the lead is the ledger step; in whole mode the cross-page task. Either way the lead
        computes the window's prefix, which the siblings then reuse from the server's cache. Ledger step
        *i* waits for the steps of windows up to *i* − ``ledger_lag`` (whose summaries it reads), so the
        dependent chain is ``windows / ledger_lag`` calls long; the semaphore bounds the calls in flight.
        """
        lag = max(1, self.config.ledger_lag)
        todo = set(run.todo)
        led = {w: asyncio.Event() for w in run.windows}

        async def window(i: int, w: tuple[int, ...]) -> None:
            mine = [u for u in run.todo if u.pages == w and u in todo and u not in run.results]
            lead = next((u for u in mine if u.task in ("ledger_step", "cross_page_links")), None)
            if lead is not None and lead.task == "ledger_step":
                for earlier in run.windows[: max(0, i - lag + 1)]:
                    await led[earlier].wait()
            if lead is not None:
                await self._call(run, lead)
            led[w].set()
            await asyncio.gather(*(self._call(run, u) for u in mine if u is not lead))

        tasks = [asyncio.create_task(window(i, w)) for i, w in enumerate(run.windows)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _messages(self, run: _Run, unit: Unit) -> tuple[list[dict[str, str]], type[BaseModel]]:
        prompt = load_prompt(unit.task)
        document = with_markers(run.pages, unit.pages)
        metrics = ", ".join(self.taxonomy.ids())
        if unit.task == "ledger_step":
            # The windows this step waited for (ledger_lag back and earlier): the same ledger however
            # the calls happened to finish.
            last = run.windows.index(unit.pages) - max(1, self.config.ledger_lag)
            upto = run.windows[last][-1] if last >= 0 else 0
            ledger = fit_ledger(
                run.figures,
                {p: s for p, s in run.summaries.items() if p <= upto},
                self.config.ledger_tokens,
                run.count,
            )
            return prompt.messages(document, ledger=ledger), LedgerUpdate
        if unit.task == "cross_page_links":
            return prompt.messages(document, max_items="6"), CrossPageLinks
        if unit.task == "label_mapping":
            return prompt.messages(document, metrics=metrics, labels="\n".join(run.labels)), LabelMappings
        return prompt.messages(document, metrics=metrics), ProposedClaims

    def _route(self, run: _Run, unit: Unit) -> tuple[Tier, str]:
        """The tier ``unit`` goes to and why: its task's route, or the deep tier when it does not fit.

        The prompt is measured as planned (pages, shared system message, the task's instruction, the chat
        template and the answer budget); the ledger step's own ledger is within its budget and it goes to
        the deep tier anyway.
        """
        tier = route(unit.task)
        why = f"task {unit.task} → {tier}"
        window = self.config.standard_context_tokens
        if tier == "standard" and window is not None and window < self.config.context_tokens:
            need = (
                sum(run.count(run.pages[p]) + MARKER_TOKENS for p in unit.pages)
                + run.count(SHARED_SYSTEM)
                + run.count(run.instructions[unit.task])
                + CHAT_OVERHEAD_TOKENS
                + self.config.max_output_tokens
            )
            if need > window:
                tier = "deep"
                why = f"task {unit.task} → deep: {need:,} tokens exceed the standard tier's {window:,}"
        return tier, why

    async def _call(self, run: _Run, unit: Unit) -> None:
        assert self.client is not None
        messages, schema = self._messages(run, unit)
        tier, routed = self._route(run, unit)
        async with run.gate:
            run.next_call += 1
            call_id = f"c{run.next_call}"
            run.in_flight += 1
            run.peak = max(run.peak, run.in_flight)
            try:
                answer = await self.client.structured(
                    tier=tier,
                    task=unit.task,
                    prompt_version=load_prompt(unit.task).version,
                    messages=messages,
                    schema=schema,
                    max_tokens=self.config.max_output_tokens,
                    mode=run.mode,
                )
            finally:
                run.in_flight -= 1
        # The client's tier fallback says which tier answered and why; otherwise the task's own route.
        answered: str = answer.tier or answer.call.tier
        why = answer.route or (routed if answered == tier else f"task {unit.task} → {answered}")
        call = answer.call.model_copy(
            update={"call_id": call_id, "route": why, "messages": messages, "answer": answer.raw}
        )
        run.calls.append(call)
        run.results[unit] = (call_id, answer.parsed)
        if isinstance(answer.parsed, LedgerUpdate):
            summaries = [s for s in answer.parsed.pages if s.page in unit.pages]
            run.summaries.update({s.page: s.summary for s in summaries})
            texts = [f"page {s.page}: {s.summary}" for s in summaries]
            texts += [f"page {s.page}: {compress_summary(s.summary)}" for s in summaries]
            await self._measure(run, texts)

    # ---------------------------------------------------------------------------------- verification
    def _merge(self, doc: DocumentResult, run: _Run, before: ModelReport | None) -> DocumentResult:
        """Verify what the finished calls proposed (in plan order, so the result is deterministic)."""
        index = PageIndex.of(doc, self.taxonomy)
        known = list(doc.flags)
        flags: list[Flag] = []
        facts: list[Fact] = []
        outcomes: list[ProposalOutcome] = []
        links: list[tuple[str, FigureLink]] = []
        mappings: list[tuple[str, LabelMapping]] = []
        claims: list[tuple[str, ProposedClaim]] = []
        for unit in run.todo:
            if unit not in run.results:
                continue
            call_id, parsed = run.results[unit]
            if isinstance(parsed, CrossPageLinks | LedgerUpdate):
                links += [(call_id, x) for x in parsed.links]
            elif isinstance(parsed, LabelMappings):
                mappings += [(call_id, x) for x in parsed.mappings]
            elif isinstance(parsed, ProposedClaims):
                claims += [(call_id, x) for x in parsed.claims]
        for call_id, link in links:
            outcome, flag = verify_link(link, index, self.taxonomy, known + flags)
            outcomes.append(outcome.model_copy(update={"call_id": call_id}))
            if flag is not None:
                flags.append(flag)
        for call_id, m in mappings:
            outcome, new = verify_mapping(m, index, self.taxonomy)
            outcomes.append(outcome.model_copy(update={"call_id": call_id}))
            facts.extend(new)
        for call_id, c in claims:
            outcome, flag = verify_claim(c, index, self.taxonomy, known + flags)
            outcomes.append(outcome.model_copy(update={"call_id": call_id}))
            if flag is not None:
                flags.append(flag)
        report = ModelReport(
            status="done",
            reason=f"{run.mode}: {len(run.windows)} window(s), tokens counted by the "
            f"{self.tokenizer.source if self.tokenizer else 'estimate'}",
            calls=(before.calls if before else []) + run.calls,
            outcomes=(before.outcomes if before else []) + outcomes,
        )
        stats = doc.stats.model_copy(
            update={"flags": len(doc.flags) + len(flags), "facts": len(doc.facts) + len(facts)}
        )
        return doc.model_copy(
            update={"flags": doc.flags + flags, "facts": doc.facts + facts, "model": report, "stats": stats}
        )
