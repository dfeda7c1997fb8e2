#!/usr/bin/env bash
# tieout's local schema registry: Apicurio Registry built from Maven Central jars (no Docker), serving the
# Confluent-compatible REST API (/apis/ccompat/v7) that registry-aware Kafka deserializers speak.
# Storage persists: Apicurio's SQL storage on an H2 database file in $STATE/registry/, so subjects, rules
# and schema ids survive a restart (records framed before it stay readable); `reset` deletes it.
#
#   bash infra/registry.sh fetch    # resolve the jars + Quarkus build once (cached under $TIEOUT_CACHE)
#   bash infra/registry.sh up       # start it, wait for GET /apis/ccompat/v7/subjects, write $STATE/registry.env
#   bash infra/registry.sh status   # health, pid, URL, subjects, RSS (exit 1 if down)
#   bash infra/registry.sh env      # print $STATE/registry.env
#   bash infra/registry.sh down     # SIGTERM, bounded wait, SIGKILL (the data stays)
#   bash infra/registry.sh reset    # down, then delete the data (every subject, rule and id)
#
# Environment: REGISTRY_PORT (default: the previous one if still free, else a free one),
# REGISTRY_HEAP_OPTS (default -Xms32m -Xmx320m), TIEOUT_START_TIMEOUT, TIEOUT_STOP_TIMEOUT,
# TIEOUT_FETCH_TIMEOUT, TIEOUT_STATE, TIEOUT_CACHE. See infra/README.md.
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

POM="$INFRA/registry/pom.xml"

APICURIO_VERSION=2.4.2.Final   # pinned in infra/registry/pom.xml (why this one: see there)

REG_HOME="$CACHE/registry/$APICURIO_VERSION"
APP_DIR="$REG_HOME/app"                     # the runner jar + lib/, as the Quarkus build lays them out
RUNNER="$APP_DIR/tieout-schema-registry-0.0.0-runner.jar"
STAMP="$APP_DIR/.complete"                  # holds the hash of the pom it was built from

ENV_FILE="$STATE/registry.env"
PID_FILE="$RUN/registry.pid"
PORT_FILE="$RUN/registry.port"
LOG_FILE="$LOGS/registry.log"
DATA="$STATE/registry"                      # the H2 database (registry.mv.db); `reset` deletes it
# Apicurio 2.4.2's SQL storage reads quarkus.datasource.jdbc.url (its application.properties:
# ${REGISTRY_DATASOURCE_URL:jdbc:h2:mem:registry_db}); a file URL makes it persistent. WRITE_DELAY=0
# writes each commit through to the file, so an id the registry answered survives even a SIGKILL.
JDBC_URL="jdbc:h2:file:$DATA/registry;WRITE_DELAY=0"

START_TIMEOUT=${TIEOUT_START_TIMEOUT:-90}    # seconds
# Small heap: the machine also runs Kafka, PostgreSQL and two CPU model servers during the tests.
# Measured: ~200 MiB RSS idle with -Xmx320m.
REGISTRY_HEAP_OPTS=${REGISTRY_HEAP_OPTS:--Xms32m -Xmx320m}

# The command line names this state directory, so two checkouts' registries are told apart.
MATCH="-Dtieout.state=$STATE "

# ------------------------------------------------------------------------------ fetch
pom_hash() { sha256sum "$POM" | cut -c1-16; }

cmd_fetch() {
  command -v java >/dev/null || die "java not found (Java 17+)"
  mkdir -p "$CACHE"
  # one build at a time per cache (two checkouts, or CI next to a developer)
  exec 8>"$CACHE/.registry-fetch.lock"
  flock -w "$FETCH_TIMEOUT" 8 || die "timed out waiting for $CACHE/.registry-fetch.lock"
  local want
  want=$(pom_hash)
  if [[ -f "$RUNNER" && "$(cat "$STAMP" 2>/dev/null)" == "$want" ]]; then
    log "apicurio registry $APICURIO_VERSION: cached in $APP_DIR"
    exec 8>&-
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  local build="$REG_HOME/build" t0=$SECONDS
  rm -rf "$build"
  mkdir -p "$REG_HOME"
  log "apicurio registry $APICURIO_VERSION: resolving from Maven Central and building (Quarkus) into $APP_DIR ..."
  if ! timeout "$FETCH_TIMEOUT" "${MVN[@]}" -B -Dstyle.color=never -f "$POM" package \
      -Dregistry.build.dir="$build" >"$REG_HOME/mvn.log" 2>&1; then
    tail -n 40 "$REG_HOME/mvn.log" >&2
    die "the Maven build of the registry failed (log: $REG_HOME/mvn.log)"
  fi
  [[ -f "$build/tieout-schema-registry-0.0.0-runner.jar" ]] || die "no runner jar in $build (log: $REG_HOME/mvn.log)"
  rm -rf "$APP_DIR"
  mkdir -p "$APP_DIR"
  # the runner jar's manifest names its jars as lib/..., relative to itself
  mv "$build/tieout-schema-registry-0.0.0-runner.jar" "$build/lib" "$APP_DIR/"
  rm -rf "$build"
  echo "$want" >"$STAMP"
  log "apicurio registry: built in $((SECONDS - t0)) s ($(find "$APP_DIR/lib" -name '*.jar' | wc -l) jars)"
  exec 8>&-
}

# ------------------------------------------------------------------------------ process
pid_alive() { # the pid in $PID_FILE is running and its command line is this state's registry
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid=$(<"$PID_FILE")
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$MATCH"
}

url_of() { echo "http://127.0.0.1:$1/apis/ccompat/v7"; }

healthy() { # PORT: a real API call, not only the port: GET /subjects answers 200
  "${PROBE[@]}" s3-health "$(url_of "$1")/subjects" 2>/dev/null  # (s3-health: a plain GET expecting 200)
}

resolve_port() {
  local prev=""
  [[ -f "$PORT_FILE" ]] && prev=$(<"$PORT_FILE")
  if [[ -n "${REGISTRY_PORT:-}" ]]; then PORT=$REGISTRY_PORT
  elif [[ -n "$prev" ]] && { pid_alive || "${PROBE[@]}" port-free "$prev"; }; then PORT=$prev
  else PORT=$("${PROBE[@]}" free-ports 1); fi
  if ! pid_alive; then
    "${PROBE[@]}" port-free "$PORT" || die "port 127.0.0.1:$PORT is already in use (set REGISTRY_PORT)"
  fi
  echo "$PORT" >"$PORT_FILE"
}

write_env() {
  write_env_file "$ENV_FILE" "$(env_header)" "SCHEMA_REGISTRY_URL=$(url_of "$PORT")" "REGISTRY_PORT=$PORT" \
    "REGISTRY_PID=$(<"$PID_FILE")" "REGISTRY_KIND=apicurio-$APICURIO_VERSION" "REGISTRY_STORAGE=h2-file:$DATA" \
    "REGISTRY_LOG=$LOG_FILE"
}

cmd_up() {
  local t0=$SECONDS
  cmd_fetch
  mkdir -p "$LOGS" "$RUN"
  resolve_port
  if pid_alive; then
    healthy "$PORT" || die "registry pid $(<"$PID_FILE") is running but $(url_of "$PORT")/subjects does not answer"
    log "already running (pid $(<"$PID_FILE"), $(url_of "$PORT"))"
    write_env
    return
  fi
  [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  mkdir -p "$DATA"
  log "starting Apicurio Registry $APICURIO_VERSION on 127.0.0.1:$PORT (storage: $DATA)"
  # Runtime configuration as system properties (they outrank the application.properties in the jar).
  # The console log goes to $LOG_FILE; no OIDC/auth (loopback only, like the rest of the local stack).
  # shellcheck disable=SC2086
  setsid nohup java $REGISTRY_HEAP_OPTS -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    "-Dtieout.state=$STATE" \
    -Dquarkus.http.host=127.0.0.1 "-Dquarkus.http.port=$PORT" \
    "-Dquarkus.datasource.jdbc.url=$JDBC_URL" \
    -Dquarkus.log.category.io.sentry.level=ERROR \
    -jar "$RUNNER" </dev/null >"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"

  local deadline=$((SECONDS + START_TIMEOUT)) pid
  pid=$(<"$PID_FILE")
  until healthy "$PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      die "the registry exited during start-up (log: $LOG_FILE)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 40 "$LOG_FILE" >&2 || true
      stop_pid "$pid"
      die "the registry did not answer $(url_of "$PORT")/subjects within ${START_TIMEOUT}s (log: $LOG_FILE)"
    fi
    sleep 0.5
  done
  write_env
  log "up in $((SECONDS - t0)) s (pid $pid, RSS $(rss_of "$pid")); env file: $ENV_FILE"
  cat "$ENV_FILE"
}

stop_pid() { # PID: terminate, then forget the pid file
  terminate "$1" ""
  rm -f "$PID_FILE"
}

cmd_down() {
  rm -f "$ENV_FILE"
  if ! pid_alive; then
    rm -f "$PID_FILE"
    log "not running"
    return
  fi
  local pid
  pid=$(<"$PID_FILE")
  stop_pid "$pid"
  log "stopped"
}

cmd_status() {
  local port=""
  [[ -f "$PORT_FILE" ]] && port=$(<"$PORT_FILE")
  if ! pid_alive; then
    echo "registry:  down"
    return 1
  fi
  local pid subjects
  pid=$(<"$PID_FILE")
  # a count: the persistent storage accumulates subjects (every test run registers its own prefix's)
  if subjects=$("$PY" -c 'import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/subjects", timeout=5) as r: print(len(json.load(r)))' \
      "$(url_of "$port")" 2>/dev/null); then
    echo "registry:  healthy  pid=$pid url=$(url_of "$port") subjects=$subjects rss=$(rss_of "$pid")"
  else
    echo "registry:  UNHEALTHY pid=$pid (GET $(url_of "$port")/subjects failed; log: $LOG_FILE)"
    return 1
  fi
}

cmd_reset() {
  cmd_down
  rm -rf "$DATA"
  log "deleted $DATA (every subject, rule and schema id)"
}

dispatch "fetch|up|down|status|env|reset" "$@"
