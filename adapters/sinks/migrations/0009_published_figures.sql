-- 0009_published_figures: the history of published figures by issuer (issue 27; adapters/history).
--
-- history_documents: one row a document that passed the sink's gate and prints its issuer and period end,
-- with what it says it restated (reasons: [[page, quote, kind], ...]).
-- published_figures: the figures it publishes (adapters.history.published), each its typed record; seq
-- keeps the order they were written in. A document written again replaces its rows (keyed by doc id).
CREATE TABLE history_documents (
    doc_id     text        PRIMARY KEY,
    issuer_key text        NOT NULL,
    period_end text        NOT NULL,  -- ISO date: the text orders as the dates do
    source     text        NOT NULL,
    reasons    jsonb       NOT NULL DEFAULT '[]'::jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX history_documents_issuer_idx ON history_documents (issuer_key, period_end);

CREATE TABLE published_figures (
    seq    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id text   NOT NULL REFERENCES history_documents (doc_id) ON DELETE CASCADE,
    key    text   NOT NULL,
    figure jsonb  NOT NULL
);
CREATE INDEX published_figures_doc_idx ON published_figures (doc_id);
