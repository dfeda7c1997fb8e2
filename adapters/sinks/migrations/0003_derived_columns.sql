-- 0003_derived_columns: the columns of adapters/sinks/rows.py, derived from the records (schema 2.0).
--
-- Every field of a fact and a flag is now a column: the source file, the us-gaap/ifrs-full concept ids,
-- the period's label, end date (a date, when the period printed one), length in months and fiscal year,
-- and the record's schema version. Existing rows keep NULL in the new columns until their document is
-- written again (their `record` holds the same values). tests/integration/test_postgres_sink.py checks
-- that the migrated tables have exactly the projection's columns and types.

ALTER TABLE facts ADD COLUMN source text;
ALTER TABLE facts ADD COLUMN concept_us_gaap text;
ALTER TABLE facts ADD COLUMN concept_ifrs text;
ALTER TABLE facts ADD COLUMN period_label text;
ALTER TABLE facts ADD COLUMN period_end date;
ALTER TABLE facts ADD COLUMN period_months integer;
ALTER TABLE facts ADD COLUMN fiscal_year integer;
ALTER TABLE facts ADD COLUMN record_schema_version text;

ALTER TABLE flags ADD COLUMN source text;
ALTER TABLE flags ADD COLUMN period_kind text;
ALTER TABLE flags ADD COLUMN period_label text;
ALTER TABLE flags ADD COLUMN period_end date;
ALTER TABLE flags ADD COLUMN period_months integer;
ALTER TABLE flags ADD COLUMN fiscal_year integer;
ALTER TABLE flags ADD COLUMN record_schema_version text;

CREATE INDEX facts_concept_period_end_idx ON facts (concept_us_gaap, period_end);
