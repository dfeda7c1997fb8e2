#!/usr/bin/env bash
# tieout's local PostgreSQL: a private cluster (its own initdb, data dir, port and socket), never the
# system cluster, for the PostgreSQL sink (adapters/sinks/postgres.py) and its integration tests.
#
#   bash infra/postgres.sh fetch    # only install the server binaries if missing (make test's setup step)
#   bash infra/postgres.sh up       # install the server if missing, initdb once, start, create role + db,
#                                   # write $STATE/pg.env (PG_DSN, PG_PORT, PG_DATA, ...)
#   bash infra/postgres.sh status   # health, pid, port, RSS (exit 1 if down)
#   bash infra/postgres.sh env      # print $STATE/pg.env
#   bash infra/postgres.sh down     # pg_ctl stop -m fast (bounded), then -m immediate if that timed out
#   bash infra/postgres.sh reset    # down, then delete the cluster's data
#
# Environment: PG_PORT (port to listen on; default: the previous one if still free, else a free one),
# PG_BIN (directory holding initdb/pg_ctl; default: the newest /usr/lib/postgresql/*/bin),
# PG_OS_USER (OS user that owns and runs the cluster when this script runs as root; default postgres),
# PG_START_TIMEOUT (seconds, default 60), TIEOUT_STATE, TIEOUT_CACHE, TIEOUT_FETCH_TIMEOUT (apt, seconds).
#
# Authentication is scram-sha-256 with a password generated on first `up` into $STATE/pg.secret (0600)
# and written into PG_DSN of $STATE/pg.env (0600): even on loopback, a process that does not have the
# secret cannot connect. A cluster made by an older version of this script (trust) is switched over.
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ENV_FILE="$STATE/pg.env"
SECRET_FILE="$STATE/pg.secret"
PORT_FILE="$RUN/pg.port"
LOCK_FILE="$RUN/pg.lock"

PG_OS_USER=${PG_OS_USER:-postgres}
PG_SUPERUSER=postgres            # bootstrap superuser inside the private cluster, whoever runs it
PG_ROLE=tieout
PG_DATABASE=tieout

START_TIMEOUT=${PG_START_TIMEOUT:-60}          # seconds, pg_ctl start -w -t
INSTALL_TIMEOUT=${TIEOUT_FETCH_TIMEOUT:-1200}  # seconds, per apt-get call
SQL_TIMEOUT=30                                 # seconds, per psql call
export PGCONNECT_TIMEOUT=5

now_ms() { date +%s%3N; }
since() { echo "$(($(now_ms) - $1)) ms"; }

# ------------------------------------------------------------------------------ who runs the cluster
# initdb and pg_ctl refuse to run as root, so as root they run as $PG_OS_USER; as anyone else, as
# themselves. `cd /` first: the caller's directory may be unreadable to that user (e.g. under /root).
as_pg() {
  if ((EUID == 0)); then
    (cd / && runuser -u "$PG_OS_USER" -- "$@")
  else
    (cd / && "$@")
  fi
}

own() { # PATH...: hand over to the cluster's OS user (no-op when not root)
  if ((EUID == 0)); then chown "$PG_OS_USER:" "$@"; fi
}

ensure_os_user() {
  ((EUID == 0)) || return 0
  command -v runuser >/dev/null || die "runuser not found (util-linux)"
  id -u "$PG_OS_USER" >/dev/null 2>&1 && return 0
  # Debian's package creates it; a PG_BIN from elsewhere may not have.
  log "creating system user $PG_OS_USER"
  useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$PG_OS_USER"
}

# ------------------------------------------------------------------------------ paths
# The cluster lives in $STATE/pg. When its OS user cannot reach $STATE (a checkout under /root, which
# is 0700) or the socket path would exceed the 107-byte sun_path limit, it lives in
# /var/tmp/tieout-pg-<hash of $STATE> instead and $STATE/pg is a symlink to it, so the choice is made once.
resolve_root() {
  if [[ -L "$STATE/pg" ]]; then PG_ROOT=$(readlink -f "$STATE/pg"); else PG_ROOT="$STATE/pg"; fi
  DATA_DIR="$PG_ROOT/data"
  SOCK_DIR="$PG_ROOT/sock"
  if [[ -L "$STATE/pg" ]]; then SERVER_LOG="$PG_ROOT/postgres.log"; else SERVER_LOG="$LOGS/postgres.log"; fi
}

prepare_root() {
  mkdir -p "$STATE" "$LOGS" "$RUN"
  if [[ ! -e "$STATE/pg" ]]; then
    local reachable=1 sock_len
    if ((EUID == 0)) && ! as_pg test -x "$STATE"; then reachable=0; fi
    sock_len=$(printf '%s' "$STATE/pg/sock/.s.PGSQL.65535" | wc -c)
    if ((reachable == 0 || sock_len > 100)); then
      local alt
      alt="/var/tmp/tieout-pg-$(printf '%s' "$STATE" | sha256sum | cut -c1-12)"
      log "cluster root: $alt ($STATE is not reachable by $PG_OS_USER or too long for a socket path); linked from $STATE/pg"
      mkdir -p "$alt"
      chmod 0755 "$alt"
      ln -s "$alt" "$STATE/pg"
    else
      mkdir -p "$STATE/pg"
    fi
  fi
  resolve_root
  mkdir -p "$PG_ROOT"
  own "$PG_ROOT"
  as_pg test -w "$PG_ROOT" || die "$PG_ROOT is not writable by $PG_OS_USER"
  as_pg mkdir -p -m 0700 "$SOCK_DIR"
}

# ------------------------------------------------------------------------------ binaries
find_bindir() { # prints the directory with initdb + pg_ctl, or nothing
  if [[ -n "${PG_BIN:-}" ]]; then echo "$PG_BIN"; return; fi
  # an existing cluster needs the binaries of its own major version
  local want="" d
  [[ -f "$DATA_DIR/PG_VERSION" ]] && want=$(<"$DATA_DIR/PG_VERSION")
  if [[ -n "$want" && -x "/usr/lib/postgresql/$want/bin/pg_ctl" ]]; then
    echo "/usr/lib/postgresql/$want/bin"
    return
  fi
  d=$(for d in /usr/lib/postgresql/*/bin; do
        [[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/postgres" ]] && echo "$d"
      done | sort -V | tail -n 1)
  if [[ -n "$d" ]]; then echo "$d"; return; fi
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v pg_ctl)"; fi
}

install_server() {
  ((EUID == 0)) || die "PostgreSQL server binaries not found: install Debian's 'postgresql' package or set PG_BIN"
  command -v apt-get >/dev/null || die "PostgreSQL server binaries not found and no apt-get: set PG_BIN"
  mkdir -p "$CACHE"
  # one install at a time per machine cache (two checkouts running `make test` at once)
  exec 7>"$CACHE/.pg-install.lock"
  flock -w "$INSTALL_TIMEOUT" 7 || die "timed out waiting for $CACHE/.pg-install.lock"
  BIN=$(find_bindir)
  if [[ -z "$BIN" ]]; then
    local t0 ilog="$LOGS/postgres-install.log"
    t0=$(now_ms)
    log "server binaries missing: apt-get install postgresql (log $ilog) ..."
    : >"$ilog"
    if ! DEBIAN_FRONTEND=noninteractive timeout "$INSTALL_TIMEOUT" apt-get update -qq >>"$ilog" 2>&1 7>&- 9>&- \
      || ! DEBIAN_FRONTEND=noninteractive timeout "$INSTALL_TIMEOUT" apt-get install -y -qq \
           -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
           postgresql >>"$ilog" 2>&1 7>&- 9>&-; then
      tail -n 30 "$ilog" >&2
      die "apt-get install postgresql failed (log: $ilog)"
    fi
    BIN=$(find_bindir)
    [[ -n "$BIN" ]] || die "postgresql installed but no initdb/pg_ctl under /usr/lib/postgresql/*/bin"
    log "installed $("$BIN/postgres" --version) in $(since "$t0")"
  fi
  exec 7>&-
}

ensure_binaries() {
  BIN=$(find_bindir)
  [[ -n "$BIN" ]] || install_server
  [[ -x "$BIN/initdb" && -x "$BIN/pg_ctl" && -x "$BIN/psql" ]] || die "no initdb/pg_ctl/psql in $BIN"
}

# ------------------------------------------------------------------------------ cluster
running() { # the private cluster's postmaster is alive (pg_ctl status: 0 running, 3 stopped, 4 no data dir)
  [[ -f "$DATA_DIR/PG_VERSION" ]] || return 1
  as_pg timeout 10 "$BIN/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1
}

pid_of() { head -n 1 "$DATA_DIR/postmaster.pid" 2>/dev/null; }
running_port() { sed -n 4p "$DATA_DIR/postmaster.pid" 2>/dev/null; } # 4th line of postmaster.pid: port

# Precedence: PG_PORT > the running server's port > the previous port if still free > a new free port.
resolve_port() {
  local prev=""
  [[ -f "$PORT_FILE" ]] && prev=$(<"$PORT_FILE")
  if running; then
    PORT=$(running_port)
    if [[ -n "${PG_PORT:-}" && "$PG_PORT" != "$PORT" ]]; then
      die "cluster already runs on port $PORT, not PG_PORT=$PG_PORT ('down' first)"
    fi
  elif [[ -n "${PG_PORT:-}" ]]; then
    PORT=$PG_PORT
    "${PROBE[@]}" port-free "$PORT" || die "port 127.0.0.1:$PORT (PG_PORT) is already in use"
  elif [[ -n "$prev" ]] && "${PROBE[@]}" port-free "$prev"; then
    PORT=$prev
  else
    PORT=$("${PROBE[@]}" free-ports 1)
  fi
  [[ "$PORT" =~ ^[0-9]+$ ]] || die "bad port '$PORT'"
  echo "$PORT" >"$PORT_FILE"
}

init_cluster() {
  [[ -f "$DATA_DIR/PG_VERSION" ]] && return 0
  local t0 tmp="$PG_ROOT/data.partial"
  t0=$(now_ms)
  log "initdb: new cluster in $DATA_DIR ($("$BIN/postgres" --version))"
  as_pg rm -rf "$tmp"
  # --no-sync: a crash in the next few seconds would only lose a cluster that initdb can recreate
  if ! as_pg timeout 120 "$BIN/initdb" -D "$tmp" -U "$PG_SUPERUSER" --auth=trust --encoding=UTF8 \
       --locale=C --no-sync >"$LOGS/postgres-initdb.log" 2>&1; then
    tail -n 30 "$LOGS/postgres-initdb.log" >&2
    die "initdb failed (log: $LOGS/postgres-initdb.log)"
  fi
  # Trust only until ensure_role_and_db has set the passwords; write_hba then requires them.
  as_pg sh -c "cat >'$tmp/pg_hba.conf'" <<'EOF'
# written by infra/postgres.sh at initdb: trust until the first `up` sets passwords
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF
  # Settings that change per run (the port) go in tieout.conf, rewritten by every `up`.
  as_pg sh -c "printf '\n# infra/postgres.sh\ninclude_if_exists = '\''tieout.conf'\''\n' >>'$tmp/postgresql.conf'"
  as_pg mv "$tmp" "$DATA_DIR"
  log "initdb: done in $(since "$t0")"
}

write_conf() {
  as_pg sh -c "cat >'$DATA_DIR/tieout.conf'" <<EOF
# written by infra/postgres.sh up at $(date -u +%Y-%m-%dT%H:%M:%SZ)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCK_DIR'
# small: a test/dev server on a shared 2-core machine
max_connections = 40
shared_buffers = 64MB
# a crash may lose the last few commits, never corrupts: fine for test data, and commits are cheaper
synchronous_commit = off
timezone = 'UTC'
log_timezone = 'UTC'
log_line_prefix = '%m [%p] %q%u@%d '
EOF
}

ensure_secret() {
  if [[ ! -s "$SECRET_FILE" ]]; then
    new_secret "$SECRET_FILE"
    log "generated a password into $SECRET_FILE"
  fi
  chmod 600 "$SECRET_FILE"
  PG_PASSWORD=$(<"$SECRET_FILE")
}

psql_su() { # ARGS...: psql as the cluster's superuser over TCP, bounded
  PGPASSWORD="$PG_PASSWORD" timeout "$SQL_TIMEOUT" "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 \
    -p "$PORT" -U "$PG_SUPERUSER" -d postgres "$@"
}

HBA='# written by infra/postgres.sh: a private test/dev cluster on loopback; every login needs its password
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  scram-sha-256
host    all       all   127.0.0.1/32   scram-sha-256'

write_hba() { # passwords required from now on (scram-sha-256), also over the Unix socket
  if [[ "$(as_pg cat "$DATA_DIR/pg_hba.conf")" != "$HBA" ]]; then
    printf '%s\n' "$HBA" | as_pg sh -c "cat >'$DATA_DIR/pg_hba.conf'"
    ctl reload >/dev/null
    log "password authentication (scram-sha-256) required"
  fi
}

ensure_role_and_db() {
  if [[ "$(psql_su -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$PG_ROLE'")" != 1 ]]; then
    log "creating role $PG_ROLE"
    # CREATEDB: the integration tests create (and drop) one database per test
    psql_su -c "CREATE ROLE $PG_ROLE LOGIN CREATEDB"
  fi
  # The secret is hex: safe inside a SQL literal and a URI. Sent on stdin, so it never shows in `ps`.
  printf "ALTER ROLE %s PASSWORD '%s';\nALTER ROLE %s PASSWORD '%s';\n" \
    "$PG_SUPERUSER" "$PG_PASSWORD" "$PG_ROLE" "$PG_PASSWORD" | psql_su
  if [[ "$(psql_su -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")" != 1 ]]; then
    log "creating database $PG_DATABASE"
    psql_su -c "CREATE DATABASE $PG_DATABASE OWNER $PG_ROLE"
  fi
}

write_env() {  # private: it holds the password
  write_env_file --private "$ENV_FILE" "$(env_header)" \
    "PG_DSN=postgresql://$PG_ROLE:$PG_PASSWORD@127.0.0.1:$PORT/$PG_DATABASE" "PG_HOST=127.0.0.1" \
    "PG_PORT=$PORT" "PG_USER=$PG_ROLE" "PG_DATABASE=$PG_DATABASE" "PG_DATA=$DATA_DIR" \
    "PG_SOCKET_DIR=$SOCK_DIR" "PG_BIN=$BIN" "PG_PID=$(pid_of)" "PG_LOG=$SERVER_LOG"
}

# `up` stops the server if it started it and a later step failed (TIEOUT_KEEP_ON_FAILURE=1 keeps it).
STARTED=0
cleanup_on_failure() {
  local rc=$?
  ((rc != 0 && STARTED == 1)) || return 0
  [[ "${TIEOUT_KEEP_ON_FAILURE:-0}" == 1 ]] && { log "leaving the server running (TIEOUT_KEEP_ON_FAILURE=1)"; return 0; }
  log "up failed: stopping the server this run started; log stays in $SERVER_LOG"
  ctl stop -m fast -w -t "$STOP_TIMEOUT" >/dev/null 2>&1 || ctl stop -m immediate -w -t 10 >/dev/null 2>&1 || true
}

setup() { # paths and binaries for down/status: never installs or creates anything
  resolve_root
  BIN=$(find_bindir)
  [[ -n "$BIN" && -x "$BIN/pg_ctl" ]] || die "no PostgreSQL server binaries found (set PG_BIN)"
}

ctl() { as_pg "$BIN/pg_ctl" -D "$DATA_DIR" "$@"; }

# ------------------------------------------------------------------------------ commands
cmd_fetch() {
  mkdir -p "$STATE" "$LOGS" "$RUN"
  resolve_root
  ensure_binaries
  ensure_os_user
  log "server binaries: $BIN ($("$BIN/postgres" --version))"
}

cmd_up() {
  local t0; t0=$(now_ms)
  mkdir -p "$STATE" "$LOGS" "$RUN"
  # one `up`/`down` at a time per state dir, so role/db creation and port choice cannot race
  exec 9>"$LOCK_FILE"
  flock -w 120 9 || die "timed out waiting for $LOCK_FILE"
  resolve_root
  ensure_binaries
  ensure_os_user
  prepare_root
  init_cluster
  resolve_port
  if running; then
    log "already running (pid $(pid_of), 127.0.0.1:$PORT)"
  else
    write_conf
    if [[ -L "$STATE/pg" ]]; then ln -sfn "$SERVER_LOG" "$LOGS/postgres.log"; fi
    [[ -f "$SERVER_LOG" ]] && mv -f "$SERVER_LOG" "$SERVER_LOG.1"
    : >"$SERVER_LOG"
    own "$SERVER_LOG"
    trap cleanup_on_failure EXIT
    STARTED=1
    local t1; t1=$(now_ms)
    log "starting on 127.0.0.1:$PORT (data $DATA_DIR, log $SERVER_LOG)"
    # 9>&-: the postmaster must not inherit (and so hold forever) the lock on $LOCK_FILE
    if ! ctl -w -t "$START_TIMEOUT" -l "$SERVER_LOG" start >/dev/null 9>&-; then
      log "---- last 40 lines of $SERVER_LOG ----"
      tail -n 40 "$SERVER_LOG" >&2 || true
      die "pg_ctl start failed or not ready within ${START_TIMEOUT}s"
    fi
    log "ready in $(since "$t1") (pid $(pid_of))"
  fi
  timeout 10 "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -U "$PG_SUPERUSER" -d postgres -t 5 || die "pg_isready: no answer on 127.0.0.1:$PORT"
  ensure_secret
  ensure_role_and_db
  write_hba
  write_env
  trap - EXIT
  exec 9>&-
  log "up in $(since "$t0"); env file: $ENV_FILE"
  sed -E "s#^(PG_DSN=postgresql://[^:]+:)[^@]+@#\1***@#" "$ENV_FILE"   # the password stays in the file
}

cmd_down() {
  mkdir -p "$RUN"
  exec 9>"$LOCK_FILE"
  flock -w 120 9 || die "timed out waiting for $LOCK_FILE"
  resolve_root
  if [[ ! -f "$DATA_DIR/PG_VERSION" ]]; then
    rm -f "$ENV_FILE"
    log "no cluster in $DATA_DIR"
    return
  fi
  setup
  if ! running; then
    rm -f "$ENV_FILE"
    log "not running"
    return
  fi
  local t0 pid; t0=$(now_ms); pid=$(pid_of)
  log "stopping (pid $pid, fast shutdown)"
  if ! ctl stop -m fast -w -t "$STOP_TIMEOUT" >/dev/null; then
    log "not stopped after ${STOP_TIMEOUT}s: immediate shutdown"
    ctl stop -m immediate -w -t 10 >/dev/null || die "could not stop pid $pid"
  fi
  rm -f "$ENV_FILE"
  log "stopped in $(since "$t0")"
}

cmd_status() {
  resolve_root
  if [[ ! -f "$DATA_DIR/PG_VERSION" ]]; then
    echo "postgres:  down (no cluster in $DATA_DIR)"
    return 1
  fi
  setup
  if ! running; then
    echo "postgres:  down (data $DATA_DIR)"
    return 1
  fi
  local pid port; pid=$(pid_of); port=$(running_port)
  if timeout 10 "$BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U "$PG_SUPERUSER" -d postgres -t 5; then
    echo "postgres:  healthy  pid=$pid dsn=postgresql://$PG_ROLE@127.0.0.1:$port/$PG_DATABASE rss=$(rss_of "$pid") data=$DATA_DIR"
  else
    echo "postgres:  UNHEALTHY pid=$pid port=$port (pg_isready failed; log $SERVER_LOG)"
    return 1
  fi
  echo "logs:      $SERVER_LOG"
}

cmd_reset() {
  cmd_down
  resolve_root
  log "removing $PG_ROOT"
  rm -rf "$PG_ROOT" "$STATE/pg" "$PORT_FILE"
}

dispatch "fetch|up|down|status|env|reset" "$@"
