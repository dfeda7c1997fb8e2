"""Secure defaults of the local stack: no published secret opens the store."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from adapters.storage import ObjectStore, StorageError
from consumers.kafka import client_options
from tests.integration.conftest import REPO, Isolated

pytestmark = pytest.mark.integration


def test_the_store_refuses_the_formerly_published_secret(isolated: Isolated) -> None:
    # Regression: the stack (and docker-compose) fell back to "tieout-local-secret" when unset.
    assert isolated.settings.s3_secret_key not in (None, "", "tieout-local-secret")
    wrong = ObjectStore(isolated.settings.model_copy(update={"s3_secret_key": "tieout-local-secret"}))
    with pytest.raises(StorageError):
        list(wrong.list_objects(isolated.settings.landing_bucket))
    assert list(ObjectStore(isolated.settings).list_objects(isolated.settings.landing_bucket)) == []


def test_services_authenticate_with_scram_and_strangers_are_refused(
    isolated: Isolated, stack_env: dict[str, str]
) -> None:
    it = isolated
    sasl = {
        "KAFKA_BOOTSTRAP": stack_env["KAFKA_SASL_BOOTSTRAP"],
        "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "KAFKA_USERNAME": stack_env["KAFKA_USERNAME"],
        "KAFKA_PASSWORD": stack_env["KAFKA_PASSWORD"],
    }
    # A client with the wrong password gets no connection on the SASL listener.
    stranger = it.settings.model_copy(
        update={
            "kafka_bootstrap": sasl["KAFKA_BOOTSTRAP"],
            "kafka_security_protocol": "SASL_PLAINTEXT",
            "kafka_username": "tieout",
            "kafka_password": "wrong",
        }
    )

    async def connect() -> None:
        producer = AIOKafkaProducer(**client_options(stranger), request_timeout_ms=10_000)
        try:
            await asyncio.wait_for(producer.start(), 30)
        finally:
            await producer.stop()

    with pytest.raises((KafkaError, TimeoutError)):
        asyncio.run(connect())
    # The three services over SASL/SCRAM: a document goes all the way through.
    it.services.env.update(sasl)
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "sasl")
    sample = sorted((REPO / "sample_docs").glob("*.pdf"))[0]
    ObjectStore(it.settings).put_bytes(
        it.settings.landing_bucket, "sasl/a.pdf", sample.read_bytes(), "application/pdf"
    )
    (summary,) = it.read(it.topic("summaries"), until=lambda r: len(r) >= 1)
    assert summary["source"] == "sasl/a.pdf" and summary["facts"]
