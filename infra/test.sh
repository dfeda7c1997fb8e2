#!/usr/bin/env bash
# `make test`, step by step: every tier of tieout's tests on one machine, each step timed.
#
#   bash infra/test.sh            # what `make test` (and so CI's .ci/run) runs
#   bash infra/test.sh setup      # only the plan and the setup (`make setup`: everything fetched and built)
#   bash infra/test.sh down       # stop every server it starts (infra/fresh.sh's clean-up)
#
# 1. plan      one line: what is cached already and about how long this run will take
# 2. setup     every download and build at once (they wait on the network or on different cores):
#              system packages (Chromium, PostgreSQL; apt), the Kafka jars and versitygw, the schema
#              registry, Helm and kubeconform, the CPU vLLM venv + model then the RL venv; beside them
#              lint, format and import contracts, and mypy
# 3. unit      the tiers without servers (unit + corpus), on every core (pytest-xdist)
# 4. services  Kafka + S3 gateway, schema registry, PostgreSQL up; Helm lint + kubeconform;
#              the integration tier except the model group and the fault suite, three test files at a time
#              (they mostly wait); then the fault suite (it stops and starts what the others share), with
#              only the model tests that need no server beside it (`model and not model_servers`)
# 5. model     the two CPU vLLM servers (started beside the fault suite, idle until now) for the tests
#              that talk to them (`-m model_servers`), then down
# 6. summary   each step's time and result, the 20 slowest tests of the whole run, the total count
#
# Servers are stopped whatever happens. Every step runs even when an earlier test step failed, so that one
# run reports everything; a failed setup step stops the run (nothing after it could pass).
#
# Environment: TIEOUT_CACHE (downloads and builds, default ~/.cache/tieout), TIEOUT_STATE (runtime state,
# default .tieout/), TIEOUT_TEST_WORKERS (pytest-xdist workers for the unit step, default: the cores),
# TIEOUT_IT_WORKERS (pytest-xdist workers for the integration step, default 3),
# PYTEST_ARGS (extra pytest arguments for every test step, e.g. "-x").
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
export TIEOUT_CACHE=${TIEOUT_CACHE:-$HOME/.cache/tieout}
STATE=${TIEOUT_STATE:-$REPO/.tieout}
REPORT="$STATE/test-report"
BIN="$REPO/.venv/bin"
WORKERS=${TIEOUT_TEST_WORKERS:-$(nproc)}
IT_WORKERS=${TIEOUT_IT_WORKERS:-3}
read -r -a EXTRA <<<"${PYTEST_ARGS:-}"

log() { printf '[test] %s\n' "$*" >&2; }

# every server make test starts, stopped (each script's own bounded SIGTERM, then SIGKILL)
stop_all() {
  local s
  for s in model postgres registry stack; do bash "infra/$s.sh" down >/dev/null 2>&1; done
}
if [[ "${1:-}" == down ]]; then stop_all; exit 0; fi

rm -rf "$REPORT"
mkdir -p "$REPORT/setup"
STEPS="$REPORT/steps.tsv"
: >"$STEPS"
T_RUN=$SECONDS
FAILED=0

record() { # NAME SECONDS RC
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$STEPS"
}

# step NAME CMD...: run in the foreground, timed; the output goes to the terminal
step() {
  local name=$1 t0=$SECONDS rc
  shift
  log "== $name: $*"
  "$@"
  rc=$?
  record "$name" $((SECONDS - t0)) "$rc"
  log "== $name: exit $rc in $((SECONDS - t0)) s"
  ((rc == 0)) || FAILED=1
  return "$rc"
}

# ------------------------------------------------------------------------------ 1. plan
# .pyc files kept (as the Makefile does; this script may run without it): with PYTHONDONTWRITEBYTECODE set,
# every service start, restarted worker, pytest worker and vLLM server would compile all it imports again.
unset PYTHONDONTWRITEBYTECODE
"$BIN/python" "$REPO/infra/test_summary.py" plan --cache "$TIEOUT_CACHE" >&2 || true

# ------------------------------------------------------------------------------ 2. setup
# Each job writes its own log; on failure its tail is printed. Jobs that share a resource serialize on
# the scripts' own locks (apt's, $TIEOUT_CACHE/.fetch.lock for the Go builds).
declare -A JOB_PID=() JOB_T0=()
job() { # NAME CMD...
  local name=$1
  shift
  ("$@") >"$REPORT/setup/$name.log" 2>&1 &
  JOB_PID[$name]=$!
  JOB_T0[$name]=$SECONDS
}
system_packages() { bash infra/browser.sh && bash infra/postgres.sh fetch; }
models() { bash infra/model.sh fetch && bash infra/rl.sh fetch >/dev/null; }
checks() { make --no-print-directory lint && make --no-print-directory typecheck; }

log "== setup: downloads and builds in parallel (logs in $REPORT/setup/)"
T_SETUP=$SECONDS
job system-packages system_packages
job kafka-versitygw bash infra/stack.sh fetch
job registry bash infra/registry.sh fetch
job helm-kubeconform bash infra/helm.sh fetch
job vllm-rl models
job lint-typecheck checks
SETUP_FAILED=0
# wait in the order they finish, so each time is its own
while ((${#JOB_PID[@]})); do
  wait -n -p done_pid "${JOB_PID[@]}"
  rc=$?
  for name in "${!JOB_PID[@]}"; do
    [[ ${JOB_PID[$name]} == "$done_pid" ]] || continue
    secs=$((SECONDS - JOB_T0[$name]))
    record "setup/$name" "$secs" "$rc"
    if ((rc == 0)); then
      log "   $name: ok in $secs s"
    else
      log "   $name: FAILED (exit $rc) in $secs s; last lines of $REPORT/setup/$name.log:"
      tail -n 40 "$REPORT/setup/$name.log" >&2
      SETUP_FAILED=1
    fi
    unset "JOB_PID[$name]"
  done
done
record setup $((SECONDS - T_SETUP)) "$SETUP_FAILED"
log "== setup: done in $((SECONDS - T_SETUP)) s"
if ((SETUP_FAILED)) || [[ "${1:-}" == setup ]]; then
  "$BIN/python" infra/test_summary.py summary --report "$REPORT" --total-s $((SECONDS - T_RUN))
  exit "$SETUP_FAILED"
fi

# ------------------------------------------------------------------------------ 3. unit
pytest_group() { # NAME ARGS...: one pytest run with its own JUnit report
  local name=$1 rc
  shift
  "$BIN/python" -m pytest -q -p no:cacheprovider --junitxml="$REPORT/$name.xml" "$@" "${EXTRA[@]}"
  rc=$?
  ((rc == 5)) && log "$name: no test collected (counts as a failure)"
  return "$rc"
}
step unit pytest_group unit -n "$WORKERS" -m "not integration"

# ------------------------------------------------------------------------------ 4. services
trap stop_all EXIT
up() { bash infra/stack.sh up >/dev/null && bash infra/registry.sh up >/dev/null && bash infra/postgres.sh up >/dev/null; }
if step services-up up; then
  step helm bash infra/helm.sh check
  # The integration tests mostly wait (group joins, service start-ups, the store's events): side by side
  # they share the cores instead of leaving them idle. Each keeps its own topic prefix, buckets and
  # database; a file's tests stay in one worker (module fixtures).
  step integration pytest_group integration -n "$IT_WORKERS" --dist loadfile -m "integration and not model and not faults"
  # The fault suite stops and restarts the broker, the store, the registry and the database that every
  # other test shares: alone, after them. The model servers start meanwhile (their start-up is a minute
  # and a half of imports, which the fault suite's waits leave room for); they answer no request before
  # the model group, and no test of the fault suite talks to them.
  MODEL_UP_LOG="$REPORT/model-up.log"
  T_MODEL_UP=$SECONDS
  bash infra/model.sh up >"$MODEL_UP_LOG" 2>&1 &
  MODEL_UP_PID=$!
  # The model tests that need no server (a GRPO step, verl's loader, vLLM's config parser: the venvs and
  # weights only) run beside them too, in the CPU the outages leave idle; their output is printed after.
  T_OFFLINE=$SECONDS
  pytest_group model-offline -m "model and not model_servers" >"$REPORT/model-offline.log" 2>&1 &
  OFFLINE_PID=$!
  step faults pytest_group faults -m "faults and not model"
  wait "$OFFLINE_PID"
  rc=$?
  record model-offline $((SECONDS - T_OFFLINE)) "$rc"
  log "== model-offline (beside the fault suite): exit $rc in $((SECONDS - T_OFFLINE)) s"
  cat "$REPORT/model-offline.log" >&2
  ((rc == 0)) || FAILED=1
fi

# ------------------------------------------------------------------------------ 5. model
model_up() { # the servers' start, begun beside the fault suite (or now, when the services did not come up)
  local rc
  if [[ -n "${MODEL_UP_PID:-}" ]]; then
    wait "$MODEL_UP_PID"
    rc=$?
  else
    T_MODEL_UP=$SECONDS
    bash infra/model.sh up >"$REPORT/model-up.log" 2>&1
    rc=$?
  fi
  ((rc == 0)) || tail -n 40 "$REPORT/model-up.log" >&2
  log "model servers up $((SECONDS - T_MODEL_UP)) s after their start (exit $rc)"
  return "$rc"
}
if step model-up model_up; then
  if [[ -n "${OFFLINE_PID:-}" ]]; then
    step model pytest_group model -m model_servers
  else
    step model pytest_group model -m model
  fi
fi
bash infra/model.sh down >/dev/null 2>&1

# ------------------------------------------------------------------------------ 6. summary
stop_all
trap - EXIT
"$BIN/python" infra/test_summary.py summary --report "$REPORT" --total-s $((SECONDS - T_RUN)) || FAILED=1
exit "$FAILED"
