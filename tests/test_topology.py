"""The topology table (schemas/topology.py): consistent in itself, and what the docs name is what it declares.

The services, the planner, the schema export and the registry read the table itself (their own tests);
the Helm chart's lists are held to it in tests/test_helm_chart.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemas.topology import DLQ_REPLAY_GROUP, TOPOLOGY, Stage, StageSpec, Topic, TopicSpec, Topology

README = Path(__file__).resolve().parents[1] / "README.md"
TOPICS = [t.name.value for t in TOPOLOGY.topics]


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_every_topic_and_stage_is_declared_once_in_the_enums_order() -> None:
    assert [t.name for t in TOPOLOGY.topics] == list(Topic)
    assert [s.name for s in TOPOLOGY.stages] == list(Stage)


def test_the_stages_form_one_chain_from_landing_each_with_its_own_group() -> None:
    chain = [TOPOLOGY.stages[0].input, *(s.outputs[0] for s in TOPOLOGY.stages)]
    assert chain == [Topic.LANDING, Topic.PARSED, Topic.VERIFIED, Topic.FACTS]
    for before, after in zip(TOPOLOGY.stages, TOPOLOGY.stages[1:], strict=False):
        assert after.input in before.outputs
    groups = [s.group for s in TOPOLOGY.stages]
    assert len(set(groups)) == len(groups) and DLQ_REPLAY_GROUP not in groups
    assert {s.dlq for s in TOPOLOGY.stages} == {Topic.DLQ}


def test_wire_names_are_the_ones_deployments_know() -> None:
    """Renaming a topic or a group strands every deployed consumer and retained record: never silently."""
    assert TOPICS == [
        "landing",
        "parsed",
        "verified",
        "facts",
        "flags",
        "summaries",
        "rewards",
        "changes",
        "reviews",
        "dlq",
    ]
    assert [(s.name, s.input, s.group) for s in TOPOLOGY.stages] == [
        ("parse", "landing", "parse"),
        ("verify", "parsed", "verify"),
        ("sink", "verified", "sink"),
    ]
    assert DLQ_REPLAY_GROUP == "dlq-replay"


def test_lookups_by_name() -> None:
    assert TOPOLOGY.stage("verify").input == Topic.PARSED
    assert TOPOLOGY.topic(Topic.DLQ).human_paced
    assert TOPOLOGY.consumer(Topic.VERIFIED) == TOPOLOGY.stage(Stage.SINK)
    assert TOPOLOGY.consumer(Topic.FACTS) is None
    with pytest.raises(KeyError, match="no stage 'ingest'"):
        TOPOLOGY.stage("ingest")
    with pytest.raises(KeyError, match="no topic 'results'"):
        TOPOLOGY.topic("results")


def test_a_table_with_an_undeclared_or_repeated_topic_is_refused() -> None:
    landing = TopicSpec(Topic.LANDING, TOPOLOGY.topic(Topic.LANDING).record, framed=False)
    parse = StageSpec(Stage.PARSE, input=Topic.LANDING, outputs=(Topic.PARSED,), group="parse")
    with pytest.raises(ValueError, match="undeclared"):
        Topology(topics=(landing,), stages=(parse,))
    with pytest.raises(ValueError, match="declared twice"):
        Topology(topics=(landing, landing), stages=())


# ------------------------------------------------------------------------------------------------ docs


def test_readme_names_the_result_topics_a_data_team_reads() -> None:
    """Every topic tieout frames with a registry, and only those (landing is the store's)."""
    text = " ".join(_readme().split())
    (listed,) = re.findall(r"A data team reads any result topic \(([^)]*)\)", text)
    assert re.findall(r"`(\w+)`", listed) == [t.name for t in TOPOLOGY.topics if t.framed]


def test_readme_names_the_sinks_result_topics() -> None:
    text = " ".join(_readme().split())
    (listed,) = re.findall(r"the result topics ((?:`\w+`(?:, | and )?)+)", text)
    assert re.findall(r"`(\w+)`", listed) == list(TOPOLOGY.stage(Stage.SINK).outputs)


def test_readme_consume_commands_read_each_stages_input() -> None:
    consumed = dict(re.findall(r"tieout consume (\w+) &\s+# (\w+)\s*->", _readme()))
    assert consumed == {s.name: s.input for s in TOPOLOGY.stages}


def test_readme_topic_table_has_a_row_for_each_topic_of_the_topology() -> None:
    table = _readme().split("| topic (prefix `tieout.`) |", 1)[1].split("\n\n", 1)[0]
    rows = [re.findall(r"`(\w+)`", line.split("|")[1]) for line in table.splitlines()[2:]]
    named = [name for row in rows for name in row]
    assert len(named) == len(set(named))
    assert set(named) == set(TOPICS)
