"""Generated hostile PDFs through the real engine in killable workers under quotas.

Each case is made at test time (tests/support/hostile_gen.py) and followed by a normal document in the same
pool: every case must end as its typed error record (or a clean result where the engine handles the input
on its own terms), within bounded time and memory, and the worker that follows must still produce facts.
The quotas are set to what the tests can afford (1 GiB of address space instead of the default 4 GiB);
each quota also gets a case that trips it with the real engine.
"""

from __future__ import annotations

import resource
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import adapters.workers.isolation as iso
from adapters.workers.isolation import Job, run_isolated
from pipeline.config import EngineConfig
from schemas.models import DocumentResult
from tests.support import hostile_gen as gen

MiB = 1 << 20
SAMPLE = sorted((Path(__file__).parents[1] / "sample_docs").glob("*.pdf"))[0]
MEMORY = 1024 * MiB
LIMITS: dict[str, object] = {"max_memory_bytes": MEMORY, "timeout_s": 600.0}  # time: a liveness bound
NO_WALL_CLOCK = 86_400.0
"""A limit no test lives to see, where the kernel's quota is what must end a document."""


@pytest.fixture
def worker_peaks(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Peak resident memory (VmHWM, bytes) of the worker while each document ran, as the parent sampled it."""
    peaks: dict[str, int] = {}
    sample = iso._Slot.sample

    def sampled(slot: iso._Slot) -> None:
        sample(slot)
        if slot.job is None:
            return
        try:
            with open(f"/proc/{slot.proc.pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"VmHWM:"):
                        hwm = int(line.split()[1]) * 1024
                        peaks[slot.job.source] = max(peaks.get(slot.job.source, 0), hwm)
        except OSError:
            pass

    monkeypatch.setattr(iso._Slot, "sample", sampled)
    return peaks


def _run(
    tmp_path: Path, cases: list[tuple[str, bytes]], **cfg: object
) -> Iterator[tuple[str, DocumentResult]]:
    """Each case then the sample document, one worker; yields (source, result)."""
    jobs: list[Job] = []
    for name, data in cases:
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(data)
        jobs += [Job(len(jobs), path, name), Job(len(jobs) + 1, SAMPLE, f"after-{name}")]
    for job, result in run_isolated(jobs, EngineConfig(**{**LIMITS, **cfg}), workers=1):  # type: ignore[arg-type]
        yield job.source, result


def _fatal(result: DocumentResult) -> list[str]:
    return [e.category for e in result.errors if e.fatal]


Check = Callable[[DocumentResult], None]


def _clean_with(category: str, page: int | None) -> Check:
    def check(result: DocumentResult) -> None:
        assert not result.failed
        assert (category, page) in {(e.category, e.page) for e in result.errors}

    return check


def _table_read(result: DocumentResult) -> None:
    assert {(f.metric, f.printed_value) for f in result.facts} >= {
        ("revenue", 1234.0),
        ("gross_profit", 450.0),
    }


CASES: dict[str, tuple[Callable[[], bytes], str | None, list[Check]]] = {
    # MuPDF stops parsing at its nesting limit ("exception stack overflow", a bounded C error): the only
    # page's own dictionary is unreadable, so there is nothing to read.
    "deeply_nested": (lambda: gen.deeply_nested(100_000), "corrupt", []),
    # 200,000 real pages: refused by the page limit before any page is read.
    "huge_page_count": (lambda: gen.huge_page_count(200_000), "too_many_pages", []),
    # Ten million pages declared in a 1.6 KB DAG: MuPDF refuses the page tree ("Invalid number of pages").
    "page_tree_bomb": (lambda: gen.page_tree_bomb(7), "corrupt", []),
    # 100,000 x 100,000 RGB: the engine never decodes pixels (text extraction and image listing read the
    # image's dictionary only), so the page is what it is, a page without text.
    "giant_image": (lambda: gen.giant_image(100_000), None, [_clean_with("no_text_layer", 1)]),
    # A font file inflating to 8 GiB: MuPDF must hold it whole; the allocation fails at the address space.
    "decompression_bomb": (lambda: gen.decompression_bomb(8192), "memory_limit", []),
    # Two million 0.1 pt rectangles beside a table: the text is read (one pass of the content stream),
    # the drawings are not walked for rules (that took 2.4 GB and 13 s), and the page says so.
    "drawing_ops": (lambda: gen.drawing_ops(2_000_000), None, [_table_read, _clean_with("unsupported", 1)]),
}


def test_each_generated_case_ends_typed_bounded_and_the_worker_goes_on(
    tmp_path: Path, worker_peaks: dict[str, int]
) -> None:
    cases = [(name, make()) for name, (make, _, _) in CASES.items()]
    parent_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    seen = dict(_run(tmp_path, cases))
    parent_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for name, (_, expected, checks) in CASES.items():
        result = seen[name]
        # Bounded: each case ends as its own category (or clean), never by the pool's wall clock (timeout).
        assert _fatal(result) == ([expected] if expected else []), (name, result.errors)
        for check in checks:
            check(result)
        after = seen[f"after-{name}"]
        assert after.facts and not after.errors, f"the worker after {name} did not go on"
        # The address-space limit holds the worker's memory, whatever the document asks for.
        assert worker_peaks.get(name, 0) <= MEMORY, (name, worker_peaks)
    # The parent only ever holds results, never a document or an unbounded message.
    assert parent_after - parent_before < 64 * MiB


def test_a_content_stream_bomb_is_read_as_text_under_the_default_quotas(tmp_path: Path) -> None:
    # 1 GiB of blanks: the text is read as the stream goes by (~2 s); MuPDF then refuses to hold the whole
    # stream ("compression bomb detected", before 4 GiB would run out), so the drawings are not walked.
    out = list(
        _run(tmp_path, [("blanks", gen.decompression_bomb(1024, where="content"))], max_memory_bytes=None)
    )
    (_, bomb), (_, after) = out
    assert _fatal(bomb) == []  # read to its end, not stopped by the wall clock (that would be a timeout)
    _table_read(bomb)
    assert [e.category for e in bomb.errors] == ["unsupported"] and "bomb" in bomb.errors[0].message
    assert after.facts


def test_cpu_quota_trips_on_a_content_stream_bomb(tmp_path: Path) -> None:
    # 4 GiB of blanks after the text: MuPDF interprets them as a stream (~1.7 CPU seconds a GiB); one CPU
    # second is allowed (the kernel counts whole seconds: the allowance is 1 to 2 s). A day of wall clock:
    # the kernel's SIGXCPU (cpu_limit) is what ends it, however slow the machine.
    bomb_pdf = gen.decompression_bomb(4096, where="content")
    out = list(_run(tmp_path, [("blanks", bomb_pdf)], max_cpu_s=1.0, timeout_s=NO_WALL_CLOCK))
    (_, bomb), (_, after) = out
    assert _fatal(bomb) == ["cpu_limit"], bomb.errors
    assert after.facts


def test_wall_clock_quota_trips_on_a_content_stream_bomb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same page with a day of CPU but one second of wall clock (and half a second of grace) from when
    # the worker begins it: the page needs ~7 CPU seconds, so only the parent's kill can end it (timeout,
    # "worker killed"); a slower machine only makes the page slower, never the kill later than the limit.
    monkeypatch.setattr(iso, "_GRACE_S", 0.5)
    path = tmp_path / "blanks.pdf"
    path.write_bytes(gen.decompression_bomb(4096, where="content"))
    config = EngineConfig(max_memory_bytes=MEMORY, timeout_s=1.0, max_cpu_s=NO_WALL_CLOCK)
    ((_, bomb),) = run_isolated([Job(0, path, "blanks")], config)
    assert _fatal(bomb) == ["timeout"], bomb.errors
    assert "worker killed" in bomb.errors[0].message


def test_output_quota_trips_on_a_normal_document(tmp_path: Path) -> None:
    # A sample document's result is ~200 KB of JSON; 50 KB are allowed. A small result still passes.
    small = gen.giant_image(100)
    jobs = [Job(0, SAMPLE, "sample"), Job(1, tmp_path / "small.pdf", "small")]
    (tmp_path / "small.pdf").write_bytes(small)
    out = {j.source: r for j, r in run_isolated(jobs, EngineConfig(max_output_bytes=50_000))}
    assert _fatal(out["sample"]) == ["output_too_large"]
    assert _fatal(out["small"]) == []


def test_open_file_quota_trips_on_a_normal_document(tmp_path: Path) -> None:
    # Four descriptors cannot even import the engine: each document says why, and nothing hangs.
    jobs = [Job(0, SAMPLE, "a"), Job(1, SAMPLE, "b")]
    out = {j.source: r for j, r in run_isolated(jobs, EngineConfig(max_open_files=4))}
    assert _fatal(out["a"]) == _fatal(out["b"]) == ["file_limit"]
    assert "Too many open files" in out["a"].errors[0].message
    # With the default, the same documents are read.
    assert all(r.facts for _, r in run_isolated(jobs, EngineConfig()))


REAL = {
    "pdfplumber__password-example.pdf": ["encrypted"],
    "pdfjs__bug1020226.pdf": ["corrupt"],
    "pdfjs__xref_command_missing.pdf": [],
    "pdfminer__issue-1113-evil-xobjects.pdf": [],
    "pdfjs__Pages-tree-refs.pdf": [],
    "pdfjs__poppler-90-0-fuzzed.pdf": [],
    "unstructured__pdf-bad-color-space.pdf": [],
    "unstructured__pdf2image-memory-error-test-400p.pdf": [],
}


@pytest.mark.corpus
def test_real_and_generated_hostile_files_in_one_pool(corpus: Path, tmp_path: Path) -> None:
    """The whole hostile suite through two workers with the default quotas, then a normal document.

    The decompression bomb meets the default 4 GiB here (~3.4 GB resident for a few seconds).
    """
    files = sorted((corpus / "hostile").glob("*.pdf"))
    assert {f.name for f in files} == set(REAL), "the corpus's hostile files changed: update REAL"
    jobs = [Job(i, f, f.name) for i, f in enumerate(files)]
    for name, (make, _, _) in CASES.items():
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(make())
        jobs.append(Job(len(jobs), path, name))
    jobs.append(Job(len(jobs), SAMPLE, "sample"))
    out = {j.source: r for j, r in run_isolated(jobs, EngineConfig(), workers=2)}
    expected = {**REAL, **{n: [c] if c else [] for n, (_, c, _) in CASES.items()}}
    # Every document ended on its own terms, none by the pool's wall clock (a timeout is in no expectation):
    # how long the suite takes is bench/'s to measure.
    assert {n: _fatal(out[n]) for n in expected} == expected
    assert out["sample"].facts and not out["sample"].errors
