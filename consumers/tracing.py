"""OpenTelemetry traces: one trace per document, from the landing event to the result topics.

Every service starts a span per input message (:class:`~consumers.runner.Runner`), a child of the
context in the message's W3C ``traceparent`` header, and its handler adds a child span per step. Each
record it publishes carries the message span's ``traceparent`` (and its trace id in the ``trace_id``
header and the events' ``trace_id`` field), so the next service continues the same trace: one document's
path through parse, verify and sink is one trace. A landing event from the object store carries no
context, so its trace starts at the parse service.

The SDK's tracer provider is always installed, even with nothing to export: span and trace ids are then
still generated, propagated and written into the log lines (a few microseconds per span, against seconds
per document), so logs and headers tie one document's path together with or without a collector. Spans
leave the process only when an exporter is configured: OTLP over HTTP to ``OTEL_EXPORTER_OTLP_ENDPOINT``
(batched, in a background thread) and/or one JSON line per span appended to ``TIEOUT_TRACE_FILE``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import structlog
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from structlog.typing import EventDict, WrappedLogger

from adapters.settings import Settings

__all__ = [
    "DOC_ID",
    "OTLP_TIMEOUT_S",
    "OUTCOME",
    "TRACEPARENT",
    "TRACESTATE",
    "TRACE_ID_HEADER",
    "JsonLinesExporter",
    "SkipIdle",
    "add_trace_ids",
    "context_of_trace",
    "current_ids",
    "derived_trace_id",
    "extract",
    "inject",
    "install_log_ids",
    "new_provider",
    "provider",
    "record_span",
    "setup",
    "shutdown",
    "span",
    "span_record",
    "tracer",
    "use_provider",
]

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
TRACE_ID_HEADER = "trace_id"
"""The trace id alone: what dead letters and ``tieout dlq replay`` carry (no span to be a child of)."""

OTLP_TIMEOUT_S = 10.0
"""Bound on one export to the collector (the batch processor's thread waits at most this long)."""

_PROPAGATOR = TraceContextTextMapPropagator()
_TRACE_ID = re.compile(r"[0-9a-f]{32}")
_provider: TracerProvider | None = None
_ROOT_TRACE_ID: ContextVar[int | None] = ContextVar("tieout_root_trace_id", default=None)


class _Ids(RandomIdGenerator):
    """Random ids, except a new trace's id when :func:`span` was given one (``root_trace_id``)."""

    def generate_trace_id(self) -> int:
        return _ROOT_TRACE_ID.get() or super().generate_trace_id()


def new_provider(resource: Resource | None = None) -> TracerProvider:
    """A provider without exporters whose new traces may take a given id (see :func:`span`)."""
    return TracerProvider(
        resource=resource or Resource.create({"service.name": "tieout"}), id_generator=_Ids()
    )


def provider() -> TracerProvider:
    """The provider spans are made with: :func:`setup`'s, or one that exports nothing."""
    global _provider
    if _provider is None:
        _provider = new_provider()
    return _provider


def use_provider(new: TracerProvider) -> TracerProvider:
    """Make spans with ``new`` from now on (tests: an in-memory exporter); returns the previous one."""
    global _provider
    old = provider()
    _provider = new
    return old


def tracer() -> trace.Tracer:
    """The tracer of the services' spans."""
    return provider().get_tracer("tieout")


def setup(settings: Settings, service: str) -> TracerProvider:
    """The provider of a service process, exporting as configured (nothing, OTLP, a JSON-lines file).

    Also adds the current span's ``trace_id`` and ``span_id`` to every structlog line.
    """
    resource = Resource.create(
        {
            "service.name": f"tieout-{service}",
            "service.instance.id": settings.worker,
            "tieout.service": service,
        }
    )
    new = new_provider(resource)
    if settings.otel_exporter_otlp_endpoint:
        # Imported only when used: the exporter brings protobuf and requests along.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        endpoint = settings.otel_exporter_otlp_endpoint.rstrip("/") + "/v1/traces"
        new.add_span_processor(
            SkipIdle(
                BatchSpanProcessor(
                    OTLPSpanExporter(endpoint=endpoint, timeout=OTLP_TIMEOUT_S),
                    export_timeout_millis=OTLP_TIMEOUT_S * 1000,
                )
            )
        )
    if settings.trace_file:
        # Written at each span's end, so a test reads every finished span without waiting for a flush.
        new.add_span_processor(SkipIdle(SimpleSpanProcessor(JsonLinesExporter(settings.trace_file))))
    use_provider(new)
    install_log_ids()
    return new


def shutdown() -> None:
    """Export what is still queued (bounded by the exporters' timeouts) and close the exporters."""
    provider().shutdown()


OUTCOME = "tieout.outcome"
"""Attribute of a message's span: published, dead_lettered, skipped or held."""
DOC_ID = "tieout.doc_id"
"""Attribute of a message's span: the document it concerned."""


class SkipIdle(SpanProcessor):
    """Passes every span to ``inner`` except those of messages that concerned no document.

    The object store announces every write to every bucket, the pipeline's own artifacts included, and
    the parse service passes over those notifications: a trace each would bury the documents' traces
    (about ten per document) without telling anything. Such a span has nothing published and no
    document; metrics still count the message (``tieout_documents_total{outcome="skipped"}``).
    """

    def __init__(self, inner: SpanProcessor) -> None:
        """Wrap the processor that exports."""
        self.inner = inner

    def on_start(self, span: Span, parent_context: otel_context.Context | None = None) -> None:
        """Forward."""
        self.inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        """Forward, unless the span is an idle message's."""
        attributes = span.attributes or {}
        if attributes.get(OUTCOME) == "skipped" and DOC_ID not in attributes:
            return
        self.inner.on_end(span)

    def shutdown(self) -> None:
        """Forward."""
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Forward."""
        return self.inner.force_flush(timeout_millis)


class JsonLinesExporter(SpanExporter):
    """Appends each span as one JSON line (:func:`span_record`) to a file several processes may share.

    Each line is one ``write`` to a file opened with ``O_APPEND``, so lines of concurrent processes never
    interleave on a local file system.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Open (create) ``path`` for appending."""
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Write the spans."""
        if self._fd is None:
            return SpanExportResult.FAILURE
        for span in spans:
            os.write(self._fd, (json.dumps(span_record(span), sort_keys=True) + "\n").encode())
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Close the file."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def span_record(span: ReadableSpan) -> dict[str, Any]:
    """A finished span as a flat JSON-able record: ids as lowercase hex, times in ns since the epoch."""
    ctx = span.get_span_context()
    assert ctx is not None  # a span the SDK ended always has one
    return {
        "name": span.name,
        "trace_id": trace.format_trace_id(ctx.trace_id),
        "span_id": trace.format_span_id(ctx.span_id),
        "parent_span_id": trace.format_span_id(span.parent.span_id) if span.parent else None,
        "kind": span.kind.name,
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": span.status.status_code.name,
        "service": span.resource.attributes.get("service.name"),
        "attributes": dict(span.attributes or {}),
    }


def extract(headers: Sequence[tuple[str, bytes]]) -> otel_context.Context:
    """The trace context a message carries: its ``traceparent``, else its ``trace_id`` header, else none.

    A message with only a trace id (a dead letter replayed by ``tieout dlq replay``) continues that trace
    under a parent span that was never exported; one with neither starts a new trace.
    """
    carrier = {k: v.decode("latin-1") for k, v in headers if k in (TRACEPARENT, TRACESTATE)}
    ctx = _PROPAGATOR.extract(carrier)
    if trace.get_current_span(ctx).get_span_context().is_valid:
        return ctx
    legacy = next((v.decode("latin-1") for k, v in headers if k == TRACE_ID_HEADER), "")
    if _TRACE_ID.fullmatch(legacy) and int(legacy, 16):
        parent = SpanContext(
            trace_id=int(legacy, 16),
            span_id=RandomIdGenerator().generate_span_id(),
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
        return trace.set_span_in_context(NonRecordingSpan(parent))
    return otel_context.Context()


def context_of_trace(trace_id: str) -> otel_context.Context:
    """A context continuing the trace ``trace_id`` (hex), e.g. a pending document's, or an empty one."""
    return extract(((TRACE_ID_HEADER, trace_id.encode()),))


def inject(headers: Sequence[tuple[str, bytes]]) -> tuple[tuple[str, bytes], ...]:
    """``headers`` with the current span's ``traceparent`` and trace id (replacing any they had)."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    if not carrier:
        return tuple(headers)
    ids = current_ids()
    added = {k: v.encode() for k, v in carrier.items()}
    if ids is not None:
        added[TRACE_ID_HEADER] = ids[0].encode()
    return (*((k, v) for k, v in headers if k not in added), *added.items())


def current_ids() -> tuple[str, str] | None:
    """The current span's (trace id, span id) in hex, or None outside a span."""
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return trace.format_trace_id(ctx.trace_id), trace.format_span_id(ctx.span_id)


def derived_trace_id(seed: str) -> int:
    """A trace id that is a function of ``seed`` (a message's topic, partition and offset)."""
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:16], "big") or 1


@contextmanager
def span(
    name: str,
    *,
    context: otel_context.Context | None = None,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: Mapping[str, str | int | float | bool] | None = None,
    root_trace_id: int | None = None,
) -> Iterator[trace.Span]:
    """A span around the block, current inside it (a child of ``context``, else of the current span).

    When the span starts a new trace, ``root_trace_id`` (if given) is its id: every attempt at one
    message without a trace context of its own then lands in one trace. An exception escaping the block
    is recorded on the span and marks it as an error.
    """
    token = _ROOT_TRACE_ID.set(root_trace_id)
    try:
        s = tracer().start_span(name, context=context, kind=kind, attributes=attributes)
    finally:
        _ROOT_TRACE_ID.reset(token)
    with trace.use_span(s, end_on_exit=True, record_exception=True, set_status_on_exception=True):
        yield s


def record_span(
    name: str, start_ns: int, end_ns: int, attributes: Mapping[str, str | int | float | bool] | None = None
) -> None:
    """A child of the current span for work timed elsewhere (the engine's stages in its worker process)."""
    s = tracer().start_span(name, start_time=start_ns, attributes=attributes)
    s.end(end_time=end_ns)


def add_trace_ids(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Put the current span's ``trace_id`` and ``span_id`` on a log line (a structlog processor)."""
    ids = current_ids()
    if ids is not None:
        event["trace_id"], event["span_id"] = ids
    return event


def install_log_ids() -> None:
    """Add :func:`add_trace_ids` to structlog's processors (once), after the bound context variables."""
    processors = list(structlog.get_config()["processors"])
    if add_trace_ids in processors:
        return
    at = next(
        (i + 1 for i, p in enumerate(processors) if p is structlog.contextvars.merge_contextvars),
        0,
    )
    processors.insert(at, add_trace_ids)
    structlog.configure(processors=processors)
