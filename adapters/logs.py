"""Logging set-up shared by the CLI, the worker processes and the services."""

from __future__ import annotations

import logging
import os
import sys

import structlog

__all__ = ["configure_logging"]

_ENV = "TIEOUT_LOG_LEVEL"


def _stderr_logger(*_args: object) -> structlog.PrintLogger:
    return structlog.PrintLogger(file=sys.stderr)


def configure_logging(level: str | None = None) -> None:
    """Send structlog output to stderr at ``level`` (default: ``$TIEOUT_LOG_LEVEL`` or WARNING).

    The level is also exported in the environment so that worker processes started afterwards log alike.
    """
    name = (level or os.environ.get(_ENV) or "WARNING").upper()
    os.environ[_ENV] = name
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.dev.ConsoleRenderer() if sys.stderr.isatty() else structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, name, logging.WARNING)),
        # Resolve sys.stderr at each use: tests and CLIs swap it, and a stale handle would be closed.
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )
