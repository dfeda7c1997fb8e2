-- 0002_scale_and_statements: scale provenance and calculation trees (record schema 2.0).
--
-- A figure whose scale nothing establishes is kept as printed: `value` (base units), `decimals` and
-- `scale` become nullable and `printed_value` holds the printed number. Each fact says where its scale
-- came from, what its column reports (basis) and its place in the statement's calculation tree; each
-- flag says how sure its rule is.

ALTER TABLE facts ALTER COLUMN value DROP NOT NULL;
ALTER TABLE facts ALTER COLUMN decimals DROP NOT NULL;
ALTER TABLE facts ALTER COLUMN scale DROP NOT NULL;
ALTER TABLE facts ALTER COLUMN scale DROP DEFAULT;
ALTER TABLE facts ADD COLUMN printed_value numeric;
ALTER TABLE facts ADD COLUMN scale_source text;
ALTER TABLE facts ADD COLUMN basis text NOT NULL DEFAULT 'reported';
ALTER TABLE facts ADD COLUMN statement text;
ALTER TABLE facts ADD COLUMN role text;
ALTER TABLE facts ADD COLUMN parent text;
-- A value in base units always has a scale source; the quality gate enforces the same before any sink.
ALTER TABLE facts ADD CONSTRAINT facts_value_has_scale CHECK (value IS NULL OR scale_source IS NOT NULL);

ALTER TABLE flags ADD COLUMN confidence real NOT NULL DEFAULT 0.5;
ALTER TABLE flags ADD COLUMN reasons jsonb NOT NULL DEFAULT '[]'::jsonb;

CREATE INDEX facts_statement_idx ON facts (statement);
