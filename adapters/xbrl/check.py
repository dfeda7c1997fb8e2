"""Load exported reports in Arelle, offline, and read its verdicts as typed messages.

Arelle's Session API keeps global state behind a lock (docs/design/xbrl-arelle-spike.md), so it runs in a
child process: ``python -m adapters.xbrl.check REPORT...`` loads each report in turn and prints one JSON
line per report. Pass or fail is read from the message codes, never from Arelle's return value (it is
True even when a report has errors).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["INCONSISTENT", "ArelleMessage", "XbrlCheck", "check_reports", "main"]

INCONSISTENT = "calc11e:inconsistentCalculationUsingRounding"
"""Arelle's code for a summation that does not add up within rounding (Calculations 1.1, round-to-nearest)."""
_FATAL_CODES = ("calc11e:excessDigits",)
"""Codes that fail a report at any level: too many digits for ``decimals`` stops the calculation check."""
_MARK = "tieout-xbrl-check "
"""Prefix of the child's result lines, so that anything else Arelle prints is not read as one."""
_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ArelleMessage:
    """One message Arelle logged about a report.

    Attributes:
        code: Arelle's message code, e.g. ``calc11e:inconsistentCalculationUsingRounding``.
        level: Its level: ``ERROR``, ``INCONSISTENCY``, ``WARNING``, ...
        text: The message as Arelle words it.
        fact_ids: The xBRL-JSON ids of the facts it is about (a summation's total first).
        concept: The concept it names, when it names one.
    """

    code: str
    level: str
    text: str
    fact_ids: tuple[str, ...] = ()
    concept: str | None = None


@dataclass(frozen=True)
class XbrlCheck:
    """Arelle's verdict on one report."""

    report: Path
    messages: tuple[ArelleMessage, ...]

    @property
    def errors(self) -> list[ArelleMessage]:
        """The messages that mean the report is not valid XBRL (or could not be checked)."""
        return [m for m in self.messages if m.level in ("ERROR", "CRITICAL") or m.code in _FATAL_CODES]

    @property
    def inconsistencies(self) -> list[ArelleMessage]:
        """The summations that do not add up within rounding."""
        return [m for m in self.messages if m.code == INCONSISTENT]

    @property
    def report_ok(self) -> bool:
        """True when the report loads and validates with no error-level message."""
        return not self.errors


def check_reports(reports: Sequence[Path], timeout: float = 600.0) -> list[XbrlCheck]:
    """Validate reports with Arelle (Calculations 1.1, round to nearest) in one offline child process.

    Args:
        reports: The ``report.json`` files, each beside its extension taxonomy.
        timeout: Seconds before the child is stopped.

    Returns:
        One check per report, in order.

    Raises:
        RuntimeError: Arelle is not installed (the ``xbrl`` extra) or the child failed.
    """
    if not reports:
        return []
    if importlib.util.find_spec("arelle") is None:
        raise RuntimeError("Arelle is not installed: pip install 'tieout[xbrl]' (the xbrl extra)")
    with tempfile.TemporaryDirectory(prefix="tieout-arelle-") as config:
        # Arelle writes an (empty) config folder under XDG_CONFIG_HOME: keep it out of the user's home
        env = {**os.environ, "XDG_CONFIG_HOME": config}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH")) if p)
        done = subprocess.run(
            [sys.executable, "-m", "adapters.xbrl.check", *(str(r) for r in reports)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"Arelle check failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    rows = [json.loads(line[len(_MARK) :]) for line in done.stdout.splitlines() if line.startswith(_MARK)]
    return [XbrlCheck(Path(row["report"]), tuple(_message(m) for m in row["messages"])) for row in rows]


def _message(raw: dict[str, object]) -> ArelleMessage:
    """A message from the child's JSON line."""
    ids = raw.get("fact_ids")
    concept = raw.get("concept")
    return ArelleMessage(
        code=str(raw["code"]),
        level=str(raw["level"]),
        text=str(raw["text"]),
        fact_ids=tuple(str(i) for i in ids) if isinstance(ids, list) else (),
        concept=str(concept) if concept is not None else None,
    )


class _Capture(logging.Handler):
    """Keeps Arelle's log records with their codes, args and the objects they refer to."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _messages(report: Path) -> list[dict[str, object]]:
    """Load one report in a fresh Arelle session (child process only) and read its messages."""
    from arelle.api.Session import Session
    from arelle.RuntimeOptions import RuntimeOptions

    options = RuntimeOptions(
        entrypointFile=str(report),
        internetConnectivity="offline",
        validate=True,
        calcs="c11r",
        logLevel="INFO",
        keepOpen=True,
        disablePersistentConfig=True,
    )
    capture = _Capture()
    out: list[dict[str, object]] = []
    with Session() as session:
        session.run(options, logHandler=capture)
        models = session.get_models()
        for r in capture.records:
            code = str(getattr(r, "messageCode", "") or "")
            if r.levelname in ("INFO", "DEBUG") and not code.startswith("calc11"):
                continue
            args = r.args if isinstance(r.args, dict) else {}
            ids = [str(ref.get("objectId", "")) for ref in getattr(r, "refs", []) or []]
            if models:
                # Arelle refers to its own object ids; the xBRL-JSON fact ids are kept on the model facts
                ids = [str(getattr(models[0].modelObject(i), "id", i) or i) for i in ids if i]
            text = str(r.msg % args) if args else str(r.msg)
            concept = str(args["concept"]) if "concept" in args else None
            out.append(
                {"code": code, "level": r.levelname, "text": text, "fact_ids": ids, "concept": concept}
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Child process: one JSON line of messages per report given on the command line."""
    for name in argv if argv is not None else sys.argv[1:]:
        print(_MARK + json.dumps({"report": name, "messages": _messages(Path(name))}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
