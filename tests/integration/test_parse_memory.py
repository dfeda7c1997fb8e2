"""The parse parent streams documents to disk: a 150 MB PDF does not grow it by more than 1.5x its size."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pymupdf
import pytest

from adapters.storage import ObjectStore
from tests.integration.conftest import Isolated, eventually

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SIZE = 150 * 1024 * 1024


def _status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


def _big_pdf(path: Path) -> None:
    """One page of text and 150 MB of incompressible bytes as an embedded file."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Revenue 1,234 1,100")
    doc.embfile_add("blob.bin", os.urandom(SIZE))
    doc.save(path)


@pytest.mark.timeout(600)
def test_peak_rss_of_the_parse_parent_on_a_150_mb_pdf(isolated: Isolated, tmp_path: Path) -> None:
    # Regression: the parent held the whole file (4.7x its size at peak) and kept it.
    it = isolated
    pdf = tmp_path / "big.pdf"
    _big_pdf(pdf)
    size = pdf.stat().st_size
    proc = it.services.start("parse", "mem")
    eventually("the worker has its partitions", lambda: "partitions assigned" in it.services.logs())
    time.sleep(2)
    base = _status(proc.pid)
    ObjectStore(it.settings).client.upload_file(str(pdf), it.settings.landing_bucket, "big/big.pdf")
    (event,) = it.read(it.topic("parsed"), until=lambda r: len(r) >= 1, timeout_s=300)  # liveness bound
    after = _status(proc.pid)
    mib = {k: round(v / 2**20) for k, v in {"base": base["VmRSS"], **after}.items()}
    print(f"file {size // 2**20} MiB; parent RSS {mib['base']} MiB, peak {mib['VmHWM']}, now {mib['VmRSS']}")
    assert event["source"] == "big/big.pdf"
    assert after["VmHWM"] <= base["VmRSS"] + 1.5 * size
    assert after["VmRSS"] <= base["VmRSS"] + 0.1 * size  # back to its baseline: nothing kept
