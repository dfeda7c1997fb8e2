"""The HTTP endpoint of a service process: ``/metrics``, ``/healthz`` (alive) and ``/readyz`` (ready).

One small WSGI server per process, in a daemon thread, bound to ``METRICS_HOST:METRICS_PORT``
(127.0.0.1 and a free port by default; the port is logged). It never touches the event loop: it reads
what the loop's :class:`Health` task last recorded, so a scrape or a probe cannot stall message handling,
and a stalled loop shows as a failing ``/healthz`` instead of a hanging one.

* ``/healthz``: 200 while the event loop keeps ticking (the heartbeat is at most ``stale_after_s`` old),
  503 when it has stopped: the process is alive and not stuck.
* ``/readyz``: 200 when the last probe of every dependency the service uses answered (broker, object
  store, and as configured the database, the model server and the schema registry), 503 otherwise; the
  JSON body says which. Probes run every ``interval_s`` with a timeout each, so the answer is at most that
  old. The schema registry's probe also checks that the registry still holds the topics' schemas under
  the ids the service frames with, and registers them again when it does not (``consumers/wiring.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

import structlog
from prometheus_client import CollectorRegistry, make_wsgi_app

from consumers import metrics

__all__ = ["Check", "Endpoint", "Health", "Probe", "app"]

log = structlog.get_logger(__name__)

Probe = Callable[[], Awaitable[bool]]
"""Whether a dependency answers now; an exception counts as no."""


@dataclass(frozen=True, slots=True)
class Check:
    """One dependency of a service and how to ask it (the probe must bound its own network calls)."""

    name: str
    probe: Probe


class Health:
    """The heartbeat and the last readiness probes of one service, for the HTTP thread to read."""

    def __init__(
        self,
        service: str,
        checks: Iterable[Check] = (),
        *,
        interval_s: float = 5.0,
        probe_timeout_s: float = 5.0,
        stale_after_s: float = 60.0,
    ) -> None:
        """Probe ``checks`` every ``interval_s`` (each bounded by ``probe_timeout_s``)."""
        self.service = service
        self.checks = list(checks)
        self.interval_s = interval_s
        self.probe_timeout_s = probe_timeout_s
        self.stale_after_s = stale_after_s
        self.beat = time.monotonic()
        # Replaced whole by the loop, read by the HTTP thread: a reader sees one round or the next.
        self.status: dict[str, bool] = {}
        self.checked_at: float | None = None

    def add(self, check: Check) -> None:
        """Probe ``check`` too from the next round on."""
        self.checks.append(check)

    def alive(self) -> bool:
        """Whether the event loop ticked within ``stale_after_s``."""
        return time.monotonic() - self.beat < self.stale_after_s

    def ready(self) -> bool:
        """Whether every dependency answered the last round of probes (False before the first round)."""
        status = self.status
        return bool(status) and all(status.values())

    def report(self) -> dict[str, Any]:
        """What ``/readyz`` answers."""
        checked_at = self.checked_at
        return {
            "service": self.service,
            "ready": self.ready(),
            "checks": dict(self.status),
            "checked_s_ago": None if checked_at is None else round(time.monotonic() - checked_at, 1),
        }

    async def probe(self) -> dict[str, bool]:
        """One round: every check at once, each bounded by ``probe_timeout_s``; records the result."""
        checks = list(self.checks)
        results = await asyncio.gather(*(self._one(c) for c in checks))
        status = {c.name: ok for c, ok in zip(checks, results, strict=True)}
        for name, ok in status.items():
            metrics.DEPENDENCY_UP.labels(self.service, name).set(1 if ok else 0)
        if status != self.status:
            log.warning("readiness changed", ready=bool(status) and all(status.values()), checks=status)
        self.status, self.checked_at = status, time.monotonic()
        metrics.READY.labels(self.service).set(1 if self.ready() else 0)
        return status

    async def _one(self, check: Check) -> bool:
        try:
            return bool(await asyncio.wait_for(check.probe(), self.probe_timeout_s))
        except Exception as exc:  # a probe that fails says "not reachable", whatever the reason
            log.debug("probe failed", dependency=check.name, error=f"{type(exc).__name__}: {exc}")
            return False

    async def run(self, stop: asyncio.Event, tick_s: float = 1.0) -> None:
        """Beat every ``tick_s`` and probe every ``interval_s`` until ``stop``."""
        next_probe = 0.0
        while not stop.is_set():
            self.beat = time.monotonic()
            if self.beat >= next_probe and self.checks:
                await self.probe()
                next_probe = time.monotonic() + self.interval_s
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), tick_s)


def app(health: Health, registry: CollectorRegistry = metrics.REGISTRY) -> WSGIApplication:
    """The WSGI application: ``/metrics``, ``/healthz``, ``/readyz``."""
    metrics_app = make_wsgi_app(registry)

    def answer(start_response: StartResponse, ok: bool, body: dict[str, Any]) -> list[bytes]:
        data = json.dumps(body).encode()
        status = "200 OK" if ok else "503 Service Unavailable"
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]

    def route(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO") or "/"
        if path == "/metrics":
            body: Iterable[bytes] = metrics_app(environ, start_response)
            return body
        if path == "/healthz":
            alive = health.alive()
            return answer(start_response, alive, {"service": health.service, "alive": alive})
        if path == "/readyz":
            report = health.report()
            return answer(start_response, bool(report["ready"]), report)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"/metrics, /healthz or /readyz\n"]

    return route


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a slow scraper never keeps the process from exiting


class _QuietHandler(WSGIRequestHandler):
    timeout = 10  # seconds: a client that stops sending mid-request frees its thread

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds would flood stderr; the services log what matters themselves."""


class _IPv6Server(_ThreadingServer):
    address_family = socket.AF_INET6


class Endpoint:
    """The HTTP server of one process, in a daemon thread."""

    def __init__(self, health: Health, host: str = "127.0.0.1", port: int = 0) -> None:
        """Bind ``host:port`` (port 0: a free one) and serve in the background."""
        server_class = _IPv6Server if ":" in host else _ThreadingServer
        self.server = make_server(
            host, port, app(health), server_class=server_class, handler_class=_QuietHandler
        )
        self.host = host
        self.port = int(self.server.server_port)
        self._thread = threading.Thread(
            target=self.server.serve_forever,
            name="tieout-metrics",
            kwargs={"poll_interval": 0.5},
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """Where it listens."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
