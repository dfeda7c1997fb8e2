"""The Helm chart (infra/helm/tieout): what a deployment relies on, checked on real renders.

The integration tests render the chart with the Helm and kubeconform that ``bash infra/helm.sh fetch``
fetches (``.tieout/helm.env``; without it they fail under CI and skip elsewhere) and read the manifests
back: probes, KEDA triggers against the consumer groups and topics the services really use, no inlined
credential, grace periods against the processing budget, topics, resources, and schema validation that
rejects broken manifests. The tests above them read values.yaml and the schema converter directly.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from adapters.settings import Settings
from schemas.topology import TOPOLOGY
from tests.integration.conftest import started

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "infra" / "helm" / "tieout"
SCHEMAS = REPO / "infra" / "helm" / "schemas"
PRODUCTION = CHART / "values-production.yaml"
HELM_ENV = Path(os.environ.get("TIEOUT_HELM_ENV", REPO / ".tieout" / "helm.env"))
STAGES = [s.name.value for s in TOPOLOGY.stages]
TOPICS = [t.name.value for t in TOPOLOGY.topics]
INPUT_TOPIC = {s.name.value: s.input.value for s in TOPOLOGY.stages}
# Measured peak RSS in MB (bench/README.md, the load run); the chart's requests must cover them.
MEASURED_PEAK_MB = {"parse": 161 + 246, "verify": 144, "sink": 333}
SENTINEL = "s3cr3t-sentinel"

Doc = dict[str, Any]
Render = Callable[..., Any]
"""``render(*value_files, set={...}, raw=False)``: the chart's manifests (or its text with raw=True)."""


def _values() -> Doc:
    doc: Doc = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    return doc


def _mebibytes(quantity: str) -> float:
    """A memory quantity (``512Mi``, ``1Gi``, ``400M``, bytes) in MiB."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?", str(quantity))
    assert m, f"not a memory quantity: {quantity!r}"
    factor = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024**2, "k": 1e3 / 2**20, "M": 1e6 / 2**20,
              "G": 1e9 / 2**20, "T": 1e12 / 2**20, None: 1 / 2**20}[m.group(2)]  # fmt: skip
    return float(m.group(1)) * factor


def _vendor() -> ModuleType:
    spec = importlib.util.spec_from_file_location("helm_schema_vendor", SCHEMAS / "vendor.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------- values


@pytest.mark.parametrize("tier", ["standard", "deep"])
def test_vllm_serve_config_is_the_repository_file(tier: str) -> None:
    """The chart's vLLM config is infra/vllm/serve-<tier>.yaml, key for key and type for type (4.0 float)."""
    chart = yaml.safe_load(_values()["vllm"][tier]["serveConfig"])
    repo = yaml.safe_load((REPO / "infra" / "vllm" / f"serve-{tier}.yaml").read_text(encoding="utf-8"))
    assert chart == repo
    if tier == "deep":
        assert isinstance(chart["hf-overrides"]["rope_parameters"]["factor"], float)


@pytest.mark.parametrize("values_file", [CHART / "values.yaml", PRODUCTION], ids=lambda p: p.name)
def test_values_name_every_topic_and_stage_of_the_topology(values_file: Path) -> None:
    values = yaml.safe_load(values_file.read_text(encoding="utf-8"))
    assert list(values["topics"]) == TOPICS
    assert list(values["stages"]) == STAGES
    for stage in STAGES:
        auto = values["stages"][stage]["autoscaling"]
        assert {"minReplicas", "maxReplicas", "lagThreshold"} <= set(auto)
        assert auto["maxReplicas"] <= values["topics"][INPUT_TOPIC[stage]]["partitions"]


def _template(name: str) -> str:
    return (CHART / "templates" / name).read_text(encoding="utf-8")


def _listed(template: str, variable: str) -> list[str]:
    """The strings a template ranges ``variable`` over: ``range $<variable> := list "a" "b"``."""
    (items,) = re.findall(rf"range \${variable} := list ((?:\"[^\"]*\" ?)+)", template)
    return re.findall(r'"([^"]*)"', items)


def test_templates_range_over_the_topologys_topics_and_stages() -> None:
    """The chart cannot import the table: its literal lists and map must equal it."""
    assert _listed(_template("kafkatopics.yaml"), "topic") == TOPICS
    assert _listed(_template("stages.yaml"), "stage") == STAGES
    (pairs,) = re.findall(
        r'define "tieout.inputTopic".*?get \(dict ([^)]*)\)', _template("_helpers.tpl"), re.S
    )
    words = re.findall(r'"([^"]*)"', pairs)
    assert dict(zip(words[::2], words[1::2], strict=True)) == INPUT_TOPIC


def test_scaled_objects_name_the_group_each_service_joins() -> None:
    """The chart writes the group as ``<topicPrefix><stage>``: each stage's group is its name."""
    stages = _template("stages.yaml")
    assert 'consumerGroup: {{ printf "%s%s" $.Values.topicPrefix $stage | quote }}' in stages
    assert 'topic: {{ printf "%s%s" $.Values.topicPrefix $input | quote }}' in stages
    assert [s.group for s in TOPOLOGY.stages] == STAGES


def test_chart_readme_names_the_topologys_topics_and_stages() -> None:
    readme = " ".join((CHART / "README.md").read_text(encoding="utf-8").split())
    (names,) = re.findall(r"`<name>` is one of ([a-z, ]+);", readme)
    assert names.split(", ") == TOPICS
    (stages,) = re.findall(r"`<stage>` one of ([a-z, ]+);", readme)
    assert stages.split(", ") == STAGES
    reads = re.findall(r"`(\w+)`(?: reads)? `<topicPrefix>(\w+)`", readme)
    assert dict(reads) == INPUT_TOPIC


def test_resources_cover_the_measured_peaks() -> None:
    """Requests cover bench/README.md's peak RSS; parse's limit leaves room for the worker's own quota."""
    stages = _values()["stages"]
    for stage, peak_mb in MEASURED_PEAK_MB.items():
        res = stages[stage]["resources"]
        request = _mebibytes(res["requests"]["memory"])
        limit = _mebibytes(res["limits"]["memory"])
        assert peak_mb * 1e6 / 2**20 < request <= limit, stage
        assert res["requests"]["cpu"] and res["limits"]["cpu"]
    # RSS <= address space: with the limit above quota + service, the worker's RLIMIT_AS fires first.
    parse = stages["parse"]
    assert _mebibytes(parse["resources"]["limits"]["memory"]) >= parse["workerMemoryMb"] + 161


# ---------------------------------------------------------------------------------------------- vendor.py


def test_vendor_file_names_follow_kubeconforms_template() -> None:
    vendor = _vendor()
    assert vendor.file_name("apps", "v1", "Deployment") == "deployment-apps-v1.json"
    assert vendor.file_name("", "v1", "Service") == "service-v1.json"
    assert vendor.file_name("keda.sh", "v1alpha1", "ScaledObject") == "scaledobject-keda-v1alpha1.json"
    assert vendor.file_name("kafka.strimzi.io", "v1", "KafkaTopic") == "kafkatopic-kafka-v1.json"
    assert vendor.file_name("policy", "v1", "PodDisruptionBudget") == "poddisruptionbudget-policy-v1.json"


def test_vendor_closes_objects_and_widens_kubernetes_scalars() -> None:
    vendor = _vendor()
    definitions = {
        "x.Thing": {
            "type": "object",
            "description": "dropped",
            "properties": {
                "port": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
                "memory": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "x-kubernetes-group-version-kind": [{"group": "x.io", "version": "v1", "kind": "Thing"}],
        },
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
        "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
        "x.Unused": {"type": "object"},
    }
    schema = vendor.k8s_kind(definitions, "x.io", "v1", "Thing")
    assert schema["additionalProperties"] is False
    assert "description" not in schema
    assert schema["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    assert set(schema["definitions"]) == {
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
    }
    int_or_string = schema["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
    assert {"type": "integer"} in int_or_string["anyOf"] and {"type": "string"} in int_or_string["anyOf"]
    assert schema["properties"]["kind"]["enum"] == ["Thing"]
    assert schema["properties"]["apiVersion"]["enum"] == ["x.io/v1"]
    # CRD objects that keep unknown fields stay open; nullable becomes a JSON Schema null type.
    crd = vendor.strict(
        {
            "type": "object",
            "properties": {
                "open": {
                    "type": "object",
                    "properties": {"a": {}},
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "maybe": {"type": "string", "nullable": True},
            },
        }
    )
    assert "additionalProperties" not in crd["properties"]["open"]
    assert crd["properties"]["maybe"]["type"] == ["string", "null"]


# ---------------------------------------------------------------------------------------------- renders


@pytest.fixture(scope="module")
def tools() -> dict[str, str]:
    return started(HELM_ENV, "HELM", "Helm (built by infra/helm.sh)", "bash infra/helm.sh fetch")


def _run(cmd: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def render(tools: dict[str, str]) -> Render:
    """Render the chart: ``render(*value_files, set={...})`` -> the manifests; failure raises with stderr."""

    def _render(*files: Path, set: dict[str, str] | None = None, raw: bool = False) -> Any:
        cmd = [tools["HELM"], "template", "tieout", str(CHART), "--namespace", "tieout"]
        cmd += ["--kube-version", tools.get("HELM_KUBE_VERSION") or "v1.36.3"]
        for f in files:
            cmd += ["-f", str(f)]
        for key, value in (set or {}).items():
            cmd += ["--set-string" if isinstance(value, str) else "--set", f"{key}={value}"]
        proc = _run(cmd)
        if proc.returncode:
            raise RenderError(proc.stderr)
        if raw:
            return proc.stdout
        return [d for d in yaml.safe_load_all(proc.stdout) if d]

    return _render


class RenderError(Exception):
    """helm template refused the values (its stderr)."""


def _kind(docs: list[Doc], kind: str) -> dict[str, Doc]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def _stage_deployment(docs: list[Doc], stage: str) -> Doc:
    (dep,) = [
        d
        for d in docs
        if d["kind"] == "Deployment"
        and d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] == stage
    ]
    return dep


def _container(dep: Doc) -> Doc:
    (container,) = dep["spec"]["template"]["spec"]["containers"]
    c: Doc = container
    return c


def _env_config(docs: list[Doc]) -> dict[str, str]:
    (cm,) = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-env")]
    data: dict[str, str] = cm["data"]
    return data


@pytest.fixture(scope="module")
def default_docs(render: Render) -> list[Doc]:
    docs: list[Doc] = render()
    return docs


@pytest.fixture(scope="module")
def production_docs(render: Render) -> list[Doc]:
    docs: list[Doc] = render(PRODUCTION)
    return docs


@pytest.fixture(scope="module", params=["default", "production"])
def docs(
    request: pytest.FixtureRequest, default_docs: list[Doc], production_docs: list[Doc]
) -> Iterator[list[Doc]]:
    yield default_docs if request.param == "default" else production_docs


@pytest.mark.integration
@pytest.mark.parametrize("stage", STAGES)
def test_stage_runs_its_consumer_with_probes_on_the_metrics_port(docs: list[Doc], stage: str) -> None:
    dep = _stage_deployment(docs, stage)
    c = _container(dep)
    assert c["args"][:2] == ["consume", stage]
    env = _env_config(docs)
    (port,) = [p for p in c["ports"] if p["name"] == "metrics"]
    # The service listens where the probes knock: METRICS_PORT on all addresses of the pod.
    assert str(port["containerPort"]) == env["METRICS_PORT"]
    assert env["METRICS_HOST"] == "0.0.0.0"
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    assert c["resources"]["requests"]["memory"] and c["resources"]["limits"]["memory"]
    assert c["resources"]["requests"]["cpu"]
    # The settings the service reads come from the chart's ConfigMap.
    assert {"configMapRef": {"name": _env_config_name(docs)}} in c["envFrom"]


def _env_config_name(docs: list[Doc]) -> str:
    (name,) = [
        d["metadata"]["name"]
        for d in docs
        if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-env")
    ]
    return str(name)


@pytest.mark.integration
@pytest.mark.parametrize("prefix", ["tieout.", "acme-prod_"])
def test_scaled_objects_watch_the_group_and_topic_each_service_uses(render: Render, prefix: str) -> None:
    docs = render(set={"topicPrefix": prefix})
    assert _env_config(docs)["TOPIC_PREFIX"] == prefix
    settings = Settings(topic_prefix=prefix)
    scaled = _kind(docs, "ScaledObject")
    assert len(scaled) == len(STAGES)
    for stage in STAGES:
        dep = _stage_deployment(docs, stage)
        (so,) = [s for s in scaled.values() if s["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"]]
        (trigger,) = so["spec"]["triggers"]
        assert trigger["type"] == "kafka"
        meta = trigger["metadata"]
        # consumers/wiring.py: group_id=f"{settings.topic_prefix}{spec.group}",
        # topics=[settings.topic(spec.input)]
        spec = TOPOLOGY.stage(stage)
        assert meta["consumerGroup"] == f"{settings.topic_prefix}{spec.group}"
        assert meta["topic"] == settings.topic(spec.input)
        assert meta["bootstrapServers"] == _env_config(docs)["KAFKA_BOOTSTRAP"]
        # KEDA scales a Deployment it owns: no fixed replica count to fight over.
        assert "replicas" not in dep["spec"]


@pytest.mark.integration
def test_max_replicas_never_exceed_the_input_topics_partitions(production_docs: list[Doc]) -> None:
    topics = {
        t["spec"]["topicName"]: t["spec"]["partitions"] for t in _kind(production_docs, "KafkaTopic").values()
    }
    for so in _kind(production_docs, "ScaledObject").values():
        (trigger,) = so["spec"]["triggers"]
        assert (
            1
            <= so["spec"]["minReplicaCount"]
            <= so["spec"]["maxReplicaCount"]
            <= topics[trigger["metadata"]["topic"]]
        )


@pytest.mark.integration
def test_more_replicas_than_partitions_is_refused(render: Render) -> None:
    with pytest.raises(
        RenderError, match=r"stages\.verify\.autoscaling\.maxReplicas \(5\) exceeds topics\.parsed"
    ):
        render(set={"stages.verify.autoscaling.maxReplicas": 5, "topics.parsed.partitions": 4})
    # The same replicas fit once the topic has the partitions.
    render(set={"stages.verify.autoscaling.maxReplicas": 5, "topics.parsed.partitions": 8})


@pytest.mark.integration
def test_no_credential_is_inlined(render: Render) -> None:
    """Every credential given as a secret input ends up in the chart's Secret only, read via secretKeyRef."""
    creds = [
        "s3AccessKey", "s3SecretKey", "kafkaUsername", "kafkaPassword", "pgDsn", "modelApiKey", "hfToken",
        "consoleUsers", "consoleSessionSecret",
    ]  # fmt: skip
    sets: dict[str, str] = {f"secrets.values.{c}": f"{SENTINEL}-{c}" for c in creds}
    flags = {
        "secrets.create": "true", "database.enabled": "true", "console.enabled": "true",
        "vllm.enabled": "true", "vllm.hfToken": "true", "model.apiKey.enabled": "true",
        "kafka.securityProtocol": "SASL_SSL",
    }  # fmt: skip
    raw: str = render(set={**sets, **flags}, raw=True)
    docs = [d for d in yaml.safe_load_all(raw) if d]
    secrets = [d for d in docs if d["kind"] == "Secret"]
    assert len(secrets) == 1
    stored = {k: base64.b64decode(v).decode() for k, v in secrets[0]["data"].items()}
    # All of them reached the Secret (so the search below looks for something that is there) ...
    assert sorted(stored.values()) == sorted(sets.values())
    # ... and nowhere else, neither in clear nor base64-encoded.
    for doc in docs:
        if doc["kind"] == "Secret":
            continue
        text = yaml.safe_dump(doc)
        assert SENTINEL not in text, f"{doc['kind']} {doc['metadata']['name']} carries a credential"
        for value in sets.values():
            assert base64.b64encode(value.encode()).decode() not in text
    # The containers read each credential through secretKeyRef, never a literal value.
    secret_name = secrets[0]["metadata"]["name"]
    seen: set[str] = set()
    for dep in _kind(docs, "Deployment").values():
        for c in dep["spec"]["template"]["spec"]["containers"]:
            for var in c.get("env", []):
                if re.search(r"KEY|PASSWORD|USERNAME|DSN|TOKEN|SECRET", var["name"]):
                    assert "value" not in var, var
                    ref = var["valueFrom"]["secretKeyRef"]
                    assert ref["name"] == secret_name and ref["key"] in stored
                    seen.add(var["name"])
    assert seen >= {"S3_ACCESS_KEY", "S3_SECRET_KEY", "KAFKA_USERNAME", "KAFKA_PASSWORD", "PG_DSN",
                    "MODEL_API_KEY", "HF_TOKEN"}  # fmt: skip


@pytest.mark.integration
def test_production_values_reference_existing_secrets_only(production_docs: list[Doc]) -> None:
    assert not [d for d in production_docs if d["kind"] == "Secret"]
    prod = yaml.safe_load(PRODUCTION.read_text(encoding="utf-8"))
    for dep in _kind(production_docs, "Deployment").values():
        for c in dep["spec"]["template"]["spec"]["containers"]:
            for var in c.get("env", []):
                if "valueFrom" in var:
                    ref = var["valueFrom"]["secretKeyRef"]
                    assert {"name": ref["name"], "key": ref["key"]} in prod["secrets"].values()


@pytest.mark.integration
def test_secret_inputs_without_create_are_refused(render: Render) -> None:
    with pytest.raises(RenderError, match=r"secrets\.create is false"):
        render(set={"secrets.values.s3SecretKey": SENTINEL})


@pytest.mark.integration
@pytest.mark.parametrize("timeout_s", [300, 900])
def test_grace_period_outlasts_the_processing_budget(render: Render, timeout_s: int) -> None:
    docs = render(set={"processing.documentTimeoutSeconds": timeout_s})
    # consumers/wiring.py: max_processing_s = config.timeout_s + 60, the longest a message may be in hand.
    budget = timeout_s + 60
    deadline = float(_env_config(docs)["MODEL_DEADLINE_S"])
    assert deadline < budget
    for stage in STAGES:
        dep = _stage_deployment(docs, stage)
        c = _container(dep)
        assert c["args"][c["args"].index("--timeout") + 1] == str(timeout_s)
        assert dep["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > budget


@pytest.mark.integration
def test_model_deadline_beyond_the_budget_is_refused(render: Render) -> None:
    with pytest.raises(RenderError, match=r"model\.deadlineSeconds \(400\) must be below"):
        render(set={"model.deadlineSeconds": 400})


@pytest.mark.integration
def test_kafka_topics_follow_the_values(render: Render) -> None:
    docs = render(PRODUCTION, set={"topics.parsed.partitions": 24, "topics.dlq.retentionMs": 7776000000})
    prod = yaml.safe_load(PRODUCTION.read_text(encoding="utf-8"))
    topics = {t["spec"]["topicName"]: t for t in _kind(docs, "KafkaTopic").values()}
    assert set(topics) == {f"tieout.{t}" for t in TOPICS}
    for name in TOPICS:
        spec = topics[f"tieout.{name}"]["spec"]
        want = 24 if name == "parsed" else prod["topics"][name]["partitions"]
        assert spec["partitions"] == want
        retention = 7776000000 if name == "dlq" else prod["topics"][name]["retentionMs"]
        # An integer, not Helm's float64 rendering (7.776e+09).
        assert spec["config"]["retention.ms"] == retention and isinstance(spec["config"]["retention.ms"], int)
        assert (
            topics[f"tieout.{name}"]["metadata"]["labels"]["strimzi.io/cluster"] == prod["strimzi"]["cluster"]
        )
    # Off by default.
    assert not _kind(render(), "KafkaTopic")


@pytest.mark.integration
def test_vllm_tiers_run_on_gpus_with_the_repository_config(production_docs: list[Doc]) -> None:
    env = _env_config(production_docs)
    configs = _kind(production_docs, "ConfigMap")
    for tier in ("standard", "deep"):
        (dep,) = [
            d
            for d in _kind(production_docs, "Deployment").values()
            if d["metadata"]["name"].endswith(f"vllm-{tier}")
        ]
        serve = yaml.safe_load(configs[dep["metadata"]["name"]]["data"]["serve.yaml"])
        assert serve == yaml.safe_load((REPO / f"infra/vllm/serve-{tier}.yaml").read_text(encoding="utf-8"))
        pod = dep["spec"]["template"]["spec"]
        c = _container(dep)
        assert c["resources"]["limits"]["nvidia.com/gpu"] == serve["tensor-parallel-size"]
        assert pod["nodeSelector"]["nvidia.com/gpu.present"] == "true"
        assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
        # The services call this server under the name it serves.
        assert env[f"MODEL_{tier.upper()}_NAME"] == serve["served-model-name"]
        assert env[f"MODEL_{tier.upper()}_URL"].endswith(f"vllm-{tier}:{serve['port']}/v1")


@pytest.mark.integration
def test_vllm_is_off_by_default(default_docs: list[Doc]) -> None:
    assert not [n for n in _kind(default_docs, "Deployment") if "vllm" in n]
    env = _env_config(default_docs)
    assert not [k for k in env if k.startswith("MODEL_") and k.endswith("_URL")]


# ---------------------------------------------------------------------------------------------- kubeconform


def _kubeconform(tools: dict[str, str], manifests: str) -> subprocess.CompletedProcess[str]:
    schemas = tools.get("HELM_SCHEMAS") or str(SCHEMAS)
    cmd = [tools["KUBECONFORM"], "-strict", "-summary", "-schema-location",
           f"{schemas}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json", "-"]  # fmt: skip
    return _run(cmd, stdin=manifests)


@pytest.mark.integration
@pytest.mark.parametrize("values", ["default", "production"])
def test_renders_validate_against_the_vendored_schemas(
    tools: dict[str, str], render: Callable[..., Any], values: str
) -> None:
    raw = render(PRODUCTION, raw=True) if values == "production" else render(raw=True)
    proc = _kubeconform(tools, raw)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Invalid: 0, Errors: 0, Skipped: 0" in proc.stdout


def _broken(docs: list[Doc], kind: str, breaker: Callable[[Doc], None]) -> str:
    doc = json.loads(json.dumps(next(d for d in docs if d["kind"] == kind)))
    breaker(doc)
    return yaml.safe_dump(doc)


def _misspell_probe(d: Doc) -> None:
    c = d["spec"]["template"]["spec"]["containers"][0]
    c["livenesProbe"] = c.pop("livenessProbe")


def _drop_trigger_metadata(d: Doc) -> None:
    del d["spec"]["triggers"][0]["metadata"]


def _partitions_as_text(d: Doc) -> None:
    d["spec"]["partitions"] = "twelve"


def _lag_as_number(d: Doc) -> None:
    d["spec"]["triggers"][0]["metadata"]["lagThreshold"] = 50


@pytest.mark.integration
@pytest.mark.parametrize(
    ("kind", "breaker", "message"),
    [
        ("Deployment", _misspell_probe, "livenesProbe"),
        ("ScaledObject", _drop_trigger_metadata, "missing property 'metadata'"),
        ("KafkaTopic", _partitions_as_text, "partitions"),
        ("ScaledObject", _lag_as_number, "lagThreshold"),
    ],
)
def test_kubeconform_rejects_broken_manifests(
    tools: dict[str, str], production_docs: list[Doc], kind: str, breaker: Callable[[Doc], None], message: str
) -> None:
    good = _broken(production_docs, kind, lambda d: None)
    assert _kubeconform(tools, good).returncode == 0
    proc = _kubeconform(tools, _broken(production_docs, kind, breaker))
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr


OPAQUE = {
    "resources", "nodeSelector", "tolerations", "affinity", "podAnnotations", "extraEnv", "values",
    "annotations", "podSecurityContext", "securityContext", "config", "imagePullSecrets",
}  # fmt: skip
"""Values maps whose entries are free-form (resources, selectors, ...): documented as one key."""
GENERIC = {"topics": "<name>", "stages": "<stage>", "vllm": "<tier>", "model": "<tier>"}


def _value_keys(node: Doc, path: list[str]) -> Iterator[list[str]]:
    for key, value in node.items():
        if isinstance(value, dict) and value and key not in OPAQUE:
            yield from _value_keys(value, [*path, key])
        else:
            yield [*path, key]


def _generalised(path: list[str]) -> str:
    """``topics.landing.partitions`` -> ``topics.<name>.partitions``, as the README's table writes it."""
    out = []
    for parent, key in zip([None, *path], path, strict=False):
        if parent in GENERIC and key in (*TOPICS, *STAGES, "standard", "deep"):
            out.append(GENERIC[parent])
        elif parent == "secrets" and key not in ("create", "values"):
            out.append("<credential>")
        else:
            out.append(key)
    return ".".join(out)


def test_readme_documents_every_value() -> None:
    """Each key of values.yaml has a row in the chart README's table."""
    readme = (CHART / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([^`]+)` \|", readme, flags=re.MULTILINE))
    missing = [
        ".".join(path)
        for path in _value_keys(_values(), [])
        if ".".join(path) not in documented and _generalised(path) not in documented
    ]
    assert not missing, f"values without a row in infra/helm/tieout/README.md: {missing}"
    assert len(documented) > 50


# ------------------------------------------------------------------------------------ as the code sees it


# Keys of the chart's ConfigMap that are no Settings field: for the process, not for the settings.
NOT_SETTINGS = {"TIEOUT_CACHE", "TMPDIR", "HOME", "SCHEMA_REGISTRY_URL"}


@pytest.mark.integration
def test_the_services_read_the_configmap_as_the_chart_means_it(
    production_docs: list[Doc], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every ConfigMap key is a setting the services read (or a process variable), with the intended value."""
    env = _env_config(production_docs)
    names = set()
    for name, field in Settings.model_fields.items():
        names.add(name.upper())
        alias = field.validation_alias
        names.update(str(a).upper() for a in getattr(alias, "choices", [alias] if alias else []))
    assert set(env) - NOT_SETTINGS <= names, set(env) - NOT_SETTINGS - names
    for key in [k for k in os.environ if k.upper() in names]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings.load(tmp_path / "stack.env")
    prod = yaml.safe_load(PRODUCTION.read_text(encoding="utf-8"))
    assert settings.kafka_bootstrap == prod["kafka"]["bootstrap"]
    assert settings.kafka_security_protocol == "SASL_SSL"
    assert settings.kafka_sasl_mechanism == "SCRAM-SHA-512"
    assert settings.kafka_ca_file == "/etc/tieout/kafka-ca/ca.crt"
    assert settings.topic_prefix == prod["topicPrefix"]
    assert settings.s3_endpoint == prod["objectStore"]["endpoint"]
    assert settings.landing_bucket == prod["objectStore"]["landingBucket"]
    assert settings.notifications is True
    assert (settings.metrics_host, settings.metrics_port) == ("0.0.0.0", 9464)
    assert settings.model_deadline_s == 240.0
    assert settings.otel_exporter_otlp_endpoint == prod["tracing"]["otlpEndpoint"]
    assert set(settings.model_endpoints()) == {"standard", "deep"}


@pytest.mark.integration
def test_the_cli_accepts_the_rendered_commands(production_docs: list[Doc]) -> None:
    """Each tieout container's args parse as the CLI's options (a renamed flag fails here, not in a pod)."""
    import typer

    from tieout.cli import app

    # Typer's own (vendored) click: a group of commands, used through the methods click documents.
    group: Any = typer.main.get_command(app)
    checked = set()
    for dep in _kind(production_docs, "Deployment").values():
        c = _container(dep)
        if c["image"].startswith('"') or "vllm" in c["image"]:
            continue
        args: list[str] = [str(a) for a in c["args"]]
        root = group.make_context("tieout", list(args), resilient_parsing=False)
        sub = group.get_command(root, args[0])
        assert sub is not None, args
        # Parses and validates the options without running the command.
        ctx = sub.make_context(args[0], args[1:], parent=root)
        checked.add(args[0] if args[0] != "consume" else f"consume {ctx.params['stage']}")
        if args[0] == "consume":
            assert ctx.params["timeout"] == 300.0
    assert checked == {"consume parse", "consume verify", "consume sink", "review"}
