"""Sinks behind one ``write(batch)``: Parquet datasets, PostgreSQL tables and the quality gate.

All read one row projection of the records (:mod:`adapters.sinks.rows`).
"""
