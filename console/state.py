"""What the console's handlers share: its configuration and the one typed state object the app holds.

:func:`console.app.create_app` stores a :class:`ConsoleState` as ``app.state.console``; every handler
reaches it through :func:`state_of`, so the handlers are plain module-level functions rather than
closures over the factory's locals.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import jinja2
from starlette.requests import Request

from adapters.review.annotated import AnnotatedCopies, Annotations
from adapters.review.documents import PageImages
from adapters.review.store import ReviewStore
from console.auth import LoginThrottle, Users
from console.guard import require_origin
from console.sessions import SESSION_HOURS, SESSION_IDLE_MINUTES
from pipeline.checks.confidence import queue_threshold
from schemas.reviews import ReviewDecision

__all__ = ["ConsoleConfig", "ConsoleState", "DecisionHook", "state_of"]

DecisionHook = Callable[[ReviewDecision], None]
"""Called after each decision is committed (e.g. to publish it); its errors are logged, not raised."""


@dataclass
class ConsoleConfig:
    """What the console serves and how.

    Attributes:
        store: Flags, review state and decisions; the sessions and login attempts too.
        images: Page images of the documents.
        users: Who may log in (re-read when the file changes).
        secret: Derives the login form's CSRF token before a session exists (:mod:`console.sessions`).
        secure_cookie: Mark the cookie ``Secure`` (when served over HTTPS, e.g. behind a proxy).
        throttle: How failed logins slow further attempts (per user and address, and overall).
        on_decision: Hooks called with every committed decision.
        title: Shown in the header.
        annotations: The tick-and-tie copies the document page offers for download (default: made in a
            worker process from ``images``' documents, cached beside the page images).
        queue_threshold: The default queue shows flags at or above this confidence (the calibrated
            threshold that keeps estimated precision at its target, :mod:`pipeline.checks.confidence`);
            the rest are one click away.
        session_idle_s: A session unused for this long ends.
        session_max_s: A session ends this long after its login, used or not.
        clock: The time, in seconds since the epoch (a seam for tests).
        origin: Where analysts open the console, ``scheme://host[:port]`` (kept canonical,
            :func:`console.guard.canonical_origin`): a state-changing request from any other origin is
            refused. None: each request's own ``Host`` (over HTTPS with ``secure_cookie``), for a console
            whose public address is not known.

    Raises:
        ValueError: ``origin`` is not an http(s) origin.
    """

    store: ReviewStore
    images: PageImages
    users: Users
    secret: str
    secure_cookie: bool = False
    throttle: LoginThrottle = field(default_factory=LoginThrottle)
    on_decision: list[DecisionHook] = field(default_factory=list)
    title: str = "tieout review"
    annotations: Annotations | None = None
    queue_threshold: float = field(default_factory=queue_threshold)
    session_idle_s: float = SESSION_IDLE_MINUTES * 60.0
    session_max_s: float = SESSION_HOURS * 3600.0
    clock: Callable[[], float] = time.time
    origin: str | None = None

    def __post_init__(self) -> None:
        if self.origin is not None:
            self.origin = require_origin(self.origin)


@dataclass(frozen=True)
class ConsoleState:
    """One console app's shared state, built once by the app factory.

    Attributes:
        config: What the console serves and how.
        templates: The page templates (autoescaped, see :func:`console.pages.templates`).
        annotations: The tick-and-tie copies: ``config.annotations`` or the default made from the
            page images' documents.
    """

    config: ConsoleConfig
    templates: jinja2.Environment
    annotations: Annotations

    @classmethod
    def of(cls, config: ConsoleConfig, templates: jinja2.Environment) -> ConsoleState:
        """The state of a console serving ``config`` with ``templates``."""
        annotations = config.annotations or AnnotatedCopies(config.images.documents, config.images.root)
        return cls(config=config, templates=templates, annotations=annotations)

    @property
    def store(self) -> ReviewStore:
        """Flags, review state and decisions."""
        return self.config.store

    @property
    def users(self) -> Users:
        """Who may log in."""
        return self.config.users


def state_of(request: Request) -> ConsoleState:
    """The state of the console app serving ``request``.

    Raises:
        RuntimeError: if the app was not made by :func:`console.app.create_app`.
    """
    state = getattr(request.app.state, "console", None)
    if not isinstance(state, ConsoleState):
        raise RuntimeError("the console's handlers need an app made by console.app.create_app")
    return state
