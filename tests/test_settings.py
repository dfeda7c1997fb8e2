"""Service settings: the environment over the local stack's env files, unknown keys, secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from adapters.settings import Settings, read_env_file


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """The three env files the infra scripts write, with the keys only the scripts use."""
    (tmp_path / "stack.env").write_text(
        "# written by infra/stack.sh up\n"
        "KAFKA_BOOTSTRAP=127.0.0.1:19092\n"
        "KAFKA_PORT=19092\n"
        "KAFKA_SASL_BOOTSTRAP=127.0.0.1:19094\n"
        "TOPIC_PREFIX=file.\n"
        "S3_ENDPOINT=http://127.0.0.1:17070\n"
        "S3_SECRET_KEY='s3cr3t-s3'\n"
        "KAFKA_PASSWORD=s3cr3t-kafka\n"
    )
    (tmp_path / "model.env").write_text(
        "MODEL_BASE_URL=http://127.0.0.1:18000/v1\n"
        "MODEL_STANDARD_URL=http://127.0.0.1:18000/v1\n"
        "MODEL_NAME=smollm2\n"
        "MODEL_PID=4242\n"
        "TOPIC_PREFIX=model-file-loses.\n"
    )
    (tmp_path / "pg.env").write_text(
        "PG_DSN=postgresql://u:s3cr3t-pg@127.0.0.1:15432/tieout\nPG_PORT=15432\n"
    )
    return tmp_path / "stack.env"


def test_the_stack_files_are_read_and_the_environment_wins(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOPIC_PREFIX", "env.")
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "")  # empty sets nothing: the file's value stands
    s = Settings.load(state)
    assert s.topic_prefix == "env." and s.kafka_bootstrap == "127.0.0.1:19092"
    assert s.s3_endpoint == "http://127.0.0.1:17070" and s.s3_secret_key == "s3cr3t-s3"
    assert s.pg_dsn == "postgresql://u:s3cr3t-pg@127.0.0.1:15432/tieout"
    # model.env: one model name for both tiers; the deep tier falls back to the standard endpoint.
    assert s.model_endpoints() == {
        "standard": ("http://127.0.0.1:18000/v1", "smollm2"),
        "deep": ("http://127.0.0.1:18000/v1", "smollm2"),
    }
    assert s.notifications and s.landing_bucket == "tieout-landing"  # defaults


def test_the_env_file_comes_from_tieout_env_file(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIEOUT_ENV_FILE", str(state))
    s = Settings.load()
    assert s.kafka_bootstrap == "127.0.0.1:19092"
    assert s.topic_prefix == "file."  # the stack's file wins over the model's and the database's
    assert Settings.load(state.with_name("absent.env")).kafka_bootstrap == "127.0.0.1:9092"


def test_a_tier_s_own_model_name_beats_model_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_STANDARD_URL", "http://a/v1")
    monkeypatch.setenv("MODEL_NAME", "both")
    monkeypatch.setenv("MODEL_DEEP_NAME", "deep-one")
    assert Settings().model_endpoints() == {
        "standard": ("http://a/v1", "both"),
        "deep": ("http://a/v1", "deep-one"),
    }


@pytest.mark.parametrize(("value", "expected"), [("0", False), ("false", False), ("off", False), ("1", True)])
def test_s3_notifications_switches_the_announcements(
    value: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("S3_NOTIFICATIONS", value)
    assert Settings().notifications is expected
    assert Settings(notifications=not expected).notifications is not expected  # by name in code


def test_unknown_keys_are_refused_in_code_and_passed_over_in_the_env_files(state: Path) -> None:
    with pytest.raises(ValidationError, match="extra"):
        Settings(kafka_port=1)  # type: ignore[call-arg]
    Settings.load(state)  # KAFKA_PORT, MODEL_PID, PG_PORT, … are the scripts' own keys


def test_invalid_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_RECORD_BYTES", "12")
    with pytest.raises(ValidationError, match="max_record_bytes"):
        Settings()


def test_secrets_stay_out_of_repr(state: Path) -> None:
    s = Settings.load(state).model_copy(update={"model_api_key": "s3cr3t-model"})
    assert "s3cr3t" not in repr(s) and "s3cr3t" not in str(s)


def test_read_env_file_is_the_settings_parser(state: Path) -> None:
    env = read_env_file(state)
    assert env["KAFKA_SASL_BOOTSTRAP"] == "127.0.0.1:19094" and env["S3_SECRET_KEY"] == "s3cr3t-s3"
    assert read_env_file(state.with_name("absent.env")) == {}


def test_model_budgets_default_to_a_128k_deep_model_and_follow_the_served_window(state: Path) -> None:
    d = Settings().model_stage_config()
    assert d.context_tokens == 131_072 and d.deadline_s is not None and d.deadline_s < 300
    (state.with_name("model.env")).write_text("MODEL_STANDARD_URL=http://m/v1\nMODEL_MAX_LEN=8192\n")
    cfg = Settings.load(state).model_stage_config()
    assert cfg.context_tokens == 8192 and cfg.max_output_tokens == d.max_output_tokens
    # two tiers (what infra/model.sh writes): windows sized for the deep one, the standard one's kept
    (state.with_name("model.env")).write_text(
        "MODEL_STANDARD_URL=http://m/v1\nMODEL_MAX_LEN=8192\n"
        "MODEL_DEEP_URL=http://d/v1\nMODEL_DEEP_MAX_LEN=16384\n"
    )
    cfg = Settings.load(state).model_stage_config()
    assert (cfg.context_tokens, cfg.standard_context_tokens) == (16384, 8192)
