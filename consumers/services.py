"""The three stages' handlers (:data:`schemas.topology.TOPOLOGY`): thin, around the engine's stages.

* ``parse``: landing (S3 event) → stream the PDF to a temporary file → parse in a killable worker process
  → parsed document to object storage → ``parsed`` event (the pointer). A document that cannot be
  processed at all goes to the dead-letter topic with its typed error record.
* ``verify``: ``parsed`` → load the parsed document → deterministic checks, then the model stage when one
  is configured → verified document to object storage → ``verified`` event.
* ``sink``: ``verified`` → the changes since the document's previous version (:mod:`consumers.versions`)
  → quality gate → every sink (Parquet datasets, xBRL reports, PostgreSQL) → ``facts``, ``flags``,
  ``rewards``, ``summaries`` and ``changes`` records not yet published for the document.

Every output is keyed by document id and pipeline version, so a redelivered message or a re-uploaded
identical file yields no second set of results. What the handlers keep in the object store is
:mod:`consumers.artifacts`; the verify stage's model client and its resume loop are :mod:`consumers.model`.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar

import structlog
from opentelemetry.trace import get_current_span
from pydantic import BaseModel, ValidationError

from adapters.settings import Settings
from adapters.sinks.base import Sink, SinkBatch, SinkOutage, SinkRefused
from adapters.storage import (
    Downloaded,
    RefusedObject,
    Store,
    UnsafeKey,
    artifact_key,
    intent_key,
    manifest_key,
    marker_key,
    pending_key,
    pending_prefix,
    readable_keys,
)
from adapters.workers.quotas import QUOTA_CATEGORIES
from consumers import metrics, tracing
from consumers.artifacts import REJECTED, artifact_uri, load_artifact, mark_committed, read_json, store_call
from consumers.runner import (
    REPLAY_HEADER,
    Incoming,
    Outgoing,
    PermanentError,
    TransientError,
    dead_letter,
    utc_now,
)
from consumers.telemetry import engine_stages, step
from consumers.versions import Versions, changes_id, versions_of
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.parse.sniff import not_a_pdf
from schemas.events import (
    DocumentSummary,
    LandingError,
    ObjectRef,
    ParsedEvent,
    VerifiedEvent,
    parse_landing,
)
from schemas.models import DocumentResult, ErrorRecord
from schemas.topology import Stage, Topic

# A process runs one stage: what only another stage uses (the checks and model stage of verify, the
# quality gate and rewards of the sink) is imported where it is used, so that a restarted worker is back
# on its partitions sooner.
if TYPE_CHECKING:
    from adapters.sinks.quality import GateResult
    from adapters.workers.isolation import IsolatedEngine
    from consumers.prior import PriorPeriods
    from pipeline.model.strategy import ModelStage
    from schemas.rewards import RewardRecord

__all__ = ["ParseHandler", "SinkHandler", "VerifyHandler", "resume_pending"]

log = structlog.get_logger(__name__)
E = TypeVar("E", bound=BaseModel)


def _headers(
    trace_id: str, doc_id: str, worker_id: str, *, replay: str | None = None
) -> tuple[tuple[str, bytes], ...]:
    out: tuple[tuple[str, bytes], ...] = (
        ("trace_id", trace_id.encode()),
        ("doc_id", doc_id.encode()),
        ("pipeline_version", PIPELINE_VERSION.encode()),
        ("producer", worker_id.encode()),
    )
    # A reconcile's re-announcement travels down the stages, so each re-publishes what it already did.
    out = (*out, (REPLAY_HEADER, replay.encode())) if replay else out
    # The current span's context: the next stage continues this document's trace.
    return tracing.inject(out)


class _Stamp(TypedDict):
    """The fields of :class:`~schemas.events.EventBase`, as keyword arguments of an event."""

    doc_id: str
    trace_id: str
    source: str
    pipeline_version: str
    produced_at: str


def _stamp(doc_id: str, trace_id: str, source: str) -> _Stamp:
    """What every event a service produces starts with: the document, its trace, this version, now."""
    return _Stamp(
        doc_id=doc_id,
        trace_id=trace_id,
        source=source,
        pipeline_version=PIPELINE_VERSION,
        produced_at=utc_now(),
    )


def _validated(model: type[E], raw: bytes, what: str, doc_id: str | None = None) -> E:
    """``raw`` as a ``model``, or a permanent (schema) error naming what broke."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise PermanentError(
            f"{what} breaks its schema: {exc.errors()[0]['msg']}", category="schema", doc_id=doc_id
        ) from exc


def _event(model: type[E], msg: Incoming, what: str) -> E:
    """The message's event, or a permanent (schema) error naming what broke."""
    return _validated(model, msg.value or b"", what)


def _reward_id(r: RewardRecord) -> str:
    """A reward record's entry in the sink's manifest: a new reward for the same record is new."""
    return f"reward:{r.record_id}:{r.reward:.6f}"


class ParseHandler:
    """landing → parsed."""

    stage = Stage.PARSE

    def __init__(self, settings: Settings, store: Store, engine: IsolatedEngine) -> None:
        """Wire the store and the isolated engine."""
        self.settings = settings
        self.store = store
        self.engine = engine
        self.config: EngineConfig = engine.config

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        """Parse every object the event announces."""
        try:
            refs = parse_landing(msg.value or b"")
        except LandingError as exc:
            raise PermanentError(f"landing message is not an S3 event: {exc}", category="schema") from exc
        out: list[Outgoing] = []
        # Gateways such as versitygw announce writes to every bucket, the pipeline's own artifacts included.
        for ref in (r for r in refs if r.bucket == self.settings.landing_bucket):
            try:
                candidates = readable_keys(ref)
            except UnsafeKey as exc:
                raise PermanentError(str(exc), category="unsafe_key", source=ref.key) from exc
            # The document is streamed to a private file: the parent never holds it in memory.
            with tempfile.TemporaryDirectory(prefix="tieout-parse-") as tmp:
                path = Path(tmp) / "document.pdf"
                with step(self.stage, "download"):
                    got = await store_call(
                        self.store.download,
                        ref.bucket,
                        candidates,
                        path,
                        max_bytes=self.config.max_bytes,
                    )
                published = await self._parse_one(msg, ref.model_copy(update={"key": got.key}), got, path)
            if published is not None:
                out.append(published)
        return out

    async def _parse_one(self, msg: Incoming, ref: ObjectRef, got: Downloaded, path: Path) -> Outgoing | None:
        key, doc_id, trace_id = got.key, got.doc_id, msg.trace_id
        _describe(doc_id, key)
        with structlog.contextvars.bound_contextvars(doc_id=doc_id[:12], source=key):
            done = await store_call(
                self.store.exists,
                self.settings.artifact_bucket,
                marker_key(Topic.PARSED, PIPELINE_VERSION, doc_id),
            )
            if done and msg.header(REPLAY_HEADER) is None:
                log.info("already parsed by this pipeline version: skipping")
                return None
            if done:
                # A reconcile asked again: the parse is done, so announce it again from its artifact.
                result = await load_artifact(self.store, self.settings, Topic.PARSED, doc_id)
            elif why := not_a_pdf(got.head):
                err = ErrorRecord(
                    doc_id=doc_id, source=key, stage=self.stage, category="not_a_pdf", message=why, fatal=True
                )
                result = DocumentResult(
                    doc_id=doc_id, source=key, pipeline_version=PIPELINE_VERSION, errors=[err]
                )
            else:
                with step(self.stage, "engine"):
                    result = await asyncio.to_thread(self.engine.run, path, key)
                    engine_stages(self.stage, result.stats, time.time_ns())
            if result.failed:
                err = next(e for e in result.errors if e.fatal)
                log.warning("document rejected", category=err.category, reason=err.message)
                return dead_letter(
                    msg,
                    stage=self.stage,
                    # A breached worker quota is not the document's fault alone: replayable with more room.
                    error_class="QuotaExceeded" if err.category in QUOTA_CATEGORIES else "DocumentError",
                    category=err.category,
                    message=err.message,
                    attempts=1,
                    dlq_topic=self.settings.topic(Topic.DLQ),
                    doc_id=doc_id,
                    source=key,
                    error=err,
                )
            if done:
                uri = artifact_uri(self.settings, Topic.PARSED, doc_id)  # stored already: not written again
            else:
                uri = await store_call(
                    self.store.put_bytes,
                    self.settings.artifact_bucket,
                    artifact_key(Topic.PARSED, PIPELINE_VERSION, doc_id),
                    result.model_dump_json().encode(),
                )
            event = ParsedEvent(
                **_stamp(doc_id, trace_id, key),
                object=ref,
                artifact=str(uri),
                stats=result.stats,
                errors=result.errors,
            )
            return Outgoing(
                self.settings.topic(Topic.PARSED),
                doc_id.encode(),
                event.model_dump_json().encode(),
                _headers(trace_id, doc_id, self.settings.worker, replay=msg.header(REPLAY_HEADER)),
            )

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        """Nothing to record: a repeat is skipped by its marker, or deduplicated by the sink."""

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        """Mark the documents whose parse is committed (or that were rejected), so re-uploads are skipped."""
        await mark_committed(
            self.store, self.settings, Topic.PARSED, published, self.settings.topic(Topic.PARSED)
        )
        await mark_committed(self.store, self.settings, REJECTED, published, self.settings.topic(Topic.DLQ))
        if any(
            o.topic == self.settings.topic(Topic.DLQ) and ("category", b"unsafe_key") in o.headers
            for o in published
        ):
            await self._mark_refused(msg)

    async def _mark_refused(self, msg: Incoming) -> None:
        """Mark the objects of ``msg`` refused by their key: reconcile reports, not announces, them."""
        for ref in parse_landing(msg.value or b""):
            if ref.bucket != self.settings.landing_bucket:
                continue
            try:
                readable_keys(ref)
            except UnsafeKey as exc:
                if (refused := RefusedObject.of(ref, str(exc))) is not None:
                    await asyncio.to_thread(
                        self.store.put_bytes,
                        self.settings.artifact_bucket,
                        refused.marker(PIPELINE_VERSION),
                        refused.model_dump_json().encode(),
                    )


class VerifyHandler:
    """parsed → verified (deterministic checks, then the model stage when configured).

    Facts and flags are published by the sink, behind the quality gate; this stage publishes only the
    ``verified`` event that points at the verified document in object storage.
    """

    stage = Stage.VERIFY

    def __init__(self, settings: Settings, store: Store, model: ModelStage | None = None) -> None:
        """Wire the store and the model stage (None: skipped)."""
        from pipeline.model.strategy import ModelStage

        self.settings = settings
        self.store = store
        self.model = model or ModelStage(None)

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        """Check one parsed document, store the verified document and announce it (``verified`` event)."""
        event = _event(ParsedEvent, msg, "parsed event")
        # The message's trace, which the runner took from its headers (the event's own is where it began).
        doc_id, trace_id = event.doc_id, msg.trace_id
        _describe(doc_id, event.source)
        with structlog.contextvars.bound_contextvars(doc_id=doc_id[:12], source=event.source):
            done = await store_call(
                self.store.exists,
                self.settings.artifact_bucket,
                marker_key(Topic.VERIFIED, PIPELINE_VERSION, doc_id),
            )
            replay = msg.header(REPLAY_HEADER)
            if done and replay is None:
                log.info("already verified by this pipeline version: skipping")
                return []
            if done:
                # A reconcile asked again: announce the verified artifact again (the sink deduplicates).
                verified = await load_artifact(self.store, self.settings, Topic.VERIFIED, doc_id)
                uri = artifact_uri(self.settings, Topic.VERIFIED, doc_id)
                return [_verified_event(self.settings, verified, uri, trace_id, replay=replay)]
            with step(self.stage, "load"):
                raw = await store_call(self.store.read_uri, event.artifact)
                parsed = _validated(DocumentResult, raw, "parsed artifact", doc_id)
            with step(self.stage, "checks"):
                from pipeline.checks.stage import verify

                result = await asyncio.to_thread(verify, parsed)
            with step(self.stage, "model"):
                result, stats = await self.model.run_with_stats(result)
            assert result.model is not None
            if result.model.status in ("pending", "partial"):
                # The model server is down, or the document's deadline passed: publish what is verified now
                # and let the resume loop finish the rest — the message is committed, never redelivered.
                marker: dict[str, object] = {"doc_id": doc_id, "trace_id": trace_id, "source": event.source}
                if stats.progress is not None:
                    marker["progress"] = stats.progress.model_dump(mode="json")
                await store_call(
                    self.store.put_bytes,
                    self.settings.artifact_bucket,
                    pending_key(PIPELINE_VERSION, doc_id),
                    json.dumps(marker).encode(),
                )
                log.warning(f"model stage {result.model.status}", reason=result.model.reason)
            # Facts and flags reach the result topics through the sink, behind the quality gate.
            with step(self.stage, "store"):
                out = [await _verified(self.store, self.settings, result, trace_id)]
            log.info("verified", facts=len(result.facts), flags=len(result.flags))
            return out

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        """Nothing to record: a repeat is skipped by its marker, or deduplicated by the sink."""

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        """Mark the document verified."""
        await mark_committed(
            self.store, self.settings, Topic.VERIFIED, published, self.settings.topic(Topic.VERIFIED)
        )


class SinkHandler:
    """verified → quality gate → Parquet datasets, xBRL reports, PostgreSQL, and the result topics.

    Nothing reaches any sink unless the document's batch passes the gate; a failing batch becomes a
    dead-letter record naming the failed expectations. Every sink is idempotent: Parquet files, xBRL
    reports and rows are keyed by document id, and records already published for a document are not
    published again, so replaying the topic adds nothing anywhere. What is published is known exactly,
    crash or not:

    1. before its transaction, the sink writes the document's *intent* (the ids it is about to publish
       and the input message's position);
    2. after the commit, the intent joins the document's *manifest*, and the intent is deleted;
    3. an intent found later is settled by the broker: its records were published exactly when the consumer
       group's committed offset of its input partition is past its input message (the offset commits in
       the same transaction as the records), and a settled intent joins the manifest at once.
    """

    stage = Stage.SINK

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        committed: Callable[[str, int], Awaitable[int | None]],
        sinks: Sequence[Sink] = (),
        gate: Callable[[DocumentResult], GateResult] | None = None,
        prior: PriorPeriods | None = None,
    ) -> None:
        """Wire the store, the sinks written before the topics, and the gate (default: the GX suites).

        ``committed`` is the transport's :meth:`~consumers.runner.Transport.committed`: it settles intents.
        ``prior`` is the history of published figures (PRI001/PRI002 flags); none: no prior-period checks.
        """
        self.settings = settings
        self.store = store
        self.committed = committed
        self.sinks = list(sinks)
        self.gate = gate
        self.prior = prior
        self._handling: dict[tuple[str, int, int], _Intent] = {}  # by input position, until committed
        # Positions committed by this process whose intent is not yet settled (the store was away): the
        # broker's committed offset can trail a commit for a moment, this memory does not.
        self._committed: set[tuple[str, int, int]] = set()

    def _gate(self, result: DocumentResult) -> GateResult:
        if self.gate is None:
            from adapters.sinks.quality import default_gate

            self.gate = default_gate().check
        return self.gate(result)

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        """Gate one verified document, write it to every sink, and publish what is new."""
        event = _event(VerifiedEvent, msg, "verified event")
        doc_id, trace_id = event.doc_id, msg.trace_id
        _describe(doc_id, event.source)
        done = await self._published(doc_id)
        intent = self._handling[_position(msg)] = _Intent(doc_id, frozenset(done))
        with step(self.stage, "load"):
            raw = await store_call(self.store.read_uri, event.artifact)
            result = DocumentResult.model_validate_json(raw)
        with step(self.stage, "changes"):
            versions = await versions_of(self.store, self.settings, result, event.artifact)
        result, changes = versions.result, versions.changes
        with step(self.stage, "gate"):
            gate = await asyncio.to_thread(self._gate, result)
        if not gate.success:
            raise PermanentError(
                "quality gate failed: " + ", ".join(gate.failed),
                category="quality_gate",
                doc_id=doc_id,
                source=event.source,
            )
        result, later = await self._prior(result, trace_id)
        batch = SinkBatch(result, event.produced_at[:10], event.model_stage, changes)
        datasets: list[str] = []
        for sink in self.sinks:
            datasets += await self._write(sink, batch, doc_id, event.source)
        headers = _headers(trace_id, doc_id, self.settings.worker)
        key = doc_id.encode()
        out = [
            Outgoing(self.settings.topic(Topic.FACTS), key, f.model_dump_json().encode(), headers)
            for f in result.facts
            if f.fact_id not in done
        ]
        out += [
            Outgoing(self.settings.topic(Topic.FLAGS), key, f.model_dump_json().encode(), headers)
            for f in result.flags
            if f.flag_id not in done
        ]
        summary = DocumentSummary(
            **_stamp(doc_id, trace_id, event.source),
            pages=result.stats.pages,
            tables=len(result.tables),
            facts=len(result.facts),
            flags=len(result.flags),
            errors=len(result.errors),
            model_stage=event.model_stage,
            datasets=datasets,
            identity=result.identity,
        )
        from pipeline.rewards.records import build_reward_records

        rewards = build_reward_records(
            result, created_at=datetime.fromisoformat(event.produced_at.replace("Z", "+00:00"))
        )
        out += [
            Outgoing(self.settings.topic(Topic.REWARDS), key, r.model_dump_json().encode(), headers)
            for r in rewards
            if _reward_id(r) not in done
        ]
        summary_id = f"summary:{event.model_stage}:{len(result.facts)}:{len(result.flags)}"
        records: dict[str, tuple[Topic, BaseModel]] = {summary_id: (Topic.SUMMARIES, summary)}
        if changes is not None:
            records[changes_id(changes)] = (Topic.CHANGES, changes)
        out += [
            Outgoing(self.settings.topic(topic), key, record.model_dump_json().encode(), headers)
            for record_id, (topic, record) in records.items()
            if record_id not in done
        ]
        intent.ids = (
            {f.fact_id for f in result.facts}
            | {f.flag_id for f in result.flags}
            | {_reward_id(r) for r in rewards}
            | set(records)
        ) - done
        intent.versions = versions
        return out + later

    async def _prior(self, result: DocumentResult, trace_id: str) -> tuple[DocumentResult, list[Outgoing]]:
        """The document with its PRI flags (:mod:`consumers.prior`); its issuer's later documents' flags."""
        if self.prior is None:
            return result, []
        from consumers.prior import add_flags

        with step(self.stage, "history"):
            found = await self.prior.check(result)
            await add_flags(self.sinks, [f for flags in found.later.values() for f in flags])
        later = [
            Outgoing(
                self.settings.topic(Topic.FLAGS),
                doc_id.encode(),
                f.model_dump_json().encode(),
                _headers(trace_id, doc_id, self.settings.worker),
            )
            for doc_id, flags in found.later.items()
            for f in flags
        ]
        return result.model_copy(update={"flags": [*result.flags, *found.flags]}), later

    async def _write(self, sink: Sink, batch: SinkBatch, doc_id: str, source: str) -> list[str]:
        """Write to one sink, timed and counted by outcome.

        A sink that cannot be reached holds the partition; one that refuses dead-letters the document.
        """
        with tracing.span(
            f"sink {sink.name}", attributes={"tieout.service": self.stage, "tieout.sink": sink.name}
        ):
            t0 = time.monotonic()
            try:
                written = await asyncio.to_thread(sink.write, batch)
            except SinkOutage as exc:
                metrics.SINK_WRITES.labels(sink.name, "outage").inc()
                raise TransientError(f"{sink.name}: {exc}") from exc
            except SinkRefused as exc:
                metrics.SINK_WRITES.labels(sink.name, "refused").inc()
                raise PermanentError(str(exc), category=exc.category, doc_id=doc_id, source=source) from exc
        metrics.SINK_WRITES.labels(sink.name, "ok").inc()
        metrics.SINK_WRITE_SECONDS.labels(sink.name).observe(time.monotonic() - t0)
        return written

    async def _published(self, doc_id: str) -> set[str]:
        """The ids already published for a document: its manifest, and its intent if that committed.

        Settling removes the intent, so none is left for the message in hand to contradict.
        """
        bucket, version = self.settings.artifact_bucket, PIPELINE_VERSION
        done: set[str] = set(await read_json(self.store, bucket, manifest_key(version, doc_id)) or [])
        intent = await read_json(self.store, bucket, intent_key(version, doc_id))
        if intent is None:
            return done
        topic, partition, offset = intent["at"]
        # Committed here, or (after a restart) as the broker says.
        committed = (topic, partition, offset) in self._committed or (
            (next_offset := await self.committed(topic, partition)) is not None and next_offset > offset
        )
        if committed:
            done |= set(intent["ids"])
            await store_call(self.store.put_bytes, bucket, manifest_key(version, doc_id), _ids(done))
        log.info("intent settled", committed=committed, records=len(intent["ids"]))
        await store_call(self.store.delete, bucket, intent_key(version, doc_id))
        self._committed.discard((topic, partition, offset))
        return done

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        """Write the document's intent: the ids this transaction publishes, and the input's position.

        A dead letter in place of the results publishes none of them: no intent is needed.
        """
        intent = self._handling.get(_position(msg))
        if intent is None or all(o.topic == self.settings.topic(Topic.DLQ) for o in outgoing):
            return
        body = {"at": list(_position(msg)), "ids": sorted(intent.ids)}
        key = intent_key(PIPELINE_VERSION, intent.doc_id)
        await store_call(self.store.put_bytes, self.settings.artifact_bucket, key, json.dumps(body).encode())
        intent.written = True

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        """List the document's version, add what this commit published to its manifest, drop its intent.

        If a write fails the intent stays, settled the next time the document comes (from memory here).
        """
        intent = self._handling.pop(_position(msg), None)
        self._handling.clear()  # messages handled but not committed (held, revoked) are handled again
        if intent is not None and intent.versions is not None:  # durable now: the next version compares
            await intent.versions.record(self.store, self.settings.artifact_bucket)
        if intent is None or not intent.written:
            return
        self._committed.add(_position(msg))
        bucket, version = self.settings.artifact_bucket, PIPELINE_VERSION
        ids = intent.done | intent.ids
        await store_call(self.store.put_bytes, bucket, manifest_key(version, intent.doc_id), _ids(ids))
        await store_call(self.store.delete, bucket, intent_key(version, intent.doc_id))
        self._committed.discard(_position(msg))


@dataclass(slots=True)
class _Intent:
    """A document in the sink's hands: what was published before, and what this message adds."""

    doc_id: str
    done: frozenset[str]
    ids: set[str] = field(default_factory=set)
    written: bool = False
    versions: Versions | None = None  # set once its results are built: its version is listed after commit


def _position(msg: Incoming) -> tuple[str, int, int]:
    return (msg.topic, msg.partition, msg.offset)


def _ids(ids: set[str] | frozenset[str]) -> bytes:
    return json.dumps(sorted(ids)).encode()


async def _verified(store: Store, settings: Settings, result: DocumentResult, trace_id: str) -> Outgoing:
    """Write a document's verified artifact and build the ``verified`` event that points at it."""
    uri = await store_call(
        store.put_bytes,
        settings.artifact_bucket,
        artifact_key(Topic.VERIFIED, PIPELINE_VERSION, result.doc_id),
        result.model_dump_json().encode(),
    )
    return _verified_event(settings, result, uri, trace_id)


def _verified_event(
    settings: Settings, result: DocumentResult, uri: str, trace_id: str, *, replay: str | None = None
) -> Outgoing:
    """The ``verified`` event of a document whose verified artifact is at ``uri``."""
    doc_id = result.doc_id
    event = VerifiedEvent(
        **_stamp(doc_id, trace_id, result.source),
        artifact=uri,
        facts=len(result.facts),
        flags=len(result.flags),
        model_stage=result.model.status if result.model else "skipped",
    )
    headers = _headers(trace_id, doc_id, settings.worker, replay=replay)
    return Outgoing(
        settings.topic(Topic.VERIFIED), doc_id.encode(), event.model_dump_json().encode(), headers
    )


async def resume_pending(
    settings: Settings,
    store: Store,
    model: ModelStage,
    publish: Callable[[list[Outgoing]], Awaitable[None]],
) -> int:
    """Complete the model stage of pending and partial documents once the model server answers again.

    For each marked document: run the model stage on its verified artifact — from scratch when it was
    pending (the server was down), from its marker's :class:`~pipeline.model.strategy.Progress` when it was
    partial (its deadline passed), under ``settings.model_resume_deadline_s``. When that makes progress,
    rewrite the artifact and publish an updated ``verified`` event (``publish``; the sink then gates and
    publishes the new findings); when it is done, drop the marker, else keep the progress left in it.
    Returns how many were completed.
    """
    if model.client is None or not await model.client.healthy("deep"):
        return 0
    from pipeline.model.strategy import Progress

    keys = [
        o.key
        for o in await asyncio.to_thread(
            lambda: list(store.list_objects(settings.artifact_bucket, pending_prefix(PIPELINE_VERSION)))
        )
    ]
    done = 0
    for key in keys:
        meta = json.loads(await store_call(store.read_uri, f"s3://{settings.artifact_bucket}/{key}"))
        doc_id, trace_id = str(meta["doc_id"]), str(meta["trace_id"])
        # The document's own trace goes on: its model stage finishing late is one more span of it.
        with tracing.span(
            "verify resume",
            context=tracing.context_of_trace(trace_id),
            attributes={"tieout.service": Stage.VERIFY},
        ):
            _describe(doc_id, str(meta.get("source", "")))
            before = await load_artifact(store, settings, Topic.VERIFIED, doc_id)
            progress = Progress.model_validate(meta["progress"]) if meta.get("progress") else None
            with step(Stage.VERIFY, "model"):
                if progress is None:
                    after, stats = await model.run_with_stats(before.model_copy(update={"model": None}))
                else:
                    after, stats = await model.run_with_stats(
                        before, progress, deadline_s=settings.model_resume_deadline_s
                    )
            if after.model is None or after.model.status not in ("done", "partial"):
                break  # still down: try again later
            if after.model.status == "partial" and len(stats.left) == len(progress.left if progress else []):
                continue  # no task finished in this pass: nothing to publish yet
            new_flags = [f for f in after.flags if f.flag_id not in {g.flag_id for g in before.flags}]
            # The sink gates and publishes what is new (model findings) when it sees the updated event.
            out = [await _verified(store, settings, after, trace_id)]
            await publish(out)
            if stats.progress is not None:
                meta["progress"] = stats.progress.model_dump(mode="json")
                await store_call(store.put_bytes, settings.artifact_bucket, key, json.dumps(meta).encode())
                log.warning("partial model stage advanced", doc_id=doc_id[:12], left=len(stats.left))
                continue
            await store_call(store.delete, settings.artifact_bucket, key)
            log.warning("pending model stage completed", doc_id=doc_id[:12], new_flags=len(new_flags))
            done += 1
    return done


def _describe(doc_id: str, source: str) -> None:
    """Name the document on the current span (the message's), so a trace can be found by document."""
    span = get_current_span()
    span.set_attribute(tracing.DOC_ID, doc_id)
    span.set_attribute("tieout.source", source)
