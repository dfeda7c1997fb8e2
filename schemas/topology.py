"""The pipeline's topology, declared once: every Kafka topic with its record, every stage with its topics.

The services (``consumers/wiring.py``), the capacity planner (``adapters/deploy/planning.py``), the JSON
Schema export (``schemas/export.py``), the schema registry (``adapters/registry.py``) and the tests that
hold the Helm chart and the docs to the code all read :data:`TOPOLOGY`; no other module spells a topic's
name. Names here are without the configurable prefix (default ``tieout.``): on the wire a topic is
``<prefix><name>`` (:meth:`adapters.settings.Settings.topic`, which also applies ``LANDING_TOPIC``) and a
stage's consumer group ``<prefix><group>``.

::

    landing ──parse──▶ parsed ──verify──▶ verified ──sink──▶ facts, flags, summaries, rewards, changes
    each stage ──▶ dlq (what it cannot process)      the review console's decisions ──▶ reviews
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from pydantic import BaseModel

from schemas.events import DeadLetter, DocumentSummary, ParsedEvent, S3EventNotification, VerifiedEvent
from schemas.models import DocumentChanges, Fact, Flag
from schemas.reviews import ReviewDecision
from schemas.rewards import RewardRecord

__all__ = [
    "DLQ_REPLAY_GROUP",
    "TOPOLOGY",
    "Stage",
    "StageSpec",
    "Topic",
    "TopicSpec",
    "Topology",
]


class Topic(StrEnum):
    """A topic's name without the prefix (a ``str``: pass it wherever a topic name is expected)."""

    LANDING = "landing"
    PARSED = "parsed"
    VERIFIED = "verified"
    FACTS = "facts"
    FLAGS = "flags"
    SUMMARIES = "summaries"
    REWARDS = "rewards"
    CHANGES = "changes"
    REVIEWS = "reviews"
    DLQ = "dlq"


class Stage(StrEnum):
    """A stage's name: ``tieout consume <stage>`` runs its service (a ``str`` too)."""

    PARSE = "parse"
    VERIFY = "verify"
    SINK = "sink"


@dataclass(frozen=True, slots=True)
class TopicSpec:
    """One topic: its name, the record each of its messages carries, how it is written and sized.

    Attributes:
        name: The topic's name without the prefix.
        record: The payload model; its JSON Schema is ``schemas/json/topics/<name>.schema.json``.
        framed: Whether tieout writes it, framed with its schema id when a schema registry is configured.
            ``landing`` is written by the object store (S3 event JSON) and is not.
        human_paced: Written at a person's pace (review decisions) or only on failure (dead letters): the
            planner gives it the minimum partitions and a retention long enough for people to act.
    """

    name: Topic
    record: type[BaseModel]
    framed: bool = True
    human_paced: bool = False


@dataclass(frozen=True, slots=True)
class StageSpec:
    """One stage: the topic it consumes, the topics it publishes, its consumer group and dead-letter topic.

    Attributes:
        name: The stage's name.
        input: The topic its consumer group reads.
        outputs: The topics its results go to, per document (dead letters aside).
        group: Its consumer group without the prefix (the Helm chart's ScaledObject watches
            ``<topicPrefix><stage>``, so it is the stage's name).
        dlq: Where a message it cannot process goes, with why.
    """

    name: Stage
    input: Topic
    outputs: tuple[Topic, ...]
    group: str
    dlq: Topic = Topic.DLQ


_Entry = TypeVar("_Entry", TopicSpec, StageSpec)


@dataclass(frozen=True, slots=True)
class Topology:
    """Every topic and every stage, in the order they are listed to people (plans, docs, the chart)."""

    topics: tuple[TopicSpec, ...]
    stages: tuple[StageSpec, ...]

    def __post_init__(self) -> None:
        """Refuse a table that names a topic twice, or a stage topic it does not declare."""
        names = [t.name for t in self.topics]
        if len(set(names)) != len(names) or len({s.name for s in self.stages}) != len(self.stages):
            raise ValueError("a topic or a stage is declared twice")
        for s in self.stages:
            if undeclared := {s.input, *s.outputs, s.dlq} - set(names):
                raise ValueError(f"stage {s.name} uses undeclared topics {sorted(undeclared)}")

    def topic(self, name: str) -> TopicSpec:
        """The topic called ``name``.

        Raises:
            KeyError: No topic has that name.
        """
        return _named(self.topics, name, "topic")

    def stage(self, name: str) -> StageSpec:
        """The stage called ``name``.

        Raises:
            KeyError: No stage has that name.
        """
        return _named(self.stages, name, "stage")

    def consumer(self, topic: str) -> StageSpec | None:
        """The stage that consumes ``topic``, or None when none does (results read by others)."""
        return next((s for s in self.stages if s.input == topic), None)


def _named(entries: tuple[_Entry, ...], name: str, kind: str) -> _Entry:
    """The entry called ``name``; a KeyError listing the names there are when none is."""
    for entry in entries:
        if entry.name == name:
            return entry
    raise KeyError(f"no {kind} {name!r}: one of {', '.join(e.name for e in entries)}")


TOPOLOGY = Topology(
    topics=(
        TopicSpec(Topic.LANDING, S3EventNotification, framed=False),
        TopicSpec(Topic.PARSED, ParsedEvent),
        TopicSpec(Topic.VERIFIED, VerifiedEvent),
        TopicSpec(Topic.FACTS, Fact),
        TopicSpec(Topic.FLAGS, Flag),
        TopicSpec(Topic.SUMMARIES, DocumentSummary),
        TopicSpec(Topic.REWARDS, RewardRecord),
        TopicSpec(Topic.CHANGES, DocumentChanges),
        TopicSpec(Topic.REVIEWS, ReviewDecision, human_paced=True),
        TopicSpec(Topic.DLQ, DeadLetter, human_paced=True),
    ),
    stages=(
        StageSpec(Stage.PARSE, input=Topic.LANDING, outputs=(Topic.PARSED,), group="parse"),
        StageSpec(Stage.VERIFY, input=Topic.PARSED, outputs=(Topic.VERIFIED,), group="verify"),
        StageSpec(
            Stage.SINK,
            input=Topic.VERIFIED,
            outputs=(Topic.FACTS, Topic.FLAGS, Topic.SUMMARIES, Topic.REWARDS, Topic.CHANGES),
            group="sink",
        ),
    ),
)
"""The pipeline's topics and stages."""

DLQ_REPLAY_GROUP = "dlq-replay"
"""Consumer group of ``tieout dlq replay`` on the dead-letter topic (without the prefix): it remembers what
was re-driven."""
