"""Invariants of the deployment: docker-compose.yml, infra/Dockerfile and infra/vllm/serve-*.yaml.

No Docker engine is needed. The files are parsed and cross-checked against each other and against the code
(topic names, settings); the two one-shot init scripts are run for real with bash against stand-ins for
``kafka-topics.sh`` and ``aws`` that record their arguments. If the ``docker compose`` plugin is installed,
``docker compose config`` validates the file as Compose itself reads it (it needs no engine).
"""

from __future__ import annotations

import graphlib
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from typer.testing import CliRunner

from adapters.settings import Settings
from schemas.topology import TOPOLOGY, Topic
from tieout.cli import app

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "infra" / "Dockerfile"
# One vLLM server per model tier, each with its own serve file and compose service vllm-<tier>.
SERVE = {tier: ROOT / "infra" / "vllm" / f"serve-{tier}.yaml" for tier in ("standard", "deep")}
LOCK = ROOT / "requirements.lock"

TIEOUT_SERVICES = ("parse", "verify", "sink")
# What the services read (adapters/settings.py, and the model client for the MODEL_* ones).
REQUIRED_ENV = {
    "KAFKA_BOOTSTRAP",
    "S3_ENDPOINT",
    "S3_ACCESS_KEY",
    "S3_SECRET_KEY",
    "S3_REGION",
    "LANDING_BUCKET",
    "ARTIFACT_BUCKET",
    "TOPIC_PREFIX",
    "MODEL_STANDARD_URL",
    "MODEL_DEEP_URL",
    "MODEL_STANDARD_NAME",
    "MODEL_DEEP_NAME",
    "SCHEMA_REGISTRY_URL",
    "PG_DSN",
}
CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
LONG_RUNNING_RESTART = {"always", "unless-stopped", "on-failure"}

# Variables the compose file interpolates, overridden all at once: every cross-service check must hold for
# any values, not just for the defaults written in the file. The MODEL_*_NAME are left out on purpose: each
# must equal its serve file's served-model-name, which an override of only one side breaks by design.
# The variables compose requires (no secret is published in the file).
REQUIRED = {"S3_SECRET_KEY": "secret-x", "PG_PASSWORD": "pg-secret-x"}
OVERRIDES = {
    "TOPIC_PREFIX": "acme.",
    "S3_ACCESS_KEY": "access-x",
    "S3_SECRET_KEY": "secret-y",
    "PG_PASSWORD": "pg-secret-y",
    "S3_REGION": "eu-west-3",
    "LANDING_BUCKET": "acme-in",
    "ARTIFACT_BUCKET": "acme-out",
}


# ---------------------------------------------------------------------------------------------------------
# Reading the files


def _map(value: object, what: str) -> dict[str, Any]:
    assert isinstance(value, dict), f"{what}: expected a mapping, got {type(value).__name__}"
    return value


def _list(value: object, what: str) -> list[Any]:
    assert isinstance(value, list), f"{what}: expected a list, got {type(value).__name__}"
    return value


def _load_yaml(path: Path) -> dict[str, Any]:
    return _map(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))


# Compose's interpolation, the subset this file may use: $$, $NAME, ${NAME}, ${NAME:-default},
# ${NAME-default}, ${NAME:?error}, ${NAME?error}.
_INTERPOLATION = re.compile(
    r"\$(?:(?P<escaped>\$)"
    r"|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """A string as Compose would see it with ``env`` as the environment (and no .env file)."""

    def one(m: re.Match[str]) -> str:
        if m.group("escaped"):
            return "$"
        name = m.group("braced") or m.group("bare")
        op, arg, value = m.group("op"), m.group("arg") or "", env.get(name)
        if op in (":-", "-"):
            unset = not value if op == ":-" else value is None
            return arg if unset else str(value)
        if op in (":?", "?"):
            unset = not value if op == ":?" else value is None
            if unset:
                raise AssertionError(f"compose requires {name}: {arg}")
        return value or ""

    # A "$" that none of the supported forms consumed is syntax this reader does not know (e.g. ${A:+b}).
    assert "$" not in _INTERPOLATION.sub("", text), f"unsupported interpolation in {text!r}"
    return _INTERPOLATION.sub(one, text)


def resolve(node: Any, env: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, dict):
        return {k: resolve(v, env) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, env) for v in node]
    return node


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    """The compose file as written (anchors resolved by YAML, variables not interpolated)."""
    return _load_yaml(COMPOSE)


@pytest.fixture(scope="module", params=[REQUIRED, OVERRIDES], ids=["defaults", "overrides"])
def env(request: pytest.FixtureRequest) -> dict[str, str]:
    return dict(request.param)


@pytest.fixture
def doc(raw: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """The compose file interpolated with ``env``."""
    return _map(resolve(raw, env), "compose")


@pytest.fixture(scope="module")
def serves() -> dict[str, dict[str, Any]]:
    """Each tier's serve file."""
    return {tier: _load_yaml(path) for tier, path in SERVE.items()}


def services(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: _map(svc, name) for name, svc in _map(doc.get("services"), "services").items()}


def environment(svc: Mapping[str, Any]) -> dict[str, str]:
    """A service's environment as strings, from the mapping or the ``KEY=VALUE`` list form."""
    env = svc.get("environment") or {}
    if isinstance(env, list):
        return dict(_key_value(str(item)) for item in env)
    return {k: "" if v is None else str(v) for k, v in _map(env, "environment").items()}


def _key_value(item: str) -> tuple[str, str]:
    key, _, value = item.partition("=")
    return key, value


def depends_on(svc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``depends_on`` in its long form (the short list form means ``service_started``, required)."""
    deps = svc.get("depends_on") or {}
    if isinstance(deps, list):
        return {str(d): {"condition": "service_started"} for d in deps}
    return {name: _map(spec, name) for name, spec in _map(deps, "depends_on").items()}


def flag(args: list[Any], name: str) -> str:
    """The value after ``name`` in an argument list (exactly one occurrence)."""
    idx = [i for i, a in enumerate(args) if a == name]
    assert len(idx) == 1 and idx[0] + 1 < len(args), f"{name} must appear once, with a value: {args}"
    return str(args[idx[0] + 1])


def tieout_env(doc: Mapping[str, Any]) -> dict[str, str]:
    return environment(services(doc)["parse"])


def one_shots(doc: Mapping[str, Any]) -> set[str]:
    """Services something waits on to *complete*: init jobs."""
    return {
        dep
        for svc in services(doc).values()
        for dep, spec in depends_on(svc).items()
        if spec.get("condition") == "service_completed_successfully"
    }


def run_script(svc: Mapping[str, Any], extra_env: Mapping[str, str], tmp: Path) -> None:
    """Run an init service's ``entrypoint`` + ``command`` script with bash here, as its container would."""
    entrypoint = [str(a) for a in _list(svc.get("entrypoint"), "entrypoint")]
    command = [str(a) for a in _list(svc.get("command"), "command")]
    assert Path(entrypoint[0]).name == "bash", entrypoint
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), **environment(svc), **extra_env}
    proc = subprocess.run(
        [bash, *entrypoint[1:], *command], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, f"script failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"


def recorder(directory: Path, name: str, log: Path, script: str = "") -> None:
    """An executable ``name`` in ``directory``: appends its argv (JSON) to ``log``, then runs ``script``."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n    f.write(json.dumps(sys.argv[1:]) + '\\n')\n{script}",
        encoding="utf-8",
    )
    exe.chmod(0o755)


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------------------------------------------------
# The tieout services


def test_tieout_services_use_the_dockerfile_image_and_the_shared_env(raw: dict[str, Any]) -> None:
    svcs = services(raw)
    shared_env = raw.get("x-tieout-env")
    images = set()
    for name in TIEOUT_SERVICES:
        svc = svcs[name]
        build = _map(svc.get("build"), f"{name}.build")
        assert (ROOT / build.get("context", ".")).resolve() == ROOT, name
        assert build.get("dockerfile") == "infra/Dockerfile", name
        images.add(svc.get("image"))
        # Identity, not equality: YAML hands every alias of the anchor the same object, so this proves the
        # service uses the anchor itself rather than a copy that could drift.
        assert svc.get("environment") is shared_env, f"{name} must use the x-tieout-env anchor"
        assert svc.get("command") == ["consume", name]
        assert svc.get("restart") == "unless-stopped"
        assert svc.get("stop_grace_period") == "60s"
        # Without an init as PID 1, SIGTERM is not delivered to a process with no handler for it.
        assert svc.get("init") is True, name
    assert len(images) == 1 and None not in images, f"one image for all tieout services: {images}"


def test_compose_commands_exist_in_the_cli() -> None:
    result = CliRunner().invoke(app, ["consume", "--help"])
    assert result.exit_code == 0, result.output
    for role in TIEOUT_SERVICES:
        assert role in result.output


def test_parse_is_scaled_and_scaled_services_can_be(raw: dict[str, Any]) -> None:
    svcs = services(raw)
    assert _map(svcs["parse"].get("deploy"), "parse.deploy").get("replicas") == 2
    for name, svc in svcs.items():
        replicas = (svc.get("deploy") or {}).get("replicas", 1)
        if replicas > 1:
            # Replicas cannot share a container name or a host port.
            assert "container_name" not in svc, name
            assert "ports" not in svc, name


def test_every_needed_env_var_is_set_and_consistent(
    doc: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tieout_env(doc)
    missing = {k for k in REQUIRED_ENV if not env.get(k)}
    assert not missing, f"x-tieout-env lacks {sorted(missing)}"
    # The default (the hostname) is unique per replica; one value for all replicas would not be.
    assert "WORKER_ID" not in env

    svcs = services(doc)
    kafka_env = environment(svcs["kafka"])
    s3 = svcs["s3"]
    s3_args = [str(a) for a in _list(s3.get("command"), "s3.command")]
    s3_init_env = environment(svcs["s3-init"])

    assert f"PLAINTEXT://{env['KAFKA_BOOTSTRAP']}" in kafka_env["KAFKA_ADVERTISED_LISTENERS"].split(",")
    assert env["S3_ENDPOINT"] == f"http://s3{flag(s3_args, '--port')}" == s3_init_env["S3_ENDPOINT"]
    s3_env = environment(s3)
    assert (env["S3_ACCESS_KEY"], env["S3_SECRET_KEY"]) == (
        s3_env["ROOT_ACCESS_KEY"],
        s3_env["ROOT_SECRET_KEY"],
    )
    assert (env["S3_ACCESS_KEY"], env["S3_SECRET_KEY"]) == (
        s3_init_env["AWS_ACCESS_KEY_ID"],
        s3_init_env["AWS_SECRET_ACCESS_KEY"],
    )
    assert env["S3_REGION"] == flag(s3_args, "--region") == s3_init_env["AWS_DEFAULT_REGION"]
    assert env["TOPIC_PREFIX"] == environment(svcs["kafka-init"])["TOPIC_PREFIX"]

    # The services' own reading of this environment, and of nothing else (no env file: a container has none).
    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.load(env_file=tmp_path / "absent.env")
    assert settings.kafka_bootstrap == env["KAFKA_BOOTSTRAP"]
    assert settings.topic("landing") == flag(s3_args, "--event-kafka-topic")
    assert {settings.landing_bucket, settings.artifact_bucket} == set(s3_init_env["BUCKETS"].split())
    assert settings.notifications, "versitygw publishes events: the services must not announce uploads"
    _check_database_and_registry(env, svcs, settings)


def _check_database_and_registry(env: dict[str, str], svcs: dict[str, Any], settings: Settings) -> None:
    """The sink's DSN and the registry's storage name the postgres service and its one user and password."""
    pg = environment(svcs["postgres"])
    dsn = urlsplit(env["PG_DSN"])
    assert (dsn.hostname, dsn.port, dsn.path) == ("postgres", 5432, f"/{pg['POSTGRES_DB']}")
    assert (dsn.username, dsn.password) == (pg["POSTGRES_USER"], pg["POSTGRES_PASSWORD"])
    registry = environment(svcs["registry"])
    assert registry["REGISTRY_DATASOURCE_URL"].startswith("jdbc:postgresql://postgres:5432/")
    assert (registry["REGISTRY_DATASOURCE_USERNAME"], registry["REGISTRY_DATASOURCE_PASSWORD"]) == (
        pg["POSTGRES_USER"],
        pg["POSTGRES_PASSWORD"],
    )
    # the registry's own database, made by the init script the postgres service runs on its first start
    database = registry["REGISTRY_DATASOURCE_URL"].rsplit("/", 1)[1]
    init = [c for c in _list(svcs["postgres"].get("configs"), "postgres.configs") if "initdb" in c["target"]]
    assert len(init) == 1
    assert f"CREATE DATABASE {database} OWNER {pg['POSTGRES_USER']}" in _compose_config(init[0]["source"])
    assert urlsplit(env["SCHEMA_REGISTRY_URL"]).netloc == "registry:8080"
    assert (settings.pg_dsn, settings.schema_registry_url) == (env["PG_DSN"], env["SCHEMA_REGISTRY_URL"])


def _compose_config(name: str) -> str:
    return str(_map(_load_yaml(COMPOSE).get("configs"), "configs")[name]["content"])


def test_model_settings_point_each_tier_at_its_vllm_service(
    raw: dict[str, Any], serves: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tieout_env(resolve(raw, REQUIRED))
    for tier, serve in serves.items():
        assert env[f"MODEL_{tier.upper()}_NAME"] == serve["served-model-name"], tier
        assert env[f"MODEL_{tier.upper()}_URL"] == f"http://vllm-{tier}:{serve['port']}/v1", tier
    # And the services read them as two distinct endpoints.
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    endpoints = Settings.load(env_file=Path("/nonexistent/stack.env")).model_endpoints()
    assert endpoints == {
        tier: (env[f"MODEL_{tier.upper()}_URL"], serve["served-model-name"]) for tier, serve in serves.items()
    }


# ---------------------------------------------------------------------------------------------------------
# Start-up order


def test_depends_on_is_a_dag_of_known_services(doc: dict[str, Any]) -> None:
    svcs = services(doc)
    graph: dict[str, set[str]] = {}
    for name, svc in svcs.items():
        deps = depends_on(svc)
        for dep, spec in deps.items():
            assert dep in svcs, f"{name} depends on unknown service {dep}"
            assert dep != name
            assert spec.get("condition") in CONDITIONS, f"{name} -> {dep}: {spec}"
            if spec["condition"] == "service_healthy":
                # Compose refuses to start a dependant of a service that has no health check.
                assert "healthcheck" in svcs[dep], (
                    f"{name} waits for {dep} to be healthy; it has no healthcheck"
                )
            if svcs[dep].get("profiles") and not svc.get("profiles"):
                # Otherwise a plain `docker compose up` (no profile) fails on the missing dependency.
                assert spec.get("required") is False, f"{name} -> {dep} (profile {svcs[dep]['profiles']})"
        graph[name] = set(deps)
    order = list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
    assert set(order) == set(svcs)


def test_start_up_order_matches_what_each_service_needs(doc: dict[str, Any]) -> None:
    svcs = services(doc)

    def cond(name: str, dep: str) -> object:
        return depends_on(svcs[name]).get(dep, {}).get("condition")

    assert cond("kafka-init", "kafka") == "service_healthy"
    # versitygw writes a test event at start-up and exits if the topic is not there yet.
    assert cond("s3", "kafka-init") == "service_completed_successfully"
    assert cond("s3-init", "s3") == "service_healthy"
    assert cond("registry", "postgres") == "service_healthy"
    for name in TIEOUT_SERVICES:
        assert cond(name, "kafka-init") == "service_completed_successfully", name
        assert cond(name, "s3-init") == "service_completed_successfully", name
        # each registers its topics' schemas at start-up (a registry outage later is waited out: /readyz)
        assert cond(name, "registry") == "service_healthy", name
    assert cond("sink", "postgres") == "service_healthy"
    # verify needs the standard tier; the deep tier may come later (its calls go to standard meanwhile).
    assert depends_on(svcs["verify"])["vllm-standard"] == {"condition": "service_healthy", "required": False}
    assert depends_on(svcs["verify"])["vllm-deep"] == {"condition": "service_started", "required": False}


def test_long_running_services_restart_and_one_shots_do_not(doc: dict[str, Any]) -> None:
    svcs = services(doc)
    init_jobs = one_shots(doc)
    assert init_jobs == {"kafka-init", "s3-init"}
    for name, svc in svcs.items():
        restart = svc.get("restart", "no")
        if name in init_jobs:
            # A restarting one-shot never "completes successfully" and would rerun forever.
            assert restart == "no", name
        else:
            # Docker restarts a container that exits, never one that is merely unhealthy: the restart
            # policy is what keeps a service up; health checks gate the start of its dependants.
            assert restart in LONG_RUNNING_RESTART, f"{name}: restart={restart!r}"
            assert "healthcheck" in svc or name in TIEOUT_SERVICES, f"{name} has no healthcheck"


# ---------------------------------------------------------------------------------------------------------
# Kafka and the object store


def test_kafka_is_a_single_kraft_node(doc: dict[str, Any]) -> None:
    kafka = services(doc)["kafka"]
    assert kafka["image"] == "apache/kafka:4.1.0"
    env = environment(kafka)
    node = env["KAFKA_NODE_ID"]
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == f"{node}@kafka:9093"
    assert env["KAFKA_CONTROLLER_LISTENER_NAMES"] == "CONTROLLER"
    protocols = dict(p.split(":") for p in env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(","))
    listeners = {entry.split("://")[0] for entry in env["KAFKA_LISTENERS"].split(",")}
    assert listeners <= set(protocols), "every listener needs a security protocol"
    for key in (
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR",
        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR",
        "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR",
    ):
        assert env[key] == "1", key
    assert env["KAFKA_NUM_PARTITIONS"] == "4"
    test = [str(a) for a in _list(_map(kafka.get("healthcheck"), "healthcheck").get("test"), "test")]
    assert test[0] == "CMD" and test[1] == "/opt/kafka/bin/kafka-broker-api-versions.sh"


def test_kafka_init_creates_exactly_the_contract_topics(doc: dict[str, Any], tmp_path: Path) -> None:
    svcs = services(doc)
    init = svcs["kafka-init"]
    assert init["image"] == svcs["kafka"]["image"], "topic tool and broker from the same release"
    log = tmp_path / "kafka-topics.log"
    recorder(tmp_path / "bin", "kafka-topics.sh", log)  # prints nothing: --describe finds no leaderless one
    run_script(init, {"KAFKA_BIN": str(tmp_path / "bin")}, tmp_path)

    env = tieout_env(doc)
    created = []
    for argv in calls(log):
        assert flag(argv, "--bootstrap-server") == env["KAFKA_BOOTSTRAP"]
        if "--create" in argv:
            assert "--if-not-exists" in argv, "re-running the init job must not fail"
            assert flag(argv, "--partitions") == "4"
            assert flag(argv, "--replication-factor") == "1"
            created.append(flag(argv, "--topic"))
    assert sorted(created) == sorted({env["TOPIC_PREFIX"] + t.name for t in TOPOLOGY.topics})
    # Each topic is then checked for partitions without a leader before the job may complete.
    described = [flag(a, "--topic") for a in calls(log) if "--unavailable-partitions" in a]
    assert sorted(described) == sorted(created)


def test_versitygw_publishes_to_the_landing_topic(doc: dict[str, Any]) -> None:
    raw_configs = _map(doc.get("configs"), "configs")
    s3 = services(doc)["s3"]
    assert s3["image"] == "versity/versitygw:v1.8.0"
    args = [str(a) for a in _list(s3.get("command"), "s3.command")]
    env = tieout_env(doc)
    assert flag(args, "--event-kafka-topic") == env["TOPIC_PREFIX"] + Topic.LANDING
    assert flag(args, "--event-kafka-url") == env["KAFKA_BOOTSTRAP"]
    # The backend and its directory come last; the directory must be the named volume.
    assert args[-2] == "posix"
    mounts = [str(v) for v in _list(s3.get("volumes"), "s3.volumes")]
    assert any(m.split(":")[1] == args[-1] for m in mounts), mounts
    # The event filter file is a compose config mounted where the flag says.
    targets = {c["target"]: c["source"] for c in _list(s3.get("configs"), "s3.configs")}
    source = targets[flag(args, "--event-filter")]
    event_filter = json.loads(_map(raw_configs[source], source)["content"])
    assert event_filter.get("s3:ObjectCreated:*") is True
    test = " ".join(str(a) for a in _map(s3.get("healthcheck"), "healthcheck")["test"])
    assert f"127.0.0.1{flag(args, '--port')}{flag(args, '--health')}" in test


def test_s3_init_creates_both_buckets_idempotently(doc: dict[str, Any], tmp_path: Path) -> None:
    init = services(doc)["s3-init"]
    env = tieout_env(doc)
    # First run: no bucket exists (head-bucket fails), so both are created.
    log = tmp_path / "aws.log"
    recorder(tmp_path / "bin", "aws", log, "if 'head-bucket' in sys.argv:\n    sys.exit(254)\n")
    run_script(init, {"PATH": f"{tmp_path / 'bin'}:{os.environ.get('PATH', '')}"}, tmp_path)
    argvs = calls(log)
    # versitygw only understands path-style requests.
    assert argvs[0] == ["configure", "set", "default.s3.addressing_style", "path"]
    for argv in argvs[1:]:
        assert flag(argv, "--endpoint-url") == env["S3_ENDPOINT"]
    created = {flag(a, "--bucket") for a in argvs if "create-bucket" in a}
    assert created == {env["LANDING_BUCKET"], env["ARTIFACT_BUCKET"]}

    # Second run: both exist, nothing is created.
    log2 = tmp_path / "aws2.log"
    recorder(tmp_path / "bin2", "aws", log2)
    run_script(init, {"PATH": f"{tmp_path / 'bin2'}:{os.environ.get('PATH', '')}"}, tmp_path)
    assert not [a for a in calls(log2) if "create-bucket" in a]


def test_named_network_and_named_volumes_only(raw: dict[str, Any]) -> None:
    networks = _map(raw.get("networks"), "networks")
    volumes = _map(raw.get("volumes"), "volumes")
    for net, spec in networks.items():
        assert _map(spec, net).get("name"), f"network {net} needs a fixed name"
    for name, svc in services(raw).items():
        svc_nets = svc.get("networks")
        assert svc_nets, f"{name} would join the implicit default network"
        assert set(svc_nets) <= set(networks), name
        for mount in svc.get("volumes", []):
            if isinstance(mount, dict):
                assert mount.get("type") == "volume", f"{name}: {mount}"
                source = str(mount.get("source"))
            else:
                source = str(mount).split(":")[0]
            assert source in volumes, f"{name}: {mount} is not a declared named volume (bind mount?)"


# ---------------------------------------------------------------------------------------------------------
# vLLM


def test_vllm_tiers_are_behind_the_gpu_profile_and_read_their_serve_files(
    raw: dict[str, Any], serves: dict[str, dict[str, Any]]
) -> None:
    svcs = services(raw)
    assert [n for n, s in svcs.items() if s.get("profiles")] == [f"vllm-{t}" for t in SERVE], (
        "everything else runs without a GPU"
    )
    gpus: dict[str, set[str]] = {}
    for tier, serve in serves.items():
        vllm = svcs[f"vllm-{tier}"]
        assert vllm.get("profiles") == ["gpu"]
        assert re.fullmatch(r"vllm/vllm-openai:v\d+\.\d+\.\d+", str(vllm["image"])), "pin a release tag"

        command = [str(a) for a in _list(vllm.get("command"), "vllm.command")]
        mounted = {c["target"]: c["source"] for c in _list(vllm.get("configs"), "vllm.configs")}
        source = mounted[flag(command, "--config")]
        config_file = _map(_map(raw.get("configs"), "configs")[source], source)["file"]
        assert (ROOT / config_file).resolve() == SERVE[tier].resolve(), tier

        devices = _list(vllm["deploy"]["resources"]["reservations"]["devices"], "devices")
        assert len(devices) == 1 and devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
        gpus[tier] = {str(d) for d in devices[0]["device_ids"]}
        gpus_needed = serve["tensor-parallel-size"] * serve.get("pipeline-parallel-size", 1)
        assert len(gpus[tier]) == gpus_needed, f"{tier}: GPUs must match the parallelism of its serve file"

        test = " ".join(str(a) for a in _map(vllm.get("healthcheck"), "healthcheck")["test"])
        assert f":{serve['port']}/health" in test
        assert vllm.get("restart") in LONG_RUNNING_RESTART
    assert not gpus["standard"] & gpus["deep"], "each tier has GPUs of its own"


@pytest.mark.parametrize("tier", list(SERVE))
def test_serve_file_has_the_required_settings(serves: dict[str, dict[str, Any]], tier: str) -> None:
    serve = serves[tier]
    # vLLM turns each key into "--key"; dashes are the documented spelling.
    assert all("_" not in key for key in serve), [k for k in serve if "_" in k]
    assert isinstance(serve["model"], str) and "/" in serve["model"]
    assert isinstance(serve["served-model-name"], str) and serve["served-model-name"]
    assert serve["enable-prefix-caching"] is True
    assert serve["enable-chunked-prefill"] is True
    assert serve["kv-cache-dtype"] == "fp8"
    assert 0.5 <= serve["gpu-memory-utilization"] <= 0.95
    max_len, seqs, batched = serve["max-model-len"], serve["max-num-seqs"], serve["max-num-batched-tokens"]
    assert all(isinstance(v, int) and v > 0 for v in (max_len, seqs, batched))
    # vLLM refuses to start when a step cannot hold one token per running sequence.
    assert batched >= seqs
    backend = _map(serve["structured-outputs-config"], "structured-outputs-config")["backend"]
    # A named backend, not "auto": vLLM falls back to another engine only from auto.
    assert backend in {"xgrammar", "guidance", "outlines", "lm-format-enforcer"}
    # A context longer than the checkpoint's needs RoPE scaling that covers it, and (vLLM 0.32, as
    # Transformers) max_position_embeddings overridden to the scaled length.
    overrides = serve.get("hf-overrides") or {}
    rope = overrides.get("rope_parameters")
    if rope:
        scaled = rope["factor"] * rope["original_max_position_embeddings"]
        assert scaled >= max_len
        assert overrides.get("max_position_embeddings") == scaled
    if tier == "deep":
        assert max_len >= 131072, "a long-context configuration"
        assert serve["tensor-parallel-size"] == 2
        assert max_len > serves["standard"]["max-model-len"], "the deep tier has the longer window"
    other = "deep" if tier == "standard" else "standard"
    assert serve["served-model-name"] != serves[other]["served-model-name"], "two distinct served models"


# ---------------------------------------------------------------------------------------------------------
# The Dockerfile


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """(INSTRUCTION, arguments) per stage, continuation lines joined, comments dropped."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    stages: list[list[tuple[str, str]]] = []
    for line in joined.splitlines():
        if not line.strip():
            continue
        instruction, _, args = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        assert stages, "instructions before the first FROM"
        stages[-1].append((instruction.upper(), args.strip()))
    return stages


def test_dockerfile_is_multi_stage_on_python_slim_and_runs_as_non_root() -> None:
    stages = dockerfile_stages()
    assert len(stages) >= 2
    bases = [args.split()[0] for stage in stages for ins, args in stage if ins == "FROM"]
    assert all(b.startswith("python:3.11-slim") for b in bases), bases
    final = stages[-1]
    users = [args for ins, args in final if ins == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}, users
    entrypoints = [args for ins, args in final if ins == "ENTRYPOINT"]
    assert entrypoints and json.loads(entrypoints[-1]) == ["tieout"], "exec form, so tieout gets SIGTERM"
    env: dict[str, str] = {}
    for ins, args in final:
        if ins == "ENV":
            env.update(_key_value(tok) for tok in shlex.split(args))
    assert env.get("PYTHONUNBUFFERED") == "1"
    final_runs = " ".join(args for ins, args in final if ins == "RUN")
    assert not re.search(r"apt-get install|build-essential|\bgcc\b", final_runs), "no compilers in the image"
    assert any(ins == "COPY" and "--from=" in args for ins, args in final), "final stage copies the build"


def test_dockerfile_installs_runtime_deps_with_the_lock_as_constraints() -> None:
    stages = dockerfile_stages()
    runs = [args for stage in stages for ins, args in stage if ins == "RUN"]
    installs = [r for r in runs if "pip install" in r]
    assert any(
        re.search(r"pip install (?:\S+ )*-c requirements\.lock (?:\S+ )*\.(?:\s|$)", r) for r in installs
    )
    # -r would install the dev and bench extras the lock also pins.
    assert not any(re.search(r"-r\s+requirements\.lock", r) for r in installs)

    copied = {
        src.rstrip("/")
        for stage in stages
        for ins, args in stage
        if ins == "COPY" and "--from=" not in args
        for src in shlex.split(args)[:-1]
        if not src.startswith("--")
    }
    for src in copied:
        assert (ROOT / src).exists(), f"COPY {src}: no such file"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert packages <= copied, f"packages not copied into the build: {packages - copied}"
    assert {"requirements.lock", "pyproject.toml", project["project"]["readme"]} <= copied


def _lock_names() -> set[str]:
    names: set[str] = set()
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", line)
        if m:
            names.add(canonicalize_name(m.group(1)))
    return names


def test_lock_pins_the_whole_runtime_dependency_closure() -> None:
    # -c only pins what it names: a runtime dependency missing from the lock would be installed unpinned.
    # Walked over the installed distributions' metadata (the venv is synced from the same lock).
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pending = [Requirement(r) for r in project["project"]["dependencies"]]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        req = pending.pop()
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = importlib.metadata.requires(req.name) or []
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{req.name} is not installed: run `make venv`")
        for line in requires:
            dep = Requirement(line)
            # A dependency behind an extra counts only when that extra was asked for.
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in {"", *req.extras}):
                pending.append(dep)
    missing = {name for name, _ in seen} - _lock_names()
    assert not missing, f"runtime dependencies not pinned in requirements.lock: {sorted(missing)}"


# ---------------------------------------------------------------------------------------------------------
# Compose's own validation


def test_docker_compose_config_validates(tmp_path: Path) -> None:
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("docker CLI not installed")
    # `docker compose config` needs no engine, but it needs the compose plugin, which a bare CLI install
    # (docker-ce-cli without docker-compose-plugin) does not have.
    version = subprocess.run(
        [docker, "compose", "version"], capture_output=True, text=True, timeout=60, check=False
    )
    if version.returncode != 0:
        pytest.skip(f"docker CLI has no compose plugin: {version.stderr.strip() or version.stdout.strip()}")
    # A clean environment and an empty env file: neither a developer's shell nor a .env beside the compose
    # file may change what is validated.
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "DOCKER_CONFIG"}}
    empty = tmp_path / "empty.env"
    empty.write_text("", encoding="utf-8")
    refused = subprocess.run(
        [docker, "compose", "--env-file", str(empty), "-f", str(COMPOSE), "config", "--quiet"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode != 0 and any(name in refused.stderr for name in REQUIRED)
    required = tmp_path / "required.env"
    required.write_text("".join(f"{k}={v}\n" for k, v in REQUIRED.items()), encoding="utf-8")
    base = [docker, "compose", "--env-file", str(required), "-f", str(COMPOSE)]
    for profile in ([], ["--profile", "gpu"]):
        proc = subprocess.run(
            [*base, *profile, "config", "--quiet"], env=env, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, f"docker compose {' '.join(profile)} config:\n{proc.stderr}"
    # And this test's reading of the file agrees with Compose's on what the services get.
    proc = subprocess.run(
        [*base, "config", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    compose_view = _map(json.loads(proc.stdout), "compose config")
    ours = resolve(_load_yaml(COMPOSE), REQUIRED)
    for name in (*TIEOUT_SERVICES, "kafka-init", "s3-init", "s3", "postgres", "registry"):
        assert environment(services(compose_view)[name]) == environment(services(ours)[name]), name


def test_compose_refuses_to_start_without_a_secret(raw: dict[str, Any]) -> None:
    # Regression: S3_SECRET_KEY fell back to a secret published in the file.
    with pytest.raises(AssertionError, match="compose requires S3_SECRET_KEY"):
        resolve(raw, {})
    # nor a database password (the sink's and the registry's)
    with pytest.raises(AssertionError, match="compose requires PG_PASSWORD"):
        resolve(raw, {"S3_SECRET_KEY": "secret-x"})
    assert "tieout-local-secret" not in COMPOSE.read_text(encoding="utf-8")
