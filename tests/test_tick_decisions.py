"""The analysts' decisions in the tick-and-tie PDF: cleared and confirmed breaks, who decided and when.

The builder takes each flag's standing decision (never the store); the console's download draws the
decisions standing when it is asked, so a download after a decision shows it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pymupdf
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from adapters.review.annotated import AnnotatedCopies
from adapters.review.decision_rules import DecisionRequest
from adapters.review.documents import LocalDocuments
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import FlagQuery
from adapters.review.tick_decisions import decisions_digest, dump_decisions, load_decisions
from adapters.review.tick_style import CLEARED, SEVERITY_COLORS, SUBJECT_BREAK, SUBJECT_NOTE
from adapters.review.tickmarks import AnnotatedPdf, annotate_pdf
from console.app import ConsoleConfig, create_app
from pipeline.rewards.regressions import standing
from schemas.models import Flag
from schemas.reviews import ReviewAction, ReviewDecision
from tests.support.review import SAMPLES, decision, login, make_config, make_run
from tests.test_annotate import _marked, _ours
from tieout.cli import app as cli

AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def decide(flag: Flag, action: ReviewAction, who: str, minute: int = 0, **extra: str) -> ReviewDecision:
    return decision(flag, action, who, AT.replace(minute=minute), **extra)


def _summary(pdf: bytes) -> str:
    """The summary pages' text (the pages labelled S-1, S-2…), one space between words."""
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        text = " ".join(page.get_text() for page in doc if page.get_label().startswith("S-"))
    return " ".join(text.split())


def _drawn(out: AnnotatedPdf, number: int) -> tuple[list[tuple[str, tuple[float, ...], float]], list[str]]:
    """Break ``#number``'s boxes (content, stroke colour, border width) and its labels' text."""
    boxes, labels = [], []
    with pymupdf.open(stream=out.pdf, filetype="pdf") as doc:
        for page in doc:
            for a in _ours(page, SUBJECT_BREAK):
                if a.info["content"].startswith(f"#{number} "):
                    boxes.append((a.info["content"], tuple(a.colors["stroke"]), a.border["width"]))
            texts = [" ".join(a.info["content"].split()) for a in _ours(page, SUBJECT_NOTE)]
            labels += [t for t in texts if t.startswith(f"#{number} ")]
    return boxes, labels


def test_dismissed_breaks_are_cleared_and_confirmed_ones_confirmed() -> None:
    m = _marked("halvorsen")
    xref, bal = m.result.flags  # #1 XREF001 (pages 2, 7), #2 BAL001 (pages 5, 6)
    trail = [
        decide(xref, "confirm", "carol", 0),
        decide(xref, "dismiss", "bob", 10, reason="different_basis", note="pro forma column"),
        decide(bal, "confirm", "alice", 20),
    ]
    out = annotate_pdf(m.data, m.result, standing(trail))
    assert (out.counts.cleared, out.counts.confirmed) == (1, 1)
    boxes, labels = _drawn(out, 1)
    assert boxes and all(color == pytest.approx(CLEARED, abs=0.01) for _, color, _ in boxes)
    assert all("Dismissed (cleared) by bob, 2026-12-01 09:10 UTC: Different basis" in c for c, _, _ in boxes)
    assert len(labels) == 2 and all(t.startswith("#1 XREF001 cleared, Different basis:") for t in labels)
    boxes, labels = _drawn(out, 2)
    assert boxes and all(
        color == pytest.approx(SEVERITY_COLORS[bal.severity], abs=0.01) for _, color, _ in boxes
    )
    main = next(w for c, _, w in boxes if "confirmed" in c.lower())
    assert main > _drawn(m.out, 2)[0][0][2]  # heavier than the open break's box
    assert len(labels) == 2 and all(t.startswith("#2 BAL001 confirmed:") for t in labels)
    summary = _summary(out.pdf)
    assert "Reviewed: 1 confirmed, 1 dismissed (cleared), 0 open." in summary
    assert "Dismissed (cleared) by bob, 2026-12-01 09:10 UTC: Different basis - pro forma column" in summary
    assert "Confirmed by alice, 2026-12-01 09:20 UTC" in summary
    assert "carol" not in summary  # a decision since overruled is not the standing one


def test_open_flags_and_other_documents_decisions_draw_nothing_new() -> None:
    m = _marked("halvorsen")
    xref = m.result.flags[0]
    reopened = standing(
        [decide(xref, "dismiss", "bob", 1, reason="wrong_scale"), decide(xref, "reopen", "bob", 2)]
    )
    assert reopened == {}
    elsewhere = decide(_marked("northwind").result.flags[0], "dismiss", "bob", 3, reason="wrong_scale")
    out = annotate_pdf(m.data, m.result, {elsewhere.flag_id: elsewhere})
    assert (out.counts.cleared, out.counts.confirmed) == (0, 0)
    assert _drawn(out, 1) == _drawn(m.out, 1)
    assert "Reviewed:" not in _summary(out.pdf)
    # a decision about a flag of this document that the copy does not hold is said, not drawn
    gone = decide(xref.model_copy(update={"flag_id": "model-stage-flag"}), "confirm", "alice", 4)
    summary = _summary(annotate_pdf(m.data, m.result, {"x": gone}).pdf)
    assert "1 decision about flags this copy does not hold" in summary


def test_the_decisions_name_the_cached_copy_and_travel_to_the_worker(tmp_path: Path) -> None:
    m = _marked("halvorsen")
    xref, bal = m.result.flags
    one = standing([decide(xref, "confirm", "alice")])
    two = standing([decide(xref, "confirm", "alice"), decide(bal, "dismiss", "bob", reason="wrong_scale")])
    copies = AnnotatedCopies(LocalDocuments([SAMPLES]), tmp_path)
    doc_id = m.result.doc_id
    paths = {copies.path(doc_id), copies.path(doc_id, one), copies.path(doc_id, two)}
    assert len(paths) == 3 and copies.path(doc_id, {}) == copies.path(doc_id)
    assert decisions_digest(one) == decisions_digest(dict(one))  # the same decisions, the same copy
    assert load_decisions(dump_decisions(two)) == two


# --- the console's download ---------------------------------------------------------------------------


@pytest.fixture
def config(tmp_path: Path) -> Iterator[ConsoleConfig]:
    run = make_run(tmp_path / "run", ("halvorsen_2025_form_10k.pdf",))
    cfg = make_config(run, tmp_path)
    cfg.annotations = AnnotatedCopies(LocalDocuments([SAMPLES]), tmp_path / "cache")
    yield cfg
    cfg.store.close()


def _labels(pdf: bytes) -> list[str]:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return sorted(" ".join(a.info["content"].split()) for page in doc for a in _ours(page, SUBJECT_NOTE))


def test_a_download_after_a_decision_draws_it(config: ConsoleConfig) -> None:
    client = TestClient(create_app(config), base_url="http://127.0.0.1")
    token = login(client)
    xref = config.store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag
    url = f"/documents/{xref.doc_id}/annotated.pdf"
    before = client.get(url)
    assert before.status_code == 200, before.text
    assert not [t for t in _labels(before.content) if "cleared" in t]
    r = client.post(
        f"/flags/{xref.flag_id}/decide",
        data={"csrf": token, "action": "dismiss", "reason": "wrong_pairing", "version": "0"},
    )
    assert r.status_code == 200, r.text
    after = client.get(url)
    assert after.status_code == 200, after.text
    cleared = [t for t in _labels(after.content) if t.startswith("#")]
    assert sum(t.startswith("#1 XREF001 cleared, Wrong pairing") for t in cleared) == 2, cleared
    summary = _summary(after.content)
    assert "Dismissed (cleared) by alice" in summary and "Wrong pairing" in summary
    # reopened and confirmed: the next download says so
    client.post(f"/flags/{xref.flag_id}/decide", data={"csrf": token, "action": "reopen", "version": "1"})
    client.post(f"/flags/{xref.flag_id}/decide", data={"csrf": token, "action": "confirm", "version": "2"})
    again = client.get(url)
    assert sum(t.startswith("#1 XREF001 confirmed") for t in _labels(again.content)) == 2
    assert not [t for t in _labels(again.content) if "cleared" in t]
    # only the current decisions' copy stays in the cache (one a decision, the cache grew by a PDF each)
    copies = config.annotations
    assert isinstance(copies, AnnotatedCopies)
    current = copies.path(xref.doc_id, standing(config.store.history(xref.flag_id)))
    assert list(copies.cache_dir.glob(f"{xref.doc_id}/*.pdf")) == [current]


def test_cli_annotate_draws_a_reviewed_runs_decisions(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", ("halvorsen_2025_form_10k.pdf",))
    store = SqliteReviewStore.for_run(run)
    xref = store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag
    store.decide(DecisionRequest(xref.flag_id, "dismiss", "bob", 0, reason="wrong_scale"))
    store.close()
    target = tmp_path / "marked.pdf"
    pdf = SAMPLES / "halvorsen_2025_form_10k.pdf"
    res = CliRunner().invoke(cli, ["annotate", str(pdf), "--reviews", str(run), "--out", str(target)])
    assert res.exit_code == 0, res.output
    assert "decisions drawn: 0 confirmed, 1 dismissed (cleared)" in " ".join(res.output.split())
    assert sum(t.startswith("#1 XREF001 cleared, Wrong scale") for t in _labels(target.read_bytes())) == 2
    assert "Dismissed (cleared) by bob" in _summary(target.read_bytes())
    empty = CliRunner().invoke(cli, ["annotate", str(pdf), "--reviews", str(tmp_path), "--out", str(target)])
    assert empty.exit_code == 2 and "Traceback" not in empty.output
