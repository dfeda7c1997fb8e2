"""Secure defaults of the local stack: no published secret opens the store."""

from __future__ import annotations

import pytest

from pipeline.storage import ObjectStore, StorageError
from tests.integration.conftest import Isolated

pytestmark = pytest.mark.integration


def test_the_store_refuses_the_formerly_published_secret(isolated: Isolated) -> None:
    # Regression: the stack (and docker-compose) fell back to "tieout-local-secret" when unset.
    assert isolated.settings.s3_secret_key not in (None, "", "tieout-local-secret")
    wrong = ObjectStore(isolated.settings.model_copy(update={"s3_secret_key": "tieout-local-secret"}))
    with pytest.raises(StorageError):
        list(wrong.list_objects(isolated.settings.landing_bucket))
    assert list(ObjectStore(isolated.settings).list_objects(isolated.settings.landing_bucket)) == []
