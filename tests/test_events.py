"""Landing-topic parsing: every object store's S3 event shape, and what is not one."""

from __future__ import annotations

import json

import pytest

from schemas.events import LandingError, ObjectRef, parse_landing

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


def test_aws_shape() -> None:
    assert parse_landing(json.dumps(AWS).encode()) == [
        ObjectRef(
            bucket="tieout-landing",
            key="filings/Annual Report 2025.pdf",
            size=1234,
            etag="abc",
            sequencer="01",
        )
    ]


def test_minio_wrapper() -> None:
    minio = {"EventName": "s3:ObjectCreated:Put", "Key": "tieout-landing/a.pdf", **AWS}
    minio["Records"][0]["eventName"] = "s3:ObjectCreated:Put"  # type: ignore[index]
    refs = parse_landing(json.dumps(minio).encode())
    assert [r.key for r in refs] == ["filings/Annual Report 2025.pdf"]


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
