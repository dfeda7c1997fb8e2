-- 0010_changes: what changed since a document's previous version (schemas.models.DocumentChanges), one
-- row per later version, keyed by its doc id, as written by adapters/sinks/postgres.py (CHANGES in
-- adapters/sinks/rows.py). `changes`, `ties` and `flags` are JSON arrays of FigureChange, TieChange and
-- the VER001 flags (also rows of `flags`); jsonb_array_elements(changes) gives one row per figure.
-- The later version's row of documents is written in the same transaction; the earlier one's is not
-- referenced (it may be gone, or from another pipeline version).

CREATE TABLE changes (
    new_doc_id            text        PRIMARY KEY REFERENCES documents (doc_id) ON DELETE CASCADE,
    old_doc_id            text        NOT NULL,
    old_source            text        NOT NULL,
    new_source            text        NOT NULL,
    old_figures           integer     NOT NULL,
    new_figures           integer     NOT NULL,
    matched               integer     NOT NULL,
    matched_share         real        NOT NULL,
    changes               jsonb       NOT NULL DEFAULT '[]',
    ties                  jsonb       NOT NULL DEFAULT '[]',
    flags                 jsonb       NOT NULL DEFAULT '[]',
    record_schema_version text        NOT NULL,
    ingest_date           date        NOT NULL,
    updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX changes_old_doc_id_idx ON changes (old_doc_id);
