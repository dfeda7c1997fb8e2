"""run_service's steps without a broker or a store: each stage wired from the topology table, then shut down.

The dependencies' wait and the runner's loop are replaced; the integration tier runs the real thing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.settings import Settings
from consumers import tracing, wiring
from consumers.runner import Runner
from consumers.services import SinkHandler
from schemas.topology import TOPOLOGY, Stage


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What run_service built, recorded by its replaced dependency wait and runner loop."""
    seen: dict[str, Any] = {"closed": 0}

    async def no_dependencies(service: Any) -> None:
        seen["service"] = service

    async def run(self: Runner, stop: asyncio.Event) -> None:
        seen["handler"] = self.handler
        service = seen["service"]

        async def counted() -> None:
            seen["closed"] += 1

        service.closers.append(counted)  # after the handler factory's own: all run at shut-down

    monkeypatch.setattr(wiring, "_dependencies_up", no_dependencies)
    monkeypatch.setattr(Runner, "run", run)
    # The process-wide tracer provider stays the test session's.
    monkeypatch.setattr(tracing, "setup", lambda settings, service: None)
    monkeypatch.setattr(tracing, "shutdown", lambda: None)
    return seen


@pytest.mark.parametrize("stage", list(Stage))
def test_each_stage_consumes_its_input_in_its_group_and_dead_letters_to_its_dlq(
    wired: dict[str, Any], stage: Stage
) -> None:
    settings = Settings(topic_prefix="t.", worker_id="w1", metrics_port=-1, kafka_bootstrap="127.0.0.1:1")
    runner = asyncio.run(wiring.run_service(stage.value, settings))
    spec = TOPOLOGY.stage(stage)
    service = wired["service"]
    assert service.transport.group_id == f"t.{spec.group}" == f"t.{stage}"
    assert service.transport.topics == [f"t.{spec.input}"]
    assert runner.handler is wired["handler"] and runner.handler.stage == stage
    assert runner.dlq_topic == f"t.{spec.dlq}" == "t.dlq"
    assert wired["closed"] == 1, "the closers ran at shut-down"
    assert service.stop.is_set()
    assert all(task.done() for task in service.background)


def test_an_unknown_stage_is_refused_before_anything_starts(wired: dict[str, Any]) -> None:
    with pytest.raises(KeyError, match="no stage 'ingest'"):
        asyncio.run(wiring.run_service("ingest", Settings(worker_id="w1", metrics_port=-1)))
    assert "service" not in wired


def test_every_stage_has_a_handler_factory() -> None:
    assert set(wiring.HANDLERS) == {s.name for s in TOPOLOGY.stages}


def test_verify_with_a_model_probes_its_servers_and_resumes_pending_documents(wired: dict[str, Any]) -> None:
    settings = Settings(
        worker_id="w1",
        metrics_port=-1,
        kafka_bootstrap="127.0.0.1:1",
        model_standard_url="http://127.0.0.1:1/v1",
    )
    asyncio.run(wiring.run_service(Stage.VERIFY, settings))
    service = wired["service"]
    assert "model" in {c.name for c in service.health.checks}
    # The health loop, the resume loop (stopped while waiting for the broker) and the lag sampler.
    assert len(service.background) == 3 and all(task.done() for task in service.background)


@pytest.mark.parametrize(("env", "sinks"), [({}, ["parquet", "xbrl"]), ({"SINK_XBRL": "0"}, ["parquet"])])
def test_the_sink_writes_xbrl_reports_unless_switched_off(
    wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch, env: dict[str, str], sinks: list[str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings(worker_id="w1", metrics_port=-1, kafka_bootstrap="127.0.0.1:1")
    handler = asyncio.run(wiring.run_service(Stage.SINK, settings)).handler
    assert isinstance(handler, SinkHandler)
    assert [s.name for s in handler.sinks] == sinks
