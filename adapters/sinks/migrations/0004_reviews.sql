-- 0004_reviews: analysts' decisions about flags (the review console, `tieout review --services`).
--
-- flag_reviews holds each judged flag's current state; a flag without a row is open, version 0. It has
-- no foreign key to flags on purpose: the sink replaces a document's flags when it is processed again,
-- and an analyst's judgement must outlive that. review_decisions is the audit trail: one row per action,
-- never updated or deleted (the triggers refuse), in commit order by seq (decisions are serialised by an
-- advisory lock, so a reader that remembers the last seq it saw misses nothing).

CREATE TABLE flag_reviews (
    flag_id    text        PRIMARY KEY,
    doc_id     text        NOT NULL,
    status     text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'confirmed', 'dismissed')),
    assignee   text,
    reason     text        CHECK (reason IS NULL OR reason IN
                               ('wrong_pairing', 'wrong_scale', 'different_basis', 'extraction_error', 'other')),
    version    integer     NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at timestamptz,
    updated_by text
);

CREATE INDEX flag_reviews_status_idx ON flag_reviews (status);
CREATE INDEX flag_reviews_assignee_idx ON flag_reviews (assignee);

CREATE TABLE review_decisions (
    seq        bigserial   PRIMARY KEY,
    review_id  text        NOT NULL UNIQUE,
    flag_id    text        NOT NULL,
    doc_id     text        NOT NULL,
    action     text        NOT NULL,
    status     text        NOT NULL,
    reviewer   text        NOT NULL,
    decided_at timestamptz NOT NULL,
    record     jsonb       NOT NULL
);

CREATE INDEX review_decisions_flag_idx ON review_decisions (flag_id, seq);

CREATE FUNCTION review_decisions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'review_decisions is an append-only audit trail: % refused', TG_OP;
END
$$;

CREATE TRIGGER review_decisions_no_update_delete BEFORE UPDATE OR DELETE ON review_decisions
    FOR EACH ROW EXECUTE FUNCTION review_decisions_append_only();
CREATE TRIGGER review_decisions_no_truncate BEFORE TRUNCATE ON review_decisions
    FOR EACH STATEMENT EXECUTE FUNCTION review_decisions_append_only();

-- The queue's filters on the sink's flags table.
CREATE INDEX flags_kind_idx ON flags (kind);
CREATE INDEX flags_severity_idx ON flags (severity);
