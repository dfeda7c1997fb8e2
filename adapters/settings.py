"""Connection settings of the event-driven services.

Read from ``.tieout/stack.env`` (written by ``tieout stack up``) with environment variables overriding
it, so that ``tieout consume …`` started after the local stack needs no flags, and a deployment sets plain
environment variables.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_ENV_FILE = Path(".tieout") / "stack.env"


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and ``#`` comments ignored; surrounding quotes stripped."""
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        out[key.strip()] = value.strip().strip("'\"")
    return out


class Settings(BaseModel):
    """Where Kafka and the object store are, and how the services name things there."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kafka_bootstrap: str = "127.0.0.1:9092"
    s3_endpoint: str | None = None
    s3_access_key: str | None = None
    s3_secret_key: str | None = Field(default=None, repr=False)
    s3_region: str = "us-east-1"
    landing_bucket: str = "tieout-landing"
    artifact_bucket: str = "tieout-artifacts"
    topic_prefix: str = "tieout."
    landing_topic: str | None = Field(
        default=None, description="Where the store publishes its notifications (default <prefix>landing)."
    )
    worker_id: str | None = Field(
        default=None,
        description="Stable, unique id of this worker; default <hostname>-<slot> (see consumers.identity).",
    )
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    kafka_sasl_mechanism: Literal["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"] = "SCRAM-SHA-512"
    kafka_username: str | None = None
    kafka_password: str | None = Field(default=None, repr=False)
    kafka_ca_file: str | None = Field(
        default=None, description="CA bundle for SSL/SASL_SSL (default: system)."
    )
    max_record_bytes: int = Field(
        default=900_000,
        gt=1024,
        description="Records larger than this ride in object storage behind a claim check (keep it under "
        "the broker's message.max.bytes, 1,048,588 by default).",
    )
    model_standard_url: str | None = Field(default=None, description="OpenAI-compatible base URL (…/v1).")
    model_deep_url: str | None = Field(default=None, description="Defaults to the standard endpoint.")
    model_standard_name: str | None = None
    model_deep_name: str | None = None
    model_api_key: str | None = Field(default=None, repr=False)
    pg_dsn: str | None = Field(
        default=None,
        repr=False,
        description="PostgreSQL sink DSN (with its password); none: no database sink.",
    )
    notifications: bool = Field(
        default=True, description="Whether the store publishes bucket notifications to the landing topic."
    )

    def model_endpoints(self) -> dict[str, tuple[str, str]]:
        """``{tier: (base_url, model)}`` for the configured tiers; the deep tier falls back to standard."""
        out: dict[str, tuple[str, str]] = {}
        if self.model_standard_url:
            out["standard"] = (self.model_standard_url, self.model_standard_name or "default")
        deep_url = self.model_deep_url or self.model_standard_url
        if deep_url:
            out["deep"] = (deep_url, self.model_deep_name or self.model_standard_name or "default")
        return out

    @property
    def worker(self) -> str:
        """The worker id, or the host name before one is assigned."""
        return self.worker_id or socket.gethostname()

    def topic(self, name: str) -> str:
        """A topic's full name."""
        if name == "landing" and self.landing_topic:
            return self.landing_topic
        return f"{self.topic_prefix}{name}"

    @classmethod
    def load(cls, env_file: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from the env file, then the environment (which wins)."""
        path = env_file or Path(os.environ.get("TIEOUT_ENV_FILE", DEFAULT_ENV_FILE))
        values = read_env_file(path)
        # The local model server (infra/model.sh) writes its own file next to the stack's.
        model = read_env_file(path.with_name("model.env"))
        if model.get("MODEL_BASE_URL"):
            values.setdefault("MODEL_STANDARD_URL", model["MODEL_BASE_URL"])
            values.setdefault("MODEL_NAME", model.get("MODEL_NAME", ""))
        pg = read_env_file(path.with_name("pg.env"))
        if pg.get("PG_DSN"):
            values.setdefault("PG_DSN", pg["PG_DSN"])
        values.update(environ if environ is not None else os.environ)
        fields = {
            "kafka_bootstrap": "KAFKA_BOOTSTRAP",
            "s3_endpoint": "S3_ENDPOINT",
            "s3_access_key": "S3_ACCESS_KEY",
            "s3_secret_key": "S3_SECRET_KEY",
            "s3_region": "S3_REGION",
            "landing_bucket": "LANDING_BUCKET",
            "artifact_bucket": "ARTIFACT_BUCKET",
            "topic_prefix": "TOPIC_PREFIX",
            "landing_topic": "LANDING_TOPIC",
            "worker_id": "WORKER_ID",
            "model_standard_url": "MODEL_STANDARD_URL",
            "model_deep_url": "MODEL_DEEP_URL",
            "model_standard_name": "MODEL_STANDARD_NAME",
            "model_deep_name": "MODEL_DEEP_NAME",
            "model_api_key": "MODEL_API_KEY",
            "pg_dsn": "PG_DSN",
            "max_record_bytes": "MAX_RECORD_BYTES",
            "kafka_security_protocol": "KAFKA_SECURITY_PROTOCOL",
            "kafka_sasl_mechanism": "KAFKA_SASL_MECHANISM",
            "kafka_username": "KAFKA_USERNAME",
            "kafka_password": "KAFKA_PASSWORD",
            "kafka_ca_file": "KAFKA_CA_FILE",
        }
        kwargs: dict[str, object] = {f: values[k] for f, k in fields.items() if values.get(k)}
        if values.get("MODEL_NAME"):
            kwargs.setdefault("model_standard_name", values["MODEL_NAME"])
            kwargs.setdefault("model_deep_name", values["MODEL_NAME"])
        if "S3_NOTIFICATIONS" in values:
            kwargs["notifications"] = values["S3_NOTIFICATIONS"].lower() not in ("0", "false", "no", "off")
        return cls.model_validate(kwargs)
