"""Sinks behind one ``write(batch)``: Parquet datasets, xBRL reports, PostgreSQL tables and the quality gate.

The tables and the gate read one row projection of the records (:mod:`adapters.sinks.rows`); the xBRL
reports are :mod:`adapters.xbrl.artifact`'s files, as ``tieout export xbrl`` writes them.
"""
