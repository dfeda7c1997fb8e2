-- 0001_initial: documents, their facts and flags, as written by pipeline/sinks/postgres.py.
--
-- Applied by PostgresSink.migrate() inside one transaction (no BEGIN/COMMIT here), which also records
-- the version in schema_migrations. Values are numeric so that sums and comparisons in SQL are exact
-- for the figures as extracted; `record` keeps the whole typed record (schemas/models.py) as JSON so
-- nothing is lost when a column is not (yet) broken out.

CREATE TABLE documents (
    doc_id            text        PRIMARY KEY,
    source            text        NOT NULL,
    pipeline_version  text        NOT NULL,
    pages             integer     NOT NULL DEFAULT 0,
    tables            integer     NOT NULL DEFAULT 0,
    facts             integer     NOT NULL DEFAULT 0,
    flags             integer     NOT NULL DEFAULT 0,
    errors            integer     NOT NULL DEFAULT 0,
    ingest_date       date        NOT NULL,
    model_stage       text        NOT NULL DEFAULT 'skipped',
    updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX documents_ingest_date_idx ON documents (ingest_date);

CREATE TABLE facts (
    fact_id     text     PRIMARY KEY,
    -- ON DELETE CASCADE: deleting a document takes its facts and flags with it
    doc_id      text     NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    metric      text     NOT NULL,
    period_key  text,
    period_kind text,
    value       numeric  NOT NULL,
    printed     text     NOT NULL,
    decimals    integer  NOT NULL,
    scale       integer  NOT NULL DEFAULT 0,
    currency    text,
    unit        text     NOT NULL,
    page        integer  NOT NULL CHECK (page >= 1),
    bbox        jsonb,
    origin      text     NOT NULL,
    label       text     NOT NULL,
    table_id    text,
    "row"       integer,
    col         integer,
    context     text,
    record      jsonb    NOT NULL
);

CREATE INDEX facts_doc_id_idx ON facts (doc_id);
CREATE INDEX facts_metric_period_idx ON facts (metric, period_key);

CREATE TABLE flags (
    flag_id     text      PRIMARY KEY,
    doc_id      text      NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    rule        text      NOT NULL,
    kind        text      NOT NULL,
    severity    text      NOT NULL,
    metric      text,
    period_key  text,
    message     text      NOT NULL,
    expected    numeric,
    actual      numeric,
    difference  numeric,
    tolerance   numeric,
    pages       integer[] NOT NULL,
    evidence    jsonb     NOT NULL,
    record      jsonb     NOT NULL
);

CREATE INDEX flags_doc_id_idx ON flags (doc_id);
CREATE INDEX flags_metric_period_idx ON flags (metric, period_key);
CREATE INDEX flags_rule_idx ON flags (rule);
