-- 0008_review_sessions: the review console's sessions, failed logins and login audit trail
-- (adapters/review/logins.py; the embedded SQLite store creates the same tables).
--
-- review_sessions: one row per logged-in session, keyed by the SHA-256 of the random id in the browser's
-- cookie (so a copy of the table gives no live cookie); deleting the row (logout, `tieout review passwd`
-- or `deluser`, a timeout) ends the session at once, in every console process on this database.
-- review_login_failures: failed logins per (user, client address), which the back-off reads.
-- review_logins: every login attempt, append-only (the triggers refuse UPDATE, DELETE and TRUNCATE).
-- Times are seconds since the epoch: to_timestamp(at) reads one.

CREATE TABLE review_sessions (
    id_hash     text             PRIMARY KEY,
    user_name   text             NOT NULL,
    csrf        text             NOT NULL,
    fingerprint text             NOT NULL,
    created_at  double precision NOT NULL,
    last_seen   double precision NOT NULL,
    data        text             NOT NULL DEFAULT '{}'
);

CREATE INDEX review_sessions_user_idx ON review_sessions (user_name);

CREATE TABLE review_login_failures (
    user_key text             NOT NULL,
    address  text             NOT NULL,
    failures integer          NOT NULL CHECK (failures > 0),
    last_at  double precision NOT NULL,
    PRIMARY KEY (user_key, address)
);

CREATE INDEX review_login_failures_last_idx ON review_login_failures (last_at);

CREATE TABLE review_logins (
    id        bigserial        PRIMARY KEY,
    at        double precision NOT NULL,
    user_name text             NOT NULL,
    address   text             NOT NULL,
    outcome   text             NOT NULL CHECK (outcome IN ('ok', 'wrong', 'throttled'))
);

CREATE INDEX review_logins_at_idx ON review_logins (outcome, at);

CREATE FUNCTION review_logins_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'review_logins is an append-only audit trail: % refused', TG_OP;
END
$$;

CREATE TRIGGER review_logins_no_update_delete BEFORE UPDATE OR DELETE ON review_logins
    FOR EACH ROW EXECUTE FUNCTION review_logins_append_only();
CREATE TRIGGER review_logins_no_truncate BEFORE TRUNCATE ON review_logins
    FOR EACH STATEMENT EXECUTE FUNCTION review_logins_append_only();
