# Helpers shared by the infra/ scripts. Sourced after the script has defined log and die (each script
# prefixes its own name) and CACHE, FETCH_TIMEOUT and STOP_TIMEOUT.

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
