"""The event-driven services on a real Kafka broker and a real S3 gateway (infra/stack.sh).

Uploads go through the gateway's own bucket notifications; results are read back with confluent-kafka
(a client other than the services' aiokafka), as a data team would.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.storage import ObjectStore
from pipeline.engine import process_path
from tests.integration.conftest import REPO, Isolated, eventually
from tests.support.corpus import CORPUS

pytestmark = pytest.mark.integration

SAMPLES = sorted((REPO / "sample_docs").glob("*.pdf"))


def _strip(rec: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in rec.items() if not k.startswith("_")}


def _upload_boto3(it: Isolated, files: list[Path], prefix: str) -> list[str]:
    store = ObjectStore(it.settings)
    keys = []
    for f in files:
        key = f"{prefix}/{f.name}"
        store.client.upload_file(str(f), it.settings.landing_bucket, key)
        keys.append(key)
    return keys


def _upload_awscli(it: Isolated, files: list[Path], prefix: str) -> list[str]:
    env = {
        **it.env,
        "AWS_ACCESS_KEY_ID": it.settings.s3_access_key or "",
        "AWS_SECRET_ACCESS_KEY": it.settings.s3_secret_key or "",
        "AWS_DEFAULT_REGION": it.settings.s3_region,
    }
    keys = []
    for f in files:
        key = f"{prefix}/{f.name}"
        subprocess.run(
            [str(REPO / ".venv" / "bin" / "aws"), "--endpoint-url", it.settings.s3_endpoint or "", "s3", "cp",
             str(f), f"s3://{it.settings.landing_bucket}/{key}"],
            env=env, check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        keys.append(key)
    return keys


def by_id(records: list[dict[str, object]]) -> list[dict[str, object]]:
    return sorted((_strip(r) for r in records), key=lambda r: str(r.get("fact_id") or r.get("flag_id")))


def _records(n: int) -> Callable[[list[dict[str, object]]], bool]:
    return lambda recs: len(recs) >= n


def _verified(n: int) -> Callable[[list[dict[str, object]]], bool]:
    return lambda recs: len({r["doc_id"] for r in recs}) >= n


def test_results_on_kafka_equal_the_embedded_run(isolated: Isolated) -> None:
    it = isolated
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "w1")
    keys = _upload_boto3(it, SAMPLES[:3], "boto3") + _upload_awscli(it, SAMPLES[3:], "awscli")
    verified = it.read(it.topic("verified"), until=_verified(len(SAMPLES)))
    assert sorted(str(v["source"]) for v in verified) == sorted(keys)
    n_facts = sum(int(str(v["facts"])) for v in verified)
    n_flags = sum(int(str(v["flags"])) for v in verified)
    facts = it.read(it.topic("facts"), until=lambda r: len(r) >= n_facts)
    flags = it.read(it.topic("flags"), until=lambda r: len(r) >= n_flags)
    assert len(facts) == n_facts and len(flags) == n_flags  # each exactly once (read_committed)
    assert all(f["_key"] == f["doc_id"] for f in facts + flags)  # keyed by document
    expected_facts: list[dict[str, object]] = []
    expected_flags: list[dict[str, object]] = []
    for key in keys:
        r = process_path(REPO / "sample_docs" / Path(key).name, source=key)
        expected_facts += [f.model_dump(mode="json") for f in r.facts]
        expected_flags += [f.model_dump(mode="json") for f in r.flags]
    assert by_id(facts) == by_id(expected_facts)
    assert by_id(flags) == by_id(expected_flags)
    # The sink wrote each document's rows to the Parquet datasets.
    store = ObjectStore(it.settings)
    written = [o.key for o in store.list_objects(it.settings.artifact_bucket, "datasets/facts/")]
    assert len(written) == len(SAMPLES)
    # And each document's xBRL report beside them.
    reports = [o.key for o in store.list_objects(it.settings.artifact_bucket, "xbrl/")]
    assert len([k for k in reports if k.endswith("/report.json")]) == len(SAMPLES)


def test_hostile_pdf_is_dead_lettered_with_headers_while_others_complete(isolated: Isolated) -> None:
    it = isolated
    it.services.start("parse", "w1")
    it.services.start("verify", "w1")
    hostile = CORPUS / "hostile" / "pdfplumber__password-example.pdf"
    if not hostile.exists():
        pytest.fail(f"corpus file missing: {hostile}")
    _upload_boto3(it, [hostile, SAMPLES[0], SAMPLES[1]], "mixed")
    dlq = it.read(it.topic("dlq"), until=lambda r: len(r) >= 1)
    assert len(dlq) == 1
    d = dlq[0]
    assert (
        d["category"] == "encrypted"
        and d["stage"] == "parse"
        and str(d["source"]).endswith("password-example.pdf")
    )
    h = d["_headers"]
    assert isinstance(h, dict)
    assert (
        h["stage"] == "parse"
        and h["category"] == "encrypted"
        and h["original_topic"] == it.settings.topic("landing")
    )
    assert {"error_class", "attempts", "original_partition", "original_offset", "trace_id"} <= set(h)
    verified = it.read(it.topic("verified"), until=_verified(2))
    assert len(verified) == 2


def test_quota_breaches_are_dead_lettered_by_category_and_the_parse_worker_goes_on(
    isolated: Isolated, tmp_path: Path
) -> None:
    from tests.support import hostile_gen as gen

    it = isolated
    # The quotas as a deployment sets them: in the parse service's environment. Each bomb meets quotas
    # where the other one is far out of reach, so its category does not depend on the machine's speed: the
    # font bomb fills 1 GiB in about a CPU second (30 allowed), the blank bomb spends 2 CPU seconds long
    # before it holds 1 GiB (about 17 CPU seconds in; 2 GiB allowed). The parse worker is restarted between.
    runs = [
        (
            {"TIEOUT_MEMORY_MB": "1024", "TIEOUT_CPU_S": "30"},
            {
                "font-bomb.pdf": (gen.decompression_bomb(8192), "memory_limit", "QuotaExceeded"),
                "nested.pdf": (gen.deeply_nested(100_000), "corrupt", "DocumentError"),
            },
        ),
        (
            {"TIEOUT_MEMORY_MB": "2048", "TIEOUT_CPU_S": "2"},
            {"blank-bomb.pdf": (gen.decompression_bomb(4096, where="content"), "cpu_limit", "QuotaExceeded")},
        ),
    ]
    it.services.start("verify", "w1")
    hostile: dict[str, tuple[bytes, str, str]] = {}
    for i, (quotas, bombs) in enumerate(runs):
        if i:
            it.services.stop("parse", "w1")  # to start again under the next quotas
        it.services.env.update(quotas)
        parse = it.services.start("parse", "w1")
        for name, (data, _, _) in bombs.items():
            (tmp_path / name).write_bytes(data)
        _upload_boto3(it, [tmp_path / n for n in bombs], f"quotas-{i}")
        hostile |= bombs
        dlq = it.read(it.topic("dlq"), until=_records(len(hostile)))
    # after the last bomb, the same parse worker goes on with a filing
    keys = _upload_boto3(it, [SAMPLES[0]], "quotas")
    got = {Path(str(d["source"])).name: d for d in dlq}
    assert {n: (d["category"], d["error_class"]) for n, d in got.items()} == {
        n: (category, error_class) for n, (_, category, error_class) in hostile.items()
    }
    for d in dlq:
        h = d["_headers"]
        assert isinstance(h, dict)
        assert (h["category"], h["error_class"], h["stage"]) == (d["category"], d["error_class"], "parse")
    (verified,) = it.read(it.topic("verified"), until=_verified(1))
    assert verified["source"] == keys[-1]
    assert parse.poll() is None, "the parse service died"


# The waits' liveness bounds add up past pytest-timeout's default 300 s: without room, a stuck wait is cut
# off by pytest-timeout before its own bound reports the notifications, the services and their logs.
@pytest.mark.timeout(900)
def test_sigkill_mid_batch_loses_nothing_and_duplicates_nothing(isolated: Isolated, tmp_path: Path) -> None:
    it = isolated
    filings = sorted((CORPUS / "financial").glob("financebench__*.pdf"))[:6]
    assert filings, "corpus filings missing"
    it.services.start("verify", "w1")
    it.services.start("parse", "w1")
    _upload_boto3(it, filings, "batch")
    # Wait until the first document is through, then kill the parse worker in the middle of the batch.
    it.read(it.topic("parsed"), until=lambda r: len(r) >= 1)
    it.services.kill("parse", "w1")
    time.sleep(1)
    it.services.start("parse", "w1")  # same worker id: fences the dead worker's open transaction
    parsed = it.read(
        it.topic("parsed"), until=lambda r: len({x["doc_id"] for x in r}) >= len(filings), timeout_s=300
    )  # liveness bound: the whole batch parsed, after a kill, on a loaded machine
    ids = [str(p["doc_id"]) for p in parsed]
    assert len(ids) == len(set(ids)) == len(filings), ids  # read_committed: each exactly once
    verified = it.read(it.topic("verified"), until=_verified(len(filings)))
    assert sorted(str(v["doc_id"]) for v in verified) == sorted(set(ids))
    # What a read_uncommitted reader may see: aborted duplicates, told apart by the doc_id key.
    raw = it.read(
        it.topic("parsed"), until=lambda r: len({x["doc_id"] for x in r}) >= len(filings), committed=False
    )
    assert {str(p["_key"]) for p in raw} == set(ids)


def test_two_workers_in_one_group_share_the_partitions(isolated: Isolated, tmp_path: Path) -> None:
    it = isolated
    it.services.start("parse", "a")
    it.services.start("parse", "b")

    # Work arrives once the group has settled with both members holding partitions.
    def settled() -> bool:
        a, b = it.services.assignment("parse", "a"), it.services.assignment("parse", "b")
        return bool(a and b and not a & b and len(a | b) == 4)

    eventually("the group settles, both workers holding partitions", settled, logs=it.services.logs)
    copies = []
    for i in range(12):  # distinct bytes, so distinct documents
        src = SAMPLES[i % len(SAMPLES)]
        dst = tmp_path / f"copy{i:02d}.pdf"
        shutil.copy(src, dst)
        with dst.open("ab") as f:
            f.write(f"\n% copy {i}\n".encode())
        copies.append(dst)
    _upload_boto3(it, copies, "many")
    parsed = it.read(it.topic("parsed"), until=lambda r: len(r) >= len(copies))
    producers = {str(p["_headers"]["producer"]) for p in parsed if isinstance(p["_headers"], dict)}
    assert producers == {"a", "b"}, producers


def test_backfill_announces_objects_whose_notification_was_lost(isolated: Isolated) -> None:
    it = isolated
    # Services listen on a landing topic the gateway does not feed: every native notification is "lost".
    own = f"{it.settings.topic_prefix}own-landing"
    it.env["LANDING_TOPIC"] = own
    it.services.env["LANDING_TOPIC"] = own
    it.settings = it.settings.model_copy(update={"landing_topic": own})
    _upload_boto3(it, SAMPLES[:2], "lost")
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "w1")
    env = {**it.env}
    out = subprocess.run(
        [str(REPO / ".venv" / "bin" / "tieout"), "backfill", f"s3://{it.settings.landing_bucket}/lost/"],
        env=env, capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "2 object(s) without results" in out.stdout + out.stderr
    summaries = it.read(it.topic("summaries"), until=lambda r: len(r) >= 2)
    assert len(summaries) == 2
    # Once the sink has written its manifests (just after its commits), a second backfill finds nothing.
    uri = f"s3://{it.settings.landing_bucket}/lost/"

    def nothing_left() -> bool:
        again = subprocess.run(
            [str(REPO / ".venv" / "bin" / "tieout"), "backfill", uri, "--dry-run"],
            env=env, capture_output=True, text=True, timeout=120, cwd=REPO,
        )  # fmt: skip
        return "0 object(s) without results" in again.stdout + again.stderr

    eventually("a second backfill finds nothing left", nothing_left, logs=it.services.logs)
