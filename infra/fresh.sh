#!/usr/bin/env bash
# `make demo` and `make test` as a newcomer meets them: a clone of this repository's HEAD in a temporary
# folder (with ../shared beside it, as CI lays it out) and an empty TIEOUT_CACHE, each step timed.
#
#   bash infra/fresh.sh                                   # one fresh run
#   bash infra/fresh.sh --beside "python -m bench.planted_errors"   # with a CPU-heavy job running beside it
#   bash infra/fresh.sh --keep                            # keep the clone and its cache afterwards
#
# Only committed work is cloned. Everything the run downloads or builds goes to the empty cache: uv's and
# pip's caches, the Go module and build caches, Maven's local repository (infra/lib.sh), the venvs, the
# model. What it cannot make fresh is the machine itself: Debian packages (Chromium, PostgreSQL) that an
# earlier run installed stay installed, and the plan line says so.
#
# Each run appends a line to $TIEOUT_FRESH_LOG (default ~/.cache/tieout-fresh/runs.tsv): date, commit,
# label, demo seconds and exit code, test seconds and exit code, the closing count, the load average; the
# test report (steps.tsv, JUnit files, the whole output) is copied beside it.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${TIEOUT_SHARED:-$(cd "$REPO/.." && pwd)/shared}
LOG_ROOT=$(dirname "${TIEOUT_FRESH_LOG:-$HOME/.cache/tieout-fresh/runs.tsv}")
RUNS=${TIEOUT_FRESH_LOG:-$LOG_ROOT/runs.tsv}
KEEP=0 BESIDE="" LABEL=""

log() { printf '[fresh] %s\n' "$*" >&2; }
die() { printf '[fresh] ERROR: %s\n' "$*" >&2; exit 1; }

while (($#)); do
  case "$1" in
    --keep) KEEP=1 ;;
    --beside) BESIDE=${2:?--beside needs a command}; shift ;;
    --label) LABEL=${2:?--label needs a name}; shift ;;
    *) die "usage: bash infra/fresh.sh [--keep] [--label NAME] [--beside CMD]" ;;
  esac
  shift
done
[[ -d "$SHARED/corpus" ]] || die "no shared corpus at $SHARED/corpus (set TIEOUT_SHARED)"

TMP=$(mktemp -d /tmp/tieout-fresh.XXXXXX)
WORK="$TMP/main"
CACHE="$TMP/cache"
ln -s "$SHARED" "$TMP/shared"
commit=$(git -C "$REPO" rev-parse --short HEAD)
[[ -z "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]] \
  || log "note: uncommitted changes in $REPO are not part of this run (the clone holds $commit)"
git clone --quiet --no-local "$REPO" "$WORK" || die "git clone failed"
mkdir -p "$CACHE" "$LOG_ROOT"
RUN_ID="$(date -u +%Y%m%dT%H%M%SZ)-$commit${LABEL:+-$LABEL}"
OUT="$LOG_ROOT/$RUN_ID"
mkdir -p "$OUT"
log "run $RUN_ID: clone in $WORK, empty cache in $CACHE, output in $OUT/"

BESIDE_PID=""
cleanup() {
  if [[ -n "$BESIDE_PID" ]]; then kill -- "-$BESIDE_PID" 2>/dev/null || true; fi
  (cd "$WORK" && TIEOUT_CACHE=$CACHE bash infra/test.sh down)
  if ((KEEP)); then
    log "kept $TMP"
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT

fresh_env=(env TIEOUT_CACHE="$CACHE" UV_CACHE_DIR="$CACHE/uv" PIP_NO_CACHE_DIR=1 CI=true)

timed() { # NAME CMD...: runs in the clone, output to $OUT/NAME.log and the terminal; sets SECS and RC
  local name=$1 t0=$SECONDS
  shift
  (cd "$WORK" && "${fresh_env[@]}" "$@") 2>&1 | tee "$OUT/$name.log"
  RC=${PIPESTATUS[0]}
  SECS=$((SECONDS - t0))
  log "$name: exit $RC in $SECS s ($((SECS / 60)) min $((SECS % 60)) s)"
}

timed demo make demo
DEMO_S=$SECS DEMO_RC=$RC

if [[ -n "$BESIDE" ]]; then
  log "beside make test: $BESIDE"
  # its own process group (setsid), so that the whole loop and what it runs stop together
  setsid bash -c "cd '$REPO' && while :; do $BESIDE; done" >"$OUT/beside.log" 2>&1 &
  BESIDE_PID=$!
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg)
timed test make test
TEST_S=$SECS TEST_RC=$RC
load1=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ -n "$BESIDE_PID" ]]; then kill -- "-$BESIDE_PID" 2>/dev/null || true; BESIDE_PID=""; fi

cp -r "$WORK/.tieout/test-report" "$OUT/" 2>/dev/null || true
count=$(grep -E '^total: [0-9]+ passed' "$OUT/test.log" | tail -n 1 | sed 's/^total: //')
[[ -f "$RUNS" ]] || printf 'date\tcommit\tlabel\tdemo_s\tdemo_rc\ttest_s\ttest_rc\tcount\tload_before\tload_after\tbeside\n' >"$RUNS"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "${LABEL:--}" \
  "$DEMO_S" "$DEMO_RC" "$TEST_S" "$TEST_RC" "${count:-none}" "$load0" "$load1" "${BESIDE:--}" >>"$RUNS"
log "demo: exit $DEMO_RC in $DEMO_S s; test: exit $TEST_RC in $TEST_S s ($((TEST_S / 60)) min); ${count:-no count}"
log "appended to $RUNS"
((DEMO_RC == 0 && TEST_RC == 0))
