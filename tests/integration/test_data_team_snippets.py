"""The README's consumer of the ``facts`` topic for data teams, run as it is printed against the real stack.

The three services run with the schema registry (``infra/registry.sh``) and process a sample uploaded to
the test's own landing bucket; the snippet, pointed at the test's topics through its environment variables,
reads every fact of the document through ``JSONDeserializer`` and prints how many it read of each document.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from adapters.storage import ObjectStore
from tests.integration.conftest import REPO, Isolated
from tests.support.snippets import run_snippet

pytestmark = pytest.mark.integration

SAMPLE = REPO / "sample_docs" / "halvorsen_2025_form_10k.pdf"


def test_the_readme_reads_the_facts_topic_through_the_registry(
    isolated: Isolated, registry_url: str, tmp_path: Path
) -> None:
    it = isolated
    it.start_pipeline(registry_url)
    ObjectStore(it.settings).client.upload_file(str(SAMPLE), it.settings.landing_bucket, f"in/{SAMPLE.name}")
    # The sink publishes a document's facts and its summary in one transaction: once the summary is
    # readable (read_committed), so is every fact.
    (summary,) = it.read(it.topic("summaries"), until=lambda r: len(r) >= 1)
    doc_id = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert summary["doc_id"] == doc_id and int(str(summary["facts"])) > 0

    env = {
        "KAFKA_BOOTSTRAP": it.settings.kafka_bootstrap,
        "SCHEMA_REGISTRY_URL": registry_url,
        "TOPIC_PREFIX": it.settings.topic_prefix,
    }
    out = run_snippet("facts-topic", env, cwd=tmp_path)
    assert out.split() == [doc_id, str(summary["facts"])], it.services.logs()[-3000:]
