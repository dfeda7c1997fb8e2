-- 0005_review_cursors: how far each reader of the review decisions has got (the outbox's cursors).
--
-- A publisher of the `reviews` topic reads review_decisions after its cursor (decisions_since), produces
-- and flushes them, then advances its cursor here: after a crash it starts again from the last seq it
-- recorded, so a decision may be sent twice (readers dedupe by review_id) but never skipped. A cursor
-- only moves forwards (the store's upsert ignores a lower seq).

CREATE TABLE review_cursors (
    name       text        PRIMARY KEY CHECK (name <> ''),
    seq        bigint      NOT NULL CHECK (seq >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
