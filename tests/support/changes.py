"""Shared by the changes page's tests: a generated draft pair run through ``tieout run --history``, and a
console over that run (its PDFs found in the drafts' folder)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from adapters.review.documents import LocalDocuments, PageImages
from adapters.review.sqlite import SqliteReviewStore
from console.app import ConsoleConfig
from sample_docs.drafts import render_pair
from schemas.models import DocumentChanges
from tests.support.review import make_users
from tieout.cli import app

__all__ = ["DraftRun", "drafts_config", "drafts_run"]

SEED = 0


@dataclass(frozen=True)
class DraftRun:
    """A run of two drafts: the folder of the PDFs, the run's folder, and the truth of the drafts."""

    pdfs: Path
    out: Path
    truth: dict[str, object]

    def changes(self) -> list[DocumentChanges]:
        """The run's changes records."""
        lines = (self.out / "changes.jsonl").read_text(encoding="utf-8").splitlines()
        return [DocumentChanges.model_validate_json(x) for x in lines if x.strip()]


def drafts_run(tmp: Path, seed: int = SEED) -> DraftRun:
    """Draw a prospectus and its next draft (``sample_docs/drafts.py``) and run both as the README does."""
    pair = render_pair(seed)
    pdfs = tmp / "drafts"
    pdfs.mkdir(parents=True)
    old, new = pdfs / str(pair.truth["old"]), pdfs / str(pair.truth["new"])
    old.write_bytes(pair.old)
    new.write_bytes(pair.new)
    out = tmp / "run"
    args = ["run", "--history", str(tmp / "history"), "--out", str(out), str(old), str(new)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return DraftRun(pdfs, out, pair.truth)


def drafts_config(run: DraftRun, tmp: Path) -> ConsoleConfig:
    """A console over the drafts' run, serving their PDFs' pages."""
    return ConsoleConfig(
        store=SqliteReviewStore.for_run(run.out),
        images=PageImages(LocalDocuments([run.pdfs]), tmp / "cache"),
        users=make_users(tmp / "users.json"),
        secret="s" * 48,
    )
