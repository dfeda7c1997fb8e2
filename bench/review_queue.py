"""The review console's queue with 100,000 generated flags: import time and page render time.

Writes a run folder whose ``flags.jsonl`` holds N generated flags over 200 documents, imports it into the
embedded review store (as ``tieout review --out`` does at start-up), then renders queue pages through the
console's real handlers (Starlette's TestClient: routing, the server-side session read from the store,
guard, SQL, template; no network): first pages under each sort and filter, deep pages reached by following
the keyset cursor, counts per status. Reports p50/p95/max per scenario and overall, and apart from them
the cost of the session alone (the login form, rendered for a logged-in user: the session's look-up, the
guard and a small template, no queue SQL).

Usage::

    python -m bench.review_queue [--flags 100000] [--samples 30] [--json out/bench/review_queue.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/review_queue.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from starlette.testclient import TestClient

from adapters.review.decision_rules import DecisionRequest
from adapters.review.documents import LocalDocuments, PageImages
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import FlagQuery
from console.app import ConsoleConfig, create_app
from console.auth import Users, add_user
from schemas.models import Evidence, Flag, FlagKind, Period

RULES: dict[str, FlagKind] = {
    "TOT001": "sum_mismatch",
    "TOT002": "sum_mismatch",
    "XREF001": "cross_reference_mismatch",
    "BAL001": "balance_identity",
    "NAR001": "narrative_mismatch",
    "NAR002": "narrative_mismatch",
    "CHG001": "change_mismatch",
    "MOD001": "model_finding",
}


def generate(n: int, seed: int = 11) -> list[Flag]:
    """``n`` plausible flags over 200 documents."""
    rng = random.Random(seed)
    rules = list(RULES)
    flags = []
    for i in range(n):
        rule = rng.choice(rules)
        doc = rng.randrange(200)
        p = 1 + rng.randrange(300)
        pages = sorted({p, p + rng.randrange(0, 40)})
        flags.append(
            Flag(
                flag_id=f"{rng.getrandbits(64):016x}",
                doc_id=f"{doc:064x}",
                source=f"filings/company-{doc:03d}-10k.pdf",
                rule=rule,
                kind=RULES[rule],
                severity=rng.choice(("error", "warning", "warning", "info")),
                metric=rng.choice(("revenue", "net_income", "total_assets", "operating_cash_flow")),
                period=Period(kind="duration", key=f"FY{2020 + rng.randrange(6)}", label="Fiscal year"),
                message=f"Generated finding {i}: printed {rng.randrange(10**6):,} but the parts give "
                f"{rng.randrange(10**6):,} (difference {rng.randrange(10**4):,}).",
                pages=pages,
                evidence=[
                    Evidence(
                        page=pg,
                        bbox=(400.0, 100.0 + j * 20, 460.0, 112.0 + j * 20),
                        text="x: 1",
                        role="total",
                    )
                    for j, pg in enumerate(pages)
                ],
                confidence=round(rng.uniform(0.3, 1.0), 2),
                reasons=["generated"],
            )
        )
    return flags


def timed(client: TestClient, url: str) -> tuple[float, str]:
    t = time.perf_counter()
    r = client.get(url)
    ms = (time.perf_counter() - t) * 1000
    if r.status_code != 200:
        raise RuntimeError(f"{url}: {r.status_code} {r.text[:200]}")
    return ms, r.text


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flags", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=30, help="renders per scenario")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        run = tmp / "run"
        run.mkdir()
        t = time.perf_counter()
        flags = generate(args.flags)
        with (run / "flags.jsonl").open("w", encoding="utf-8") as fh:
            for f in flags:
                fh.write(f.model_dump_json() + "\n")
        (run / "facts.jsonl").write_text("")
        gen_s = time.perf_counter() - t
        t = time.perf_counter()
        store = SqliteReviewStore.for_run(run)
        import_s = time.perf_counter() - t
        t = time.perf_counter()
        store.close()
        store = SqliteReviewStore.for_run(run)
        reopen_s = time.perf_counter() - t
        # some judged flags, so the status filters select something real
        rng = random.Random(3)
        for f in rng.sample(flags, 2000):
            store.decide(
                DecisionRequest(f.flag_id, rng.choice(("confirm", "reassign")), "alice", 0, assignee="bob")
            )
        add_user(tmp / "users.json", "alice", "benchmark-password")
        config = ConsoleConfig(
            store=store,
            images=PageImages(LocalDocuments([tmp]), tmp / "cache"),
            users=Users.load(tmp / "users.json"),
            secret="b" * 48,
        )
        client = TestClient(create_app(config), base_url="http://127.0.0.1")
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
        assert token
        r = client.post(
            "/login",
            data={"username": "alice", "password": "benchmark-password", "csrf": token.group(1)},
            follow_redirects=False,
        )
        if r.status_code != 303:  # every page below would be the login form, measured for nothing
            raise RuntimeError(f"the benchmark's login failed: {r.status_code}")

        doc = f"{7:064x}"
        scenarios = {
            "first page, default sort": "/",
            "first page, confidence desc": "/?sort=confidence&dir=desc",
            "first page, by document": "/?sort=document",
            "filter rule+severity": "/?rule=XREF001&severity=error",
            "filter status=confirmed": "/?status=confirmed",
            "filter document": f"/?doc={doc}",
            "filter confidence range": "/?cmin=0.5&cmax=0.6&sort=confidence",
            "filter assignee": "/?assignee=bob&sort=rule",
        }
        results: dict[str, list[float]] = {}
        for name, url in scenarios.items():
            timed(client, url)  # warm
            results[name] = [timed(client, url)[0] for _ in range(args.samples)]
        # deep pages: follow the keyset cursor 40 pages (2,000 flags) in, the way an analyst pages
        deep: list[float] = []
        url = "/?sort=confidence&dir=desc"
        for _ in range(max(40, args.samples)):
            ms, html = timed(client, url)
            deep.append(ms)
            m = re.search(r'id="next-page" href="([^"]+)"', html)
            if m is None:
                break
            url = m.group(1).replace("&amp;", "&")
        results["next pages by cursor"] = deep
        flag_id = store.queue(FlagQuery(), limit=1).rows[0].flag.flag_id
        timed(client, f"/flags/{flag_id}")
        results["flag page (PDF missing)"] = [
            timed(client, f"/flags/{flag_id}")[0] for _ in range(args.samples)
        ]

        everything = [v for vs in results.values() for v in vs]
        timed(client, "/login")
        session_only = [timed(client, "/login")[0] for _ in range(max(200, args.samples))]
        report = {
            "flags": args.flags,
            "generate_s": round(gen_s, 2),
            "import_s": round(import_s, 2),
            "restart_s": round(reopen_s, 3),
            "db_mb": round((run / "reviews.sqlite").stat().st_size / 2**20, 1),
            "scenarios": {
                k: {
                    "p50_ms": round(statistics.median(v), 1),
                    "p95_ms": round(pct(v, 0.95), 1),
                    "max_ms": round(max(v), 1),
                }
                for k, v in results.items()
            },
            "all": {
                "n": len(everything),
                "p50_ms": round(statistics.median(everything), 1),
                "p95_ms": round(pct(everything, 0.95), 1),
            },
            "session_only": {
                "p50_ms": round(statistics.median(session_only), 1),
                "p95_ms": round(pct(session_only, 0.95), 1),
            },
        }
        store.close()
    print(f"{args.flags:,} flags: import {report['import_s']} s, restart {report['restart_s']} s", end="")
    print(f", database {report['db_mb']} MB")
    print(f"{'scenario':34s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s}")
    for k, v in report["scenarios"].items():
        print(f"{k:34s} {v['p50_ms']:8.1f} {v['p95_ms']:8.1f} {v['max_ms']:8.1f}")
    print(f"{'all queue and flag renders':34s} {report['all']['p50_ms']:8.1f} {report['all']['p95_ms']:8.1f}")
    only = report["session_only"]
    print(f"{'session alone (login form)':34s} {only['p50_ms']:8.1f} {only['p95_ms']:8.1f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
