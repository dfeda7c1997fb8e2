"""Connection settings of the event-driven services.

:class:`Settings` is a pydantic-settings model: environment variables (``KAFKA_BOOTSTRAP``,
``S3_ENDPOINT``, …, one per field, named after it) override the env files, so that ``tieout consume …``
started after the local stack needs no flags, and a deployment sets plain environment variables.
:meth:`Settings.load` adds the env files the local stack scripts write: ``.tieout/stack.env``
(``infra/stack.sh``) and, beside it, ``model.env`` (``infra/model.sh``) and ``pg.env``
(``infra/postgres.sh``).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from dotenv import dotenv_values
from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from pipeline.model.strategy import ModelStageConfig

__all__ = ["DEFAULT_ENV_FILE", "Settings", "read_env_file"]

DEFAULT_ENV_FILE = Path(".tieout") / "stack.env"


def read_env_file(path: Path) -> dict[str, str]:
    """An env file's ``KEY=VALUE`` pairs, parsed as :class:`Settings` parses them (python-dotenv).

    For the tests and benchmarks that need the local stack's other keys (``KAFKA_SASL_BOOTSTRAP``,
    ``MODEL_BASE_URL``, …); a missing file reads as empty, and keys without a value are left out.
    """
    return {k: v for k, v in dotenv_values(path, encoding="utf-8").items() if v is not None}


class Settings(BaseSettings):
    """Where Kafka and the object store are, and how the services name things there.

    ``Settings(...)`` takes its keyword arguments first, then the environment; unknown keyword arguments
    are refused. :meth:`load` adds the env files.
    """

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        # The env files are shared with the shell scripts (KAFKA_PID, MODEL_LOG, PG_DATA, …): their other
        # keys are not settings, so they are passed over, not refused.
        dotenv_filtering="only_existing",
        # An empty variable (KAFKA_BOOTSTRAP=) sets nothing: the default or the env file's value stands.
        env_ignore_empty=True,
        # Fields with an alias (MODEL_NAME, S3_NOTIFICATIONS) are still set by name in code.
        validate_by_name=True,
        # No env file unless load() names one: Settings(...) in tests reads no local stack's file.
        env_file=None,
    )

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
    # MODEL_NAME (what infra/model.sh writes) names the model of both tiers unless a tier names its own.
    model_standard_name: str | None = Field(
        default=None, validation_alias=AliasChoices("model_standard_name", "model_name")
    )
    model_deep_name: str | None = Field(
        default=None, validation_alias=AliasChoices("model_deep_name", "model_name")
    )
    model_api_key: str | None = Field(default=None, repr=False)
    # The model stage's budgets (pipeline.model.strategy.ModelStageConfig); defaults for a 128k deep model.
    # MODEL_MAX_LEN / MODEL_DEEP_MAX_LEN: what infra/model.sh serves (--max-model-len), in model.env.
    model_standard_window_tokens: int = Field(
        default=32_768,
        gt=0,
        validation_alias=AliasChoices("model_standard_window_tokens", "model_max_len"),
        description="The standard tier's context window; a task that does not fit goes to the deep tier.",
    )
    model_deep_window_tokens: int = Field(
        default=131_072,
        gt=0,
        validation_alias=AliasChoices("model_deep_window_tokens", "model_deep_max_len"),
        description="The deep tier's context window (prompt and answer of one call), in its tokens; "
        "windows of a long document are sized for it (the server's own limit wins when smaller).",
    )
    model_output_tokens: int = Field(default=800, gt=0, description="Answer budget of each model call.")
    model_ledger_tokens: int = Field(
        default=2_000, gt=0, description="Budget of the ledger carried between windows of a long document."
    )
    model_concurrency: int = Field(default=4, ge=1, description="Model calls in flight for one document.")
    model_ledger_lag: int = Field(
        default=1,
        ge=1,
        description="Ledger steps that may run at once (each reads the summaries of windows that far back).",
    )
    model_deadline_s: float = Field(
        default=240.0,
        gt=0,
        description="A document's model-stage budget in the verify consumer; past it the document is "
        "'partial' and finished by the resume loop (keep it well under the consumer's processing budget).",
    )
    model_resume_deadline_s: float = Field(
        default=1_800.0,
        gt=0,
        description="A partial document's budget in one resume pass (no message waits on it).",
    )
    pg_dsn: str | None = Field(
        default=None,
        repr=False,
        description="PostgreSQL sink DSN (with its password); none: no database sink.",
    )
    sink_xbrl: bool = Field(
        default=True,
        description="Whether the sink writes each document's xBRL report beside the Parquet datasets "
        "(xbrl/ingest_date=YYYY-MM-DD/<doc_id>/ in the artifact bucket; SINK_XBRL=0: none).",
    )
    sink_history: bool = Field(
        default=True,
        description="Whether the sink keeps the history of published figures in PostgreSQL (with PG_DSN) "
        "and flags each document's comparatives against its issuer's earlier documents (PRI001/PRI002; "
        "SINK_HISTORY=0: none).",
    )
    notifications: bool = Field(
        default=True,
        validation_alias="s3_notifications",
        description="Whether the store publishes bucket notifications to the landing topic "
        "(S3_NOTIFICATIONS=0 for stores without them).",
    )

    # Not read from .tieout/registry.env by load(): framing changes what every reader of the topics gets,
    # so it is switched on by setting SCHEMA_REGISTRY_URL, not by the registry merely running.
    schema_registry_url: str | None = Field(
        default=None,
        description="Confluent-compatible schema registry API root (e.g. "
        "http://127.0.0.1:8080/apis/ccompat/v7): the services register each topic's JSON Schema under "
        "<topic>-value and publish in the registry's wire format (0x00, 4-byte schema id, JSON). "
        "None: plain JSON.",
    )

    metrics_port: int = Field(
        default=0,
        ge=-1,
        le=65535,
        description="Port of the service's metrics, health and readiness endpoint; 0 picks a free one "
        "(logged at start-up), -1 serves none.",
    )
    metrics_host: str = Field(
        default="127.0.0.1",
        description="Address the endpoint binds (0.0.0.0 inside a container, where Prometheus scrapes it).",
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        default=None,
        description="Base URL of an OTLP/HTTP collector (e.g. http://127.0.0.1:4318): spans go to "
        "<url>/v1/traces. None: no spans leave the process.",
    )
    trace_file: str | None = Field(
        default=None,
        validation_alias=AliasChoices("trace_file", "tieout_trace_file"),
        description="Append every finished span to this file as a JSON line (TIEOUT_TRACE_FILE; tests).",
    )

    @classmethod
    def load(cls, env_file: Path | None = None) -> Settings:
        """Settings from the environment, then the env files (the environment wins).

        Args:
            env_file: The stack's env file; default ``$TIEOUT_ENV_FILE``, else ``.tieout/stack.env``.
                The ``model.env`` and ``pg.env`` beside it are read too; the stack's file wins over them.
        """
        path = env_file or Path(os.environ.get("TIEOUT_ENV_FILE", DEFAULT_ENV_FILE))
        # pydantic-settings: of several env files, the last one wins.
        return cls(_env_file=(path.with_name("model.env"), path.with_name("pg.env"), path))

    def model_endpoints(self) -> dict[str, tuple[str, str]]:
        """``{tier: (base_url, model)}`` for the configured tiers; the deep tier falls back to standard."""
        out: dict[str, tuple[str, str]] = {}
        if self.model_standard_url:
            out["standard"] = (self.model_standard_url, self.model_standard_name or "default")
        deep_url = self.model_deep_url or self.model_standard_url
        if deep_url:
            out["deep"] = (deep_url, self.model_deep_name or self.model_standard_name or "default")
        return out

    def model_stage_config(self) -> ModelStageConfig:
        """The model stage's budgets from these settings."""
        from pipeline.model.strategy import ModelStageConfig

        standard = self.model_standard_window_tokens
        deep = self.model_deep_window_tokens
        if self.model_standard_url and not self.model_deep_url:
            deep = min(deep, standard)  # the deep tier is the standard server: one window for both
        return ModelStageConfig(
            context_tokens=deep,
            standard_context_tokens=standard,
            max_output_tokens=self.model_output_tokens,
            ledger_tokens=self.model_ledger_tokens,
            concurrency=self.model_concurrency,
            ledger_lag=self.model_ledger_lag,
            deadline_s=self.model_deadline_s,
        )

    @property
    def worker(self) -> str:
        """The worker id, or the host name before one is assigned."""
        return self.worker_id or socket.gethostname()

    def topic(self, name: str) -> str:
        """A topic's full name."""
        # Imported here, not at the top: the table loads every record model, and the CLI reads settings
        # for commands that need none of them.
        from schemas.topology import Topic

        if name == Topic.LANDING and self.landing_topic:
            return self.landing_topic
        return f"{self.topic_prefix}{name}"
