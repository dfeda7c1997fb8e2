#!/usr/bin/env bash
# tieout local stack without Docker: a single-node Apache Kafka (KRaft) broker from
# Maven Central jars, and a versitygw S3 gateway (posix backend) that publishes
# S3 event records for every bucket to the landing topic.
#
#   bash infra/stack.sh fetch    # resolve Kafka jars + build versitygw once (cached)
#   bash infra/stack.sh up       # start both, create topic + bucket, write $STATE/stack.env
#   bash infra/stack.sh status   # health of each service (exit 1 if anything is down)
#   bash infra/stack.sh env      # print $STATE/stack.env
#   bash infra/stack.sh down     # stop both (SIGTERM, bounded wait, SIGKILL)
#   bash infra/stack.sh stop kafka|s3   # stop one (outage drills; `up` starts it again, same port)
#   bash infra/stack.sh reset    # down, then delete all runtime state (data, logs)
#
# See infra/README.md for the environment variables.
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KAFKA_VERSION=${KAFKA_VERSION:-4.1.2}        # default also pinned in infra/kafka/pom.xml
VERSITYGW_VERSION=${VERSITYGW_VERSION:-v1.8.0}
VERSITYGW_MODULE=github.com/versity/versitygw

KAFKA_HOME="$CACHE/kafka/$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME/libs"
VGW_BIN="$CACHE/bin/versitygw"

KAFKA_STATE="$STATE/kafka"
S3_DATA="$STATE/s3data"
ENV_FILE="$STATE/stack.env"
PORTS_FILE="$RUN/ports.env"

TOPIC_PREFIX=${TOPIC_PREFIX:-tieout.}
LANDING_TOPIC="${TOPIC_PREFIX}landing"
LANDING_PARTITIONS=${LANDING_PARTITIONS:-4}
LANDING_BUCKET=${LANDING_BUCKET:-tieout-landing}
S3_ACCESS_KEY=${S3_ACCESS_KEY:-tieout}
S3_SECRET_KEY=${S3_SECRET_KEY:-}              # empty: generated once into $STATE/s3.secret (0600)
S3_SECRET_FILE="$STATE/s3.secret"
KAFKA_USERNAME=tieout                          # the SCRAM user of the SASL listener
KAFKA_SECRET_FILE="$STATE/kafka.secret"        # its password, generated once (0600)
S3_REGION=${S3_REGION:-us-east-1}

START_TIMEOUT=${TIEOUT_START_TIMEOUT:-90}    # seconds, per service

KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}
TOOL_JVM_OPTS=(-Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
               "-Dlog4j2.configurationFile=$INFRA/kafka/log4j2-tools.properties")

# ------------------------------------------------------------------------------ fetch
fetch_kafka() {
  if [[ -f "$KAFKA_LIBS/.complete" ]]; then
    log "kafka $KAFKA_VERSION jars: cached in $KAFKA_LIBS"
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  local tmp="$KAFKA_HOME/libs.partial" t0=$SECONDS
  rm -rf "$tmp"
  log "kafka $KAFKA_VERSION jars: resolving from Maven Central into $KAFKA_LIBS ..."
  mkdir -p "$KAFKA_HOME"
  if ! timeout "$FETCH_TIMEOUT" "${MVN[@]}" -q -B -Dstyle.color=never -f "$INFRA/kafka/pom.xml" \
      dependency:copy-dependencies \
      -Dkafka.version="$KAFKA_VERSION" -Dkafka.libs.dir="$tmp" -Dmdep.includeScope=runtime \
      >"$KAFKA_HOME/mvn.log" 2>&1; then
    tail -n 30 "$KAFKA_HOME/mvn.log" >&2
    die "mvn dependency:copy-dependencies failed for kafka $KAFKA_VERSION (log: $KAFKA_HOME/mvn.log)"
  fi
  [[ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "kafka_2.13-$KAFKA_VERSION.jar missing from $tmp"
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  touch "$KAFKA_LIBS/.complete"
  log "kafka jars: $(find "$KAFKA_LIBS" -name "*.jar" | wc -l) jars in $((SECONDS - t0)) s"
}

cmd_fetch() {
  mkdir -p "$CACHE"
  # one fetch at a time per cache (e.g. two checkouts, or CI next to a developer)
  exec 9>"$CACHE/.fetch.lock"
  flock -w "$FETCH_TIMEOUT" 9 || die "timed out waiting for $CACHE/.fetch.lock"
  fetch_kafka
  go_build versitygw "$VERSITYGW_MODULE/cmd/versitygw" "$VERSITYGW_VERSION"
  exec 9>&-
}

# ------------------------------------------------------------------------------ processes
# pid_alive NAME PATTERN: the pid in $RUN/NAME.pid is running and its command line matches
pid_alive() {
  local f="$RUN/$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid=$(<"$f")
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2"
}
# just started: alive by pid alone (right after fork, before exec, the cmdline is still bash's)
started_alive() { kill -0 "$(<"$RUN/$1.pid")" 2>/dev/null; }
KAFKA_MATCH="kafka.Kafka $KAFKA_STATE/server.properties"
VGW_MATCH="versitygw"

stop_service() { # NAME PATTERN
  local name=$1 pattern=$2 pid
  if ! pid_alive "$name" "$pattern"; then
    rm -f "$RUN/$name.pid"
    log "$name: not running"
    return
  fi
  pid=$(<"$RUN/$name.pid")
  terminate "$pid" "$name: "
  rm -f "$RUN/$name.pid"
  log "$name: stopped"
}

# `up` stops what it started itself if it fails half-way (TIEOUT_KEEP_ON_FAILURE=1 keeps it).
STARTED=()
cleanup_on_failure() {
  local rc=$?
  ((rc != 0)) || return 0
  ((${#STARTED[@]})) || return 0
  [[ "${TIEOUT_KEEP_ON_FAILURE:-0}" == 1 ]] && { log "leaving ${STARTED[*]} running (TIEOUT_KEEP_ON_FAILURE=1)"; return 0; }
  local i name pid
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    name=${STARTED[i]}
    pid=$(<"$RUN/$name.pid") || continue
    log "up failed: stopping $name (pid $pid) that this run started; logs stay in $LOGS"
    kill -TERM "$pid" 2>/dev/null || continue
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$RUN/$name.pid"
  done
}

fail_with_log() { # LOGFILE MESSAGE
  log "---- last 40 lines of $1 ----"
  tail -n 40 "$1" >&2 || true
  log "----"
  die "$2"
}

# ------------------------------------------------------------------------------ ports
# Precedence: explicit env var > port of the running service / previous run (if still
# free) > a new free port.  Chosen ports are remembered in $RUN/ports.env.
resolve_ports() {
  local prev_kafka="" prev_ctrl="" prev_s3="" prev_sasl=""
  if [[ -f "$PORTS_FILE" ]]; then
    prev_kafka=$(sed -n 's/^KAFKA_PORT=//p' "$PORTS_FILE")
    prev_ctrl=$(sed -n 's/^KAFKA_CONTROLLER_PORT=//p' "$PORTS_FILE")
    prev_s3=$(sed -n 's/^S3_PORT=//p' "$PORTS_FILE")
    prev_sasl=$(sed -n 's/^KAFKA_SASL_PORT=//p' "$PORTS_FILE")
  fi
  local kafka_up=0 s3_up=0
  pid_alive kafka "$KAFKA_MATCH" && kafka_up=1
  pid_alive versitygw "$VGW_MATCH" && s3_up=1

  local -a fresh
  mapfile -t fresh < <("${PROBE[@]}" free-ports 4)
  pick() { # VAR-VALUE RUNNING PREV FRESH
    local want=$1 running=$2 prev=$3 new=$4
    if [[ -n "$want" ]]; then echo "$want"
    elif [[ $running == 1 && -n "$prev" ]]; then echo "$prev"
    elif [[ -n "$prev" ]] && "${PROBE[@]}" port-free "$prev"; then echo "$prev"
    else echo "$new"; fi
  }
  KAFKA_PORT=$(pick "${KAFKA_PORT:-}" $kafka_up "$prev_kafka" "${fresh[0]}")
  KAFKA_CONTROLLER_PORT=$(pick "${KAFKA_CONTROLLER_PORT:-}" $kafka_up "$prev_ctrl" "${fresh[1]}")
  S3_PORT=$(pick "${S3_PORT:-}" $s3_up "$prev_s3" "${fresh[2]}")
  KAFKA_SASL_PORT=$(pick "${KAFKA_SASL_PORT:-}" $kafka_up "$prev_sasl" "${fresh[3]}")
  if [[ $KAFKA_PORT == "$KAFKA_CONTROLLER_PORT" || $KAFKA_PORT == "$S3_PORT" || $KAFKA_CONTROLLER_PORT == "$S3_PORT" ]]; then
    die "ports must differ: KAFKA_PORT=$KAFKA_PORT KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT S3_PORT=$S3_PORT"
  fi
  if [[ $kafka_up == 0 ]]; then
    for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_PORT"; do
      "${PROBE[@]}" port-free "$p" || die "port 127.0.0.1:$p is already in use (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
    done
  fi
  if [[ $s3_up == 0 ]]; then
    "${PROBE[@]}" port-free "$S3_PORT" || die "port 127.0.0.1:$S3_PORT is already in use (set S3_PORT)"
  fi
  printf 'KAFKA_PORT=%s\nKAFKA_CONTROLLER_PORT=%s\nS3_PORT=%s\nKAFKA_SASL_PORT=%s\n' \
    "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$S3_PORT" "$KAFKA_SASL_PORT" >"$PORTS_FILE"
}

# ------------------------------------------------------------------------------ kafka
kafka_tool() { # CLASS ARGS...
  timeout 60 java "${TOOL_JVM_OPTS[@]}" -cp "$KAFKA_LIBS/*" "$@"
}

kafka_healthy() { # real Metadata request that names at least one broker
  local md
  md=$("${PROBE[@]}" kafka-metadata "127.0.0.1:$KAFKA_PORT" 2>/dev/null) || return 1
  [[ "$md" == *'"brokers": [{'* ]]
}

start_kafka() {
  if pid_alive kafka "$KAFKA_MATCH"; then
    kafka_healthy || die "kafka pid $(<"$RUN/kafka.pid") is running but not answering on 127.0.0.1:$KAFKA_PORT"
    log "kafka: already running (pid $(<"$RUN/kafka.pid"), 127.0.0.1:$KAFKA_PORT)"
    return
  fi
  local data="$KAFKA_STATE/data" props="$KAFKA_STATE/server.properties" klog="$LOGS/kafka.log"
  mkdir -p "$data"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
      -e "s|@KAFKA_SASL_PORT@|$KAFKA_SASL_PORT|g" \
      -e "s|@KAFKA_DATA_DIR@|$data|g" \
      -e "s|@NUM_PARTITIONS@|${KAFKA_NUM_PARTITIONS:-4}|g" \
      "$INFRA/kafka/server.properties.tmpl" >"$props"

  if [[ ! -f "$data/meta.properties" ]]; then
    local cid
    cid=$(kafka_tool kafka.tools.StorageTool random-uuid)
    echo "$cid" >"$KAFKA_STATE/cluster.id"
    log "kafka: formatting KRaft storage (cluster id $cid)"
    kafka_tool kafka.tools.StorageTool format --ignore-formatted -t "$cid" -c "$props" \
      >>"$LOGS/kafka-format.log" 2>&1 || fail_with_log "$LOGS/kafka-format.log" "kafka storage format failed"
  fi

  [[ -f "$klog" ]] && mv -f "$klog" "$klog.1"   # the readiness check reads this run's log only
  log "kafka: starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  # shellcheck disable=SC2086
  setsid nohup java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
    -Djava.awt.headless=true \
    "-Dlog4j2.configurationFile=$INFRA/kafka/log4j2.properties" "-Dkafka.logs.dir=$LOGS" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$props" </dev/null >"$klog" 2>&1 &
  echo $! >"$RUN/kafka.pid"
  STARTED+=(kafka)

  local t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT)) started=0
  while :; do
    started_alive kafka || fail_with_log "$klog" "kafka exited during start-up"
    if [[ $started == 0 ]] && grep -q "Kafka Server started" "$klog"; then started=1; fi
    if [[ $started == 1 ]] && kafka_healthy; then break; fi
    ((SECONDS < deadline)) || fail_with_log "$klog" \
      "kafka not healthy after ${START_TIMEOUT}s (log line seen: $started; metadata request failed)"
    sleep 0.5
  done
  log "kafka: healthy in $((SECONDS - t0)) s (pid $(<"$RUN/kafka.pid"))"
}

create_landing_topic() {
  local md
  md=$("${PROBE[@]}" kafka-metadata "127.0.0.1:$KAFKA_PORT")
  if [[ "$md" == *"\"$LANDING_TOPIC\": {"* ]]; then
    log "kafka: topic $LANDING_TOPIC exists"
  else
    log "kafka: creating topic $LANDING_TOPIC ($LANDING_PARTITIONS partitions)"
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
      --create --if-not-exists --topic "$LANDING_TOPIC" \
      --partitions "$LANDING_PARTITIONS" --replication-factor 1 >>"$LOGS/kafka-tools.log" 2>&1 \
      || fail_with_log "$LOGS/kafka-tools.log" "could not create topic $LANDING_TOPIC"
  fi
  # wait until every partition has a leader (versitygw's start-up test event needs one)
  local deadline=$((SECONDS + 30))
  until "${PROBE[@]}" kafka-metadata "127.0.0.1:$KAFKA_PORT" 2>/dev/null | grep -q "\"$LANDING_TOPIC\": {\"error_code\": 0, \"leaderless\": 0"; do
    ((SECONDS < deadline)) || die "topic $LANDING_TOPIC has no leader after 30 s: $("${PROBE[@]}" kafka-metadata "127.0.0.1:$KAFKA_PORT" 2>&1)"
    sleep 0.5
  done
}

# ------------------------------------------------------------------------------ versitygw
s3_env() {
  export S3_ENDPOINT="http://127.0.0.1:$S3_PORT" S3_ACCESS_KEY S3_SECRET_KEY S3_REGION
}

start_versitygw() {
  s3_env
  if pid_alive versitygw "$VGW_MATCH"; then
    "${PROBE[@]}" s3-health "$S3_ENDPOINT/health" \
      || die "versitygw pid $(<"$RUN/versitygw.pid") is running but $S3_ENDPOINT/health does not answer"
    log "versitygw: already running (pid $(<"$RUN/versitygw.pid"), $S3_ENDPOINT)"
    return
  fi
  local vlog="$LOGS/versitygw.log" filter="$RUN/event-filter.json"
  mkdir -p "$S3_DATA"
  # Only object-created/-removed events; tagging/ACL/restore events are dropped.
  printf '{"s3:ObjectCreated:*": true, "s3:ObjectRemoved:*": true}\n' >"$filter"
  [[ -f "$vlog" ]] && mv -f "$vlog" "$vlog.1"
  log "versitygw: starting on $S3_ENDPOINT (posix backend at $S3_DATA, events -> $LANDING_TOPIC)"
  ROOT_ACCESS_KEY="$S3_ACCESS_KEY" ROOT_SECRET_KEY="$S3_SECRET_KEY" \
  setsid nohup "$VGW_BIN" \
    --port "127.0.0.1:$S3_PORT" \
    --region "$S3_REGION" \
    --health /health \
    --quiet \
    --access-log "$LOGS/versitygw-access.log" \
    --event-kafka-url "127.0.0.1:$KAFKA_PORT" \
    --event-kafka-topic "$LANDING_TOPIC" \
    --event-filter "$filter" \
    posix "$S3_DATA" </dev/null >"$vlog" 2>&1 &
  echo $! >"$RUN/versitygw.pid"
  STARTED+=(versitygw)

  local t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT))
  until "${PROBE[@]}" s3-health "$S3_ENDPOINT/health"; do
    started_alive versitygw || fail_with_log "$vlog" "versitygw exited during start-up"
    ((SECONDS < deadline)) || fail_with_log "$vlog" "versitygw not healthy after ${START_TIMEOUT}s"
    sleep 0.3
  done
  log "versitygw: healthy in $((SECONDS - t0)) s (pid $(<"$RUN/versitygw.pid"))"
}

create_landing_bucket() {
  s3_env
  "${PROBE[@]}" s3-mkbucket "$LANDING_BUCKET" || die "could not create bucket $LANDING_BUCKET"
  log "versitygw: bucket $LANDING_BUCKET ready"
}

s3_secret() { # no published default: the environment's, else one generated for this state directory
  [[ -n "$S3_SECRET_KEY" ]] && return 0
  if [[ ! -s "$S3_SECRET_FILE" ]]; then
    mkdir -p "$STATE"
    new_secret "$S3_SECRET_FILE"
    log "generated the S3 secret key into $S3_SECRET_FILE"
  fi
  S3_SECRET_KEY=$(<"$S3_SECRET_FILE")
}

kafka_secret() {
  if [[ ! -s "$KAFKA_SECRET_FILE" ]]; then
    mkdir -p "$STATE"
    new_secret "$KAFKA_SECRET_FILE"
  fi
  KAFKA_PASSWORD=$(<"$KAFKA_SECRET_FILE")
}

create_scram_user() { # the SASL listener's user; idempotent (the credential is simply set again)
  kafka_secret
  kafka_tool kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" --alter \
    --add-config "SCRAM-SHA-512=[password=$KAFKA_PASSWORD]" --entity-type users --entity-name "$KAFKA_USERNAME" \
    >>"$LOGS/kafka-tools.log" 2>&1 || fail_with_log "$LOGS/kafka-tools.log" "could not create the SCRAM user"
  log "kafka: SASL/SCRAM-SHA-512 listener on 127.0.0.1:$KAFKA_SASL_PORT (user $KAFKA_USERNAME)"
}

write_env() {  # private: it holds the S3 secret and the Kafka password
  write_env_file --private "$ENV_FILE" "$(env_header)" \
    "KAFKA_BOOTSTRAP=127.0.0.1:$KAFKA_PORT" "KAFKA_PORT=$KAFKA_PORT" \
    "KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT" "KAFKA_SASL_BOOTSTRAP=127.0.0.1:$KAFKA_SASL_PORT" \
    "KAFKA_USERNAME=$KAFKA_USERNAME" "KAFKA_PASSWORD=$KAFKA_PASSWORD" "KAFKA_VERSION=$KAFKA_VERSION" \
    "KAFKA_LIBS=$KAFKA_LIBS" "TOPIC_PREFIX=$TOPIC_PREFIX" "LANDING_TOPIC=$LANDING_TOPIC" \
    "S3_ENDPOINT=http://127.0.0.1:$S3_PORT" "S3_PORT=$S3_PORT" "S3_ACCESS_KEY=$S3_ACCESS_KEY" \
    "S3_SECRET_KEY=$S3_SECRET_KEY" "S3_REGION=$S3_REGION" "LANDING_BUCKET=$LANDING_BUCKET" \
    "KAFKA_PID=$(<"$RUN/kafka.pid")" "VERSITYGW_PID=$(<"$RUN/versitygw.pid")" \
    "TIEOUT_STATE=$STATE" "TIEOUT_LOGS=$LOGS"
}

# ------------------------------------------------------------------------------ commands
cmd_up() {
  local t0=$SECONDS
  command -v java >/dev/null || die "java not found (Kafka 4.x needs Java 17+)"
  cmd_fetch
  mkdir -p "$LOGS" "$RUN" "$KAFKA_STATE" "$S3_DATA"
  trap cleanup_on_failure EXIT
  s3_secret
  resolve_ports
  start_kafka
  create_scram_user
  create_landing_topic        # before versitygw: it sends a test event at start-up
  start_versitygw
  create_landing_bucket
  write_env
  log "up in $((SECONDS - t0)) s; env file: $ENV_FILE"
  sed -E 's/^(S3_SECRET_KEY|KAFKA_PASSWORD)=.*/\1=*** (kept in the file; "stack.sh env" prints it)/' "$ENV_FILE"
}

cmd_down() {
  stop_service versitygw "$VGW_MATCH"
  stop_service kafka "$KAFKA_MATCH"
  rm -f "$ENV_FILE"
}

cmd_status() {
  local rc=0 kport="" sport=""
  [[ -n "$S3_SECRET_KEY" || ! -s "$S3_SECRET_FILE" ]] || S3_SECRET_KEY=$(<"$S3_SECRET_FILE")
  if [[ -f "$PORTS_FILE" ]]; then
    kport=$(sed -n 's/^KAFKA_PORT=//p' "$PORTS_FILE")
    sport=$(sed -n 's/^S3_PORT=//p' "$PORTS_FILE")
  fi
  if pid_alive kafka "$KAFKA_MATCH"; then
    local md
    if md=$("${PROBE[@]}" kafka-metadata "127.0.0.1:$kport" 2>&1); then
      local parts
      parts=$(printf '%s' "$md" | "$PY" -c 'import json,sys; t=json.load(sys.stdin)["topics"].get(sys.argv[1]); print(t["partitions"] if t else "missing")' "$LANDING_TOPIC")
      echo "kafka:     healthy  pid=$(<"$RUN/kafka.pid") bootstrap=127.0.0.1:$kport topic $LANDING_TOPIC partitions=$parts rss=$(rss_of "$(<"$RUN/kafka.pid")")"
      [[ "$parts" != missing ]] || rc=1
    else
      echo "kafka:     UNHEALTHY pid=$(<"$RUN/kafka.pid") ($md)"; rc=1
    fi
  else
    echo "kafka:     down"; rc=1
  fi
  if pid_alive versitygw "$VGW_MATCH"; then
    if "${PROBE[@]}" s3-health "http://127.0.0.1:$sport/health"; then
      local b="bucket $LANDING_BUCKET present"
      S3_ENDPOINT="http://127.0.0.1:$sport" S3_ACCESS_KEY=$S3_ACCESS_KEY S3_SECRET_KEY=$S3_SECRET_KEY \
        S3_REGION=$S3_REGION "${PROBE[@]}" s3-head-bucket "$LANDING_BUCKET" 2>/dev/null \
        || { b="bucket $LANDING_BUCKET MISSING"; rc=1; }
      echo "versitygw: healthy  pid=$(<"$RUN/versitygw.pid") endpoint=http://127.0.0.1:$sport $b rss=$(rss_of "$(<"$RUN/versitygw.pid")")"
    else
      echo "versitygw: UNHEALTHY pid=$(<"$RUN/versitygw.pid") (GET /health failed)"; rc=1
    fi
  else
    echo "versitygw: down"; rc=1
  fi
  echo "logs:      $LOGS"
  return $rc
}

cmd_reset() {
  cmd_down
  log "removing $STATE"
  rm -rf "$STATE"
}

cmd_stop() { # kafka|s3: stop one service (outage drills; `up` starts it again, same port)
  case "${1:-}" in
    kafka) stop_service kafka "$KAFKA_MATCH" ;;
    s3)    stop_service versitygw "$VGW_MATCH" ;;
    *) echo "usage: bash infra/stack.sh stop kafka|s3" >&2; exit 2 ;;
  esac
}

dispatch "fetch|up|down|status|env|reset|stop kafka|s3" "$@"
