"""Landing-topic parsing: every object store's S3 event shape, and what is not one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.events import LandingError, ObjectRef, parse_landing

SAMPLES = Path(__file__).resolve().parent.parent / "infra" / "samples"
AWS = {
    "Records": [
        {
            "eventVersion": "2.1",
            "eventSource": "aws:s3",
            "eventName": "ObjectCreated:Put",
            "eventTime": "2026-11-30T02:00:00.000Z",
            "s3": {
                "s3SchemaVersion": "1.0",
                "bucket": {"name": "tieout-landing", "arn": "arn:aws:s3:::tieout-landing"},
                "object": {
                    "key": "filings/Annual+Report+2025.pdf",
                    "size": 1234,
                    "eTag": '"abc"',
                    "sequencer": "01",
                },
            },
        }
    ]
}


def test_aws_shape_and_url_encoded_keys() -> None:
    refs = parse_landing(json.dumps(AWS).encode())
    assert refs == [
        ObjectRef(
            bucket="tieout-landing",
            key="filings/Annual+Report+2025.pdf",
            size=1234,
            etag="abc",
            sequencer="01",
        )
    ]
    assert refs[0].key_candidates() == ["filings/Annual+Report+2025.pdf", "filings/Annual Report 2025.pdf"]


def test_versitygw_shape_keeps_the_key_as_sent() -> None:
    refs = parse_landing((SAMPLES / "versitygw_put_event_special_key.json").read_bytes())
    assert [r.key for r in refs] == ["inbox/Annual Report (2025) +final.pdf"]
    assert refs[0].key_candidates()[0] == "inbox/Annual Report (2025) +final.pdf"
    put = parse_landing((SAMPLES / "versitygw_put_event.json").read_bytes())
    assert put[0].etag == "d4e74dc9567709defd20f4c2dc1d6708"
    assert parse_landing((SAMPLES / "versitygw_test_event.json").read_bytes()) == []


def test_minio_wrapper() -> None:
    minio = json.loads(json.dumps(AWS))
    minio["Records"][0]["eventName"] = "s3:ObjectCreated:Put"
    minio.update({"EventName": "s3:ObjectCreated:Put", "Key": "tieout-landing/filings/a.pdf"})
    assert [r.key for r in parse_landing(json.dumps(minio).encode())] == ["filings/Annual+Report+2025.pdf"]


def test_deletions_and_test_events_announce_nothing() -> None:
    deleted = json.loads(json.dumps(AWS))
    deleted["Records"][0]["eventName"] = "ObjectRemoved:Delete"
    assert parse_landing(json.dumps(deleted).encode()) == []
    assert parse_landing(b'{"Service":"Amazon S3","Event":"s3:TestEvent","Bucket":"b"}') == []


@pytest.mark.parametrize(
    "raw", [b"not json", b"[1, 2]", b'{"hello": 1}', b'{"Records": [{"eventName": "x"}]}']
)
def test_garbage_is_a_landing_error(raw: bytes) -> None:
    with pytest.raises(LandingError):
        parse_landing(raw)
