"""Decisions flow back, against the real stack: `tieout review --publish` puts each decision on the reviews
topic, and the export commands fold them into rewards and regression cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.review.decision_rules import DecisionRequest
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import FlagQuery
from schemas.reviews import ReviewDecision
from tests.integration.conftest import Isolated
from tests.support.review import PASSWORDS, REPO, make_run

pytestmark = pytest.mark.integration


def _cli(
    *args: str, env: dict[str, str], timeout_s: float = 300, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tieout.cli", *args],
        cwd=REPO,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def test_decisions_reach_the_reviews_topic_rewards_and_regression_cases(
    isolated: Isolated, tmp_path: Path
) -> None:
    run = make_run(tmp_path / "run")
    store = SqliteReviewStore.for_run(run)
    flags = [row.flag for row in store.queue(FlagQuery(), limit=50).rows]
    first = next(f for f in flags if f.rule == "XREF001")  # cross-page, halvorsen pages 2 and 7
    second = next(f for f in flags if f.rule != first.rule)
    confirmed = store.decide(DecisionRequest(first.flag_id, "confirm", "alice", version=0))
    dismissed = store.decide(
        DecisionRequest(
            second.flag_id, "dismiss", "alice", version=0, reason="wrong_pairing", note="restated"
        )
    )
    env = {**isolated.env, "PYTHONPATH": str(REPO)}
    users = tmp_path / "users.json"
    added = _cli(
        "review", "adduser", "alice", "--users", str(users), "--password-stdin",
        env=env, timeout_s=60, stdin=PASSWORDS["alice"] + "\n",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    console = subprocess.Popen(
        [sys.executable, "-m", "tieout.cli", "review", "--out", str(run), "--publish", "--port", "0",
         "--users", str(users), "--pdfs", str(REPO / "sample_docs")],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        records = isolated.read(isolated.topic("reviews"), until=lambda rs: len(rs) >= 2)
        # a decision made while the console runs is published too
        later = store.decide(DecisionRequest(first.flag_id, "comment", "alice", version=1, note="checked"))
        records = isolated.read(isolated.topic("reviews"), until=lambda rs: len(rs) >= 3)
    finally:
        console.terminate()
        _, err = console.communicate(timeout=30)
    assert console.returncode is not None, err
    got = [
        ReviewDecision.model_validate({k: v for k, v in r.items() if not k.startswith("_")}) for r in records
    ]
    # Kafka orders a topic per partition, and decisions are keyed by flag: one flag's decisions arrive in
    # the order they were made, two flags' in any order.
    assert sorted(d.review_id for d in got) == sorted(
        [confirmed.review_id, dismissed.review_id, later.review_id]
    )
    same_flag = [d.review_id for d in got if d.flag_id == first.flag_id]
    assert same_flag == [confirmed.review_id, later.review_id]
    for r, d in zip(records, got, strict=True):
        headers = r["_headers"]
        assert r["_key"] == d.flag_id and isinstance(headers, dict) and headers["review_id"] == d.review_id
    assert store.cursor("topic:reviews") == 3  # the cursor names the last one published

    # regression cases: the dismissed flag, with its pages, rule and reason
    dest = tmp_path / "cases"
    out = _cli("export", "reviews", "--out", str(run), "--dest", str(dest), env=env)
    assert out.returncode == 0, out.stderr
    (case,) = [json.loads(line) for line in (dest / "regression_cases.jsonl").read_text().splitlines()]
    assert (case["flag_id"], case["rule"], case["reason"], case["note"]) == (
        second.flag_id, second.rule, "wrong_pairing", "restated",
    )  # fmt: skip
    assert case["pages"] == second.pages and case["evidence"]

    # rewards: each judged flag a labelled example for its rule
    rewards_dir = tmp_path / "rewards"
    pdfs = sorted({f.source for f in (first, second)})
    out = _cli(
        "export", "rewards", *(str(REPO / "sample_docs" / p) for p in pdfs), "--out", str(rewards_dir),
        "--reviews", str(run), env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (rewards_dir / "rewards.jsonl").read_text().splitlines()]
    labels = {r["extractor"]: (r["reward"], r["label_reason"]) for r in rows if r["task"] == "check_flag"}
    assert labels[f"rule:{first.rule}"] == (1.0, None)
    assert labels[f"rule:{second.rule}"] == (0.0, "wrong_pairing")
    assert os.path.getsize(rewards_dir / "rewards.parquet") > 0
