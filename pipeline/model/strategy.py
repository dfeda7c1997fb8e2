"""The model stage: propose with a long-context model, then verify symbolically.

Routing: short, simple tasks (label normalisation, claims read from a few pages) go to the ``standard``
tier; cross-page reasoning over long contexts goes to the ``deep`` tier. Both may point to one server.

Context: a document that fits the deep model's budget goes whole, with ``=== Page N ===`` markers. One
that does not is worked through in windows of pages with a compact **ledger** carried from step to step:
the key figures already known (metric, period, value as printed, page) and a one-line summary of every page
read so far, so later windows can link back to page 3 from page 87 without the whole text.

Degradation: with no model configured the stage is ``skipped``; when the server is down (circuit open,
connection refused) the document is ``pending`` and keeps its deterministic results — a later pass
completes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import BaseModel

from pipeline.chunks import count_tokens
from pipeline.model.ports import ModelPort, ModelUnavailable, Tier
from pipeline.model.proposals import (
    CrossPageLinks,
    FigureLink,
    LabelMappings,
    LedgerUpdate,
    ProposedClaim,
    ProposedClaims,
)
from pipeline.model.verify import PageIndex, verify_claim, verify_link, verify_mapping
from pipeline.taxonomy import Taxonomy, load_taxonomy
from schemas.models import DocumentResult, Fact, Flag, ModelCall, ModelReport, ProposalOutcome, Table


@dataclass(frozen=True, slots=True)
class Prompt:
    """A versioned prompt: ``<task>.v<N>.md`` with ``---system---`` and ``---user---`` sections."""

    task: str
    version: str
    system: str
    user: str

    def messages(self, **fields: str) -> list[dict[str, str]]:
        """Chat messages with the user template filled in."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.format(**fields)},
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
    """Budgets of the model stage."""

    context_tokens: int = 6000
    window_pages: int = 4
    max_output_tokens: int = 800
    max_labels: int = 10
    claim_pages_per_call: int = 3


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


def ledger_lines(facts: Sequence[Fact], summaries: dict[int, str], limit: int = 120) -> str:
    """The compact ledger: one line per key figure, then one per page summary."""
    lines = [
        f"{f.metric} {f.period.key} {f.printed} (page {f.page})"
        for f in facts
        if f.period is not None and f.origin == "table_cell" and f.context is None
    ][:limit]
    lines += [f"page {p}: {s}" for p, s in sorted(summaries.items())]
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


class ModelStage:
    """Runs the tasks for one document and verifies everything they propose."""

    def __init__(
        self,
        client: ModelPort | None,
        config: ModelStageConfig | None = None,
        taxonomy: Taxonomy | None = None,
    ) -> None:
        """Use ``client`` (None: the stage is skipped)."""
        self.client = client
        self.config = config or ModelStageConfig()
        self.taxonomy = taxonomy or load_taxonomy()
        self.calls: list[ModelCall] = []

    async def _ask(
        self, task: str, messages: list[dict[str, str]], schema: type[BaseModel], mode: str
    ) -> BaseModel | None:
        assert self.client is not None
        answer = await self.client.structured(
            tier=route(task),
            task=task,
            prompt_version=load_prompt(task).version,
            messages=messages,
            schema=schema,
            max_tokens=self.config.max_output_tokens,
            mode="ledger" if mode == "ledger" else "whole",
        )
        self.calls.append(answer.call)
        return answer.parsed

    async def run(self, doc: DocumentResult) -> DocumentResult:
        """The document with the model's verified findings merged in and a :class:`ModelReport`."""
        if doc.failed:
            return doc
        if self.client is None:
            return doc.model_copy(
                update={"model": ModelReport(status="skipped", reason="no model configured")}
            )
        self.calls = []
        links: list[FigureLink] = []
        outcomes: list[ProposalOutcome] = []
        flags: list[Flag] = []
        facts: list[Fact] = []
        index = PageIndex(doc, self.taxonomy)
        pages = render_pages(doc)
        try:
            links = await self._links(doc, pages)
            mappings = await self._mappings(doc)
            claims = await self._claims(doc)
        except ModelUnavailable as exc:
            report = ModelReport(status="pending", reason=str(exc), calls=self.calls)
            return doc.model_copy(update={"model": report})
        known = list(doc.flags)
        for link in links:
            outcome, flag = verify_link(link, index, self.taxonomy, known + flags)
            outcomes.append(outcome)
            if flag is not None:
                flags.append(flag)
        for m in mappings.mappings if mappings else []:
            outcome, new = verify_mapping(m, index, self.taxonomy)
            outcomes.append(outcome)
            facts.extend(new)
        for c in claims:
            outcome, flag = verify_claim(c, index, self.taxonomy, known + flags)
            outcomes.append(outcome)
            if flag is not None:
                flags.append(flag)
        report = ModelReport(status="done", calls=self.calls, outcomes=outcomes)
        stats = doc.stats.model_copy(
            update={"flags": len(doc.flags) + len(flags), "facts": len(doc.facts) + len(facts)}
        )
        return doc.model_copy(
            update={"flags": doc.flags + flags, "facts": doc.facts + facts, "model": report, "stats": stats}
        )

    async def _links(self, doc: DocumentResult, pages: dict[int, str]) -> list[FigureLink]:
        if len(pages) < 2:
            return []
        whole = with_markers(pages)
        if count_tokens(whole) <= self.config.context_tokens:
            prompt = load_prompt("cross_page_links")
            answer = await self._ask(
                "cross_page_links", prompt.messages(document=whole, max_items="6"), CrossPageLinks, "whole"
            )
            return list(answer.links) if isinstance(answer, CrossPageLinks) else []
        # Ledger mode: windows of pages, the ledger carried from step to step.
        prompt = load_prompt("ledger_step")
        summaries: dict[int, str] = {}
        found: list[FigureLink] = []
        numbers = sorted(pages)
        step = self.config.window_pages
        for i in range(0, len(numbers), step):
            window = numbers[i : i + step]
            answer = await self._ask(
                "ledger_step",
                prompt.messages(
                    ledger=ledger_lines(doc.facts, summaries), document=with_markers(pages, window)
                ),
                LedgerUpdate,
                "ledger",
            )
            if isinstance(answer, LedgerUpdate):
                found.extend(answer.links)
                for s in answer.pages:
                    if s.page in window:
                        summaries[s.page] = s.summary
        return found

    async def _mappings(self, doc: DocumentResult) -> LabelMappings | None:
        labels = unknown_labels(doc, self.taxonomy, self.config.max_labels)
        if not labels:
            return None
        prompt = load_prompt("label_mapping")
        metrics = ", ".join(self.taxonomy.ids())
        answer = await self._ask(
            "label_mapping",
            prompt.messages(metrics=metrics, labels="\n".join(labels)),
            LabelMappings,
            "whole",
        )
        return answer if isinstance(answer, LabelMappings) else None

    async def _claims(self, doc: DocumentResult) -> list[ProposedClaim]:
        by_page: dict[int, list[str]] = {}
        for b in doc.blocks:
            if any(ch.isdigit() for ch in b.text):
                by_page.setdefault(b.page, []).append(b.text)
        if not by_page:
            return []
        prompt = load_prompt("narrative_claims")
        metrics = ", ".join(self.taxonomy.ids())
        texts = {p: "\n".join(t) for p, t in by_page.items()}
        numbers = sorted(texts)
        step = self.config.claim_pages_per_call
        found: list[ProposedClaim] = []
        for i in range(0, len(numbers), step):
            answer = await self._ask(
                "narrative_claims",
                prompt.messages(metrics=metrics, document=with_markers(texts, numbers[i : i + step])),
                ProposedClaims,
                "whole",
            )
            if isinstance(answer, ProposedClaims):
                found.extend(answer.claims)
        return found
