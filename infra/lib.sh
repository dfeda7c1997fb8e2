# What the infra/ scripts share. Each script sources this file first thing; the paths below are what its
# own settings build on. TOOL, the script's name, prefixes its log lines and names it in messages.

INFRA=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$INFRA")
TOOL=$(basename "${BASH_SOURCE[-1]}" .sh)
CACHE=${TIEOUT_CACHE:-$HOME/.cache/tieout}
STATE=${TIEOUT_STATE:-$REPO/.tieout}
LOGS="$STATE/logs"
RUN="$STATE/run"
STOP_TIMEOUT=${TIEOUT_STOP_TIMEOUT:-30}      # seconds from SIGTERM (or a graceful stop) to SIGKILL
FETCH_TIMEOUT=${TIEOUT_FETCH_TIMEOUT:-1200}  # seconds, per download, install or build step

if [[ -x "$REPO/.venv/bin/python" ]]; then PY="$REPO/.venv/bin/python"; else PY=$(command -v python3); fi
PROBE=("$PY" "$INFRA/probe.py")

log() { printf '[%s] %s\n' "$TOOL" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$TOOL" "$*" >&2; exit 1; }

# dispatch USAGE [WORD [ARG...]]: run cmd_WORD ARG... when WORD is a command USAGE names (the first word of
# each of its |-separated choices); otherwise print "usage: bash infra/$TOOL.sh USAGE" and exit 2.
dispatch() {
  local usage=$1 word=${2:-} choice
  local -a choices
  IFS='|' read -ra choices <<<"${usage//[\[\]]/}"
  for choice in "${choices[@]}"; do
    if [[ -n "$word" && "${choice%% *}" == "$word" ]] && declare -F "cmd_$word" >/dev/null; then
      shift 2
      "cmd_$word" "$@"
      return
    fi
  done
  echo "usage: bash infra/$TOOL.sh $usage" >&2
  exit 2
}

# rss_of PID: the resident memory of one process (model.sh counts a whole process group instead).
rss_of() { awk '/^VmRSS/ {printf "%d MiB", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }

# find_uv: the path of uv (UV, else the one `make venv` installs into .venv, else uv on PATH).
find_uv() {
  if [[ -n "${UV:-}" ]]; then echo "$UV"
  elif [[ -x "$REPO/.venv/bin/uv" ]]; then echo "$REPO/.venv/bin/uv"
  elif command -v uv >/dev/null; then command -v uv
  else die "uv not found: run 'make venv' (it installs uv into .venv) or set UV=/path/to/uv"; fi
}

# run_logged LOGFILE CMD...: CMD bounded by FETCH_TIMEOUT, its output appended to LOGFILE; on failure print
# the log's tail and die.
run_logged() {
  local logfile=$1; shift
  if ! timeout "$FETCH_TIMEOUT" "$@" >>"$logfile" 2>&1; then
    tail -n 30 "$logfile" >&2
    die "failed: $* (log: $logfile)"
  fi
}

# cmd_env: print the environment file `up` wrote (ENV_FILE).
cmd_env() {
  [[ -f "$ENV_FILE" ]] || die "$ENV_FILE not found: run 'bash infra/$TOOL.sh up' first"
  cat "$ENV_FILE"
}

# write_env_file [--private] FILE LINE...: FILE holds the LINEs (NAME=VALUE, or a # comment), one a line,
# written beside it and moved into place so that a reader never sees half a file. --private: readable by its
# owner only (the file holds a password or a secret key).
write_env_file() {
  local mask
  mask=$(umask)
  if [[ "$1" == --private ]]; then mask=077; shift; fi
  local file=$1; shift
  (umask "$mask" && printf '%s\n' "$@" >"$file.tmp")
  mv -f "$file.tmp" "$file"
}

# env_header: the first line of the environment file `up` writes: who wrote it, when, and what it is for.
env_header() {
  echo "# written by infra/$TOOL.sh up at $(date -u +%Y-%m-%dT%H:%M:%SZ); source it or pass to --env-file"
}

# new_secret FILE: 32 random bytes, in hex, into FILE, readable by its owner only.
new_secret() { (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$1"); }

# go_build NAME MODULE/CMD VERSION: `go install` into $CACHE/bin unless the version stamp beside the binary
# matches. A binary installed this way carries no release version of its own (`helm version` says "v3.22",
# kubeconform "development"), hence the stamp file.
go_build() {
  local name=$1 pkg=$2 version=$3 bin="$CACHE/bin/$1" stamp="$CACHE/bin/$1.version" out t0=$SECONDS
  if [[ -x "$bin" && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then
    log "$name $version: cached at $bin"
    return
  fi
  command -v go >/dev/null || die "go not found (the Go toolchain builds $name from the Go module proxy)"
  log "$name $version: building with go install (a few minutes on 2 cores) ..."
  mkdir -p "$CACHE/bin"
  # The module and build caches live in the cache too: a fresh TIEOUT_CACHE is a fresh machine's.
  if ! out=$(cd /tmp && GOBIN="$CACHE/bin" GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" \
        GOFLAGS="-buildvcs=false -modcacherw" timeout "$FETCH_TIMEOUT" go install "$pkg@$version" 2>&1); then
    printf '%s\n' "$out" | tail -n 30 >&2
    die "go install $pkg@$version failed (see above)"
  fi
  echo "$version" >"$stamp"
  log "$name: built in $((SECONDS - t0)) s"
}

# Maven with its local repository in the cache (a fresh TIEOUT_CACHE downloads again, as a fresh machine
# would; ~/.m2 is left alone): "${MVN[@]}" ARGS..., also under `timeout`.
MVN=(mvn "-Dmaven.repo.local=$CACHE/m2")

# terminate PID LABEL: SIGTERM, wait up to STOP_TIMEOUT seconds, then SIGKILL.
terminate() {
  local pid=$1 label=$2
  log "${label}SIGTERM to $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    log "${label}still running after ${STOP_TIMEOUT}s, SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
}
