"""Worker identities that are unique on a host and stable across restarts.

The identity names the transactional producer (``<prefix><stage>-<id>``) and the consumer's static group
membership. Two processes must never share it: the second would fence the first (``ProducerFenced``).
A restarted process should get its predecessor's: its producer then aborts whatever transaction the dead
one left open, and static membership gives it the same partitions back without a rebalance.

Both at once, without configuration: ``<hostname>-<slot>``, where the slot is the lowest one whose lock
file this process can hold (``flock``). The kernel drops a dead process's lock, so a worker restarted
after SIGKILL takes its old slot again; a second worker started beside it takes the next one.
Deployments that name their pods stably (a StatefulSet) set ``WORKER_ID`` instead.
"""

from __future__ import annotations

import fcntl
import os
import re
import socket
from pathlib import Path

__all__ = ["MAX_SLOTS", "WorkerSlot", "claim_slot", "default_lock_dir"]

MAX_SLOTS = 256


def default_lock_dir() -> Path:
    """``$TIEOUT_CACHE/workers`` (default ``~/.cache/tieout/workers``)."""
    cache = os.environ.get("TIEOUT_CACHE") or str(Path.home() / ".cache" / "tieout")
    return Path(cache) / "workers"


class WorkerSlot:
    """A held slot; the lock lasts as long as this object (or the process) does."""

    def __init__(self, worker_id: str, fd: int | None) -> None:
        """Wrap a slot's id and its lock file descriptor (None for an id given by configuration)."""
        self.worker_id = worker_id
        self._fd = fd

    def release(self) -> None:
        """Give the slot up (at shutdown; a crash releases it too)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def claim_slot(scope: str, *, host: str | None = None, lock_dir: Path | None = None) -> WorkerSlot:
    """The lowest free ``<host>-<n>`` for ``scope`` (a stage and topic prefix) on this host.

    Raises:
        RuntimeError: When all :data:`MAX_SLOTS` slots are held.
    """
    base = host or socket.gethostname()
    d = lock_dir or default_lock_dir()
    d.mkdir(parents=True, exist_ok=True)
    safe_scope = re.sub(r"[^A-Za-z0-9_.-]", "_", scope)
    for n in range(MAX_SLOTS):
        fd = os.open(d / f"{safe_scope}.{base}.{n}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return WorkerSlot(f"{base}-{n}", fd)
    raise RuntimeError(f"all {MAX_SLOTS} worker slots for {scope} on {base} are taken")
