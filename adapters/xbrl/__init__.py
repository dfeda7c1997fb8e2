"""xBRL-JSON (OIM) export of a checked document, and its offline check by Arelle.

:mod:`adapters.xbrl.report` turns a :class:`~schemas.models.DocumentResult` into a report with a small
generated extension taxonomy and a Calculations 1.1 linkbase; :mod:`adapters.xbrl.artifact` makes it the
files every writer writes (the report's and ``excluded.jsonl``: ``tieout export xbrl`` and the sink
service); :mod:`adapters.xbrl.check` loads it in Arelle (the optional ``xbrl`` extra) in a subprocess, with
no network, and reads its verdicts.
"""
