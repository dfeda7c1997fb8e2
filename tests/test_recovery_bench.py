"""The pure helpers of bench/recovery.py: the summary of measurements and the reading of service logs."""

from __future__ import annotations

import json
from typing import Any

from bench.recovery import first_event, format_table, import_seconds, log_event, summary


def _line(event: str, ts: str, **fields: object) -> str:
    return json.dumps({**fields, "event": event, "level": "info", "timestamp": ts})


def test_summary_is_the_median_and_max_of_what_arrived() -> None:
    assert summary([3.0, 1.0, 2.0, 10.0]) == {"n": 4, "missed": 0, "median": 2.5, "max": 10.0}
    assert summary([4.0, None, 1.0]) == {"n": 3, "missed": 1, "median": 2.5, "max": 4.0}
    assert summary([None]) == {"n": 1, "missed": 1, "median": None, "max": None}
    assert summary([1.234]) == {"n": 1, "missed": 0, "median": 1.23, "max": 1.23}


def test_log_events_are_read_from_json_lines_only() -> None:
    assert log_event("import time:       120 |        120 | marshal") is None
    assert log_event('{"event": "x"}') is None  # no time stamp
    got = log_event(_line("metrics endpoint", "2026-12-01T15:00:00.500000Z", port=1))
    assert got is not None
    event, when, record = got
    assert (event, record["port"]) == ("metrics endpoint", 1)
    assert when == 1796137200.5


def test_first_event_skips_an_empty_assignment() -> None:
    lines = [
        "import time:       120 |        120 | marshal",
        _line("partitions assigned", "2026-12-01T15:00:01Z", partitions=[]),
        "not json",
        _line("partitions assigned", "2026-12-01T15:00:02Z", partitions=["t-0"]),
        _line("partitions assigned", "2026-12-01T15:00:03Z", partitions=["t-1"]),
    ]
    assert first_event(lines, "partitions assigned", nonempty="partitions") == 1796137202.0
    assert first_event(lines, "partitions assigned") == 1796137201.0
    assert first_event(lines, "service started") is None


def test_import_seconds_count_only_the_imports_before_the_event() -> None:
    lines = [
        "import time: self [us] | cumulative | imported package",
        "import time:    500000 |     500000 |     numpy.core",
        "import time:   1500000 |    2000000 |   numpy",
        "import time:    250000 |     250000 | boto3",
        _line("partitions assigned", "2026-12-01T15:00:02Z", partitions=["t-0"]),
        "import time:   9000000 |    9000000 | great_expectations",
    ]
    total, by = import_seconds(lines, "partitions assigned")
    assert total == 2.25
    assert by == {"numpy": 2.0, "boto3": 0.25}


def test_the_table_sets_labelled_runs_side_by_side() -> None:
    def run(assigned: float) -> dict[str, Any]:
        return {
            "meta": {"date": "2026-12-01T16:00:00Z", "load_average_start": [3.0, 2.5, 2.0], "wall_s": 600},
            "code": {"commit": "abc1234"},
            "startup": {"parse": {"endpoint_s": 3.1, "assigned_s": assigned, "cpu_s": 1.5, "imports_s": 1.2}},
            "kills": {
                "parse": {
                    "assigned_s": {"n": 10, "missed": 0, "median": assigned, "max": 6.5},
                    "cpu_s": {"n": 10, "missed": 0, "median": 1.4, "max": 1.6},
                    "output_s": {"n": 10, "missed": 1, "median": 9.0, "max": 12.0},
                }
            },
            "outages": {
                "kafka": {"down_s": 20.0, "up_s": 5.0, "next_result_s": 7.5, "bound_s": 180},
                "s3": {"down_s": 20.0, "up_s": 1.0, "next_result_s": None, "bound_s": 180},
            },
        }

    lines = format_table({"before": run(8.0), "after": run(3.3)})
    assert "| before | 2026-12-01T16:00:00Z | abc1234 | [3.0, 2.5, 2.0] → None | 600 s |" in lines
    assert "| parse | 3.1 / 8.0 s | 1.5 (1.2) | 3.1 / 3.3 s | 1.5 (1.2) |" in lines
    assert (
        "| parse (×10) | 8.0 / 6.5 s | 1.4 | 9.0 / 12.0 s, 1 of 10 missed "
        "| 3.3 / 6.5 s | 1.4 | 9.0 / 12.0 s, 1 of 10 missed |"
    ) in lines
    assert "| verify (not killed) | – | – | – | – | – | – |" in lines
    assert "| kafka | 20.0 / 5.0 s | 7.5 s | 20.0 / 5.0 s | 7.5 s |" in lines
    assert "| s3 | 20.0 / 1.0 s | > 180 s | 20.0 / 1.0 s | > 180 s |" in lines
    assert all(line.count("|") == lines[0].count("|") for line in lines[:3])


def test_parts_carried_over_from_an_earlier_run_get_a_row_of_their_own() -> None:
    early = {"date": "2026-12-01T15:50:00Z", "load_average_start": [20.0, 18.0, 15.0], "wall_s": 1400}
    late = {"date": "2026-12-01T16:27:00Z", "load_average_start": [3.0, 8.0, 12.0], "wall_s": 118}
    run = {"meta": late, "code": {"commit": "ce65b35"}, "carried_over": {"startup": early, "kills": early}}
    lines = format_table({"before": run})
    assert (
        "| before (startup, kills) | 2026-12-01T15:50:00Z | ce65b35 | [20.0, 18.0, 15.0] → None | 1400 s |"
        in lines
    )
    assert "| before (outages) | 2026-12-01T16:27:00Z | ce65b35 | [3.0, 8.0, 12.0] → None | 118 s |" in lines
