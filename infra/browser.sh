#!/usr/bin/env bash
# Headless Chromium for the review console's end-to-end tests (tests/integration/test_review_browser.py).
#
#   bash infra/browser.sh          # install Debian's `chromium` with apt-get when missing, then check it starts
#   bash infra/browser.sh check    # only check that it starts (exit 1 if not)
#
# The tests drive /usr/bin/chromium through Playwright's `executable_path`: Playwright never downloads a
# browser of its own (that needs a host this machine cannot reach). The launch flags below are the ones
# this closed network needs: without them Chromium waits on refused connections (component updates,
# sync, QUIC) before it paints.
#
# Environment: CHROMIUM (default /usr/bin/chromium), TIEOUT_FETCH_TIMEOUT (seconds per apt-get call).
set -euo pipefail

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
INSTALL_TIMEOUT=${TIEOUT_FETCH_TIMEOUT:-1200}
FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-dev-shm-usage)

log() { printf '[browser] %s\n' "$*" >&2; }
die() { printf '[browser] ERROR: %s\n' "$*" >&2; exit 1; }

install() {
  if [[ -x "$CHROMIUM" ]]; then return; fi
  ((EUID == 0)) || die "$CHROMIUM is missing and installing it needs root (apt-get install chromium)"
  log "installing chromium with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  timeout "$INSTALL_TIMEOUT" apt-get update -qq || log "apt-get update failed; trying the lists we have"
  timeout "$INSTALL_TIMEOUT" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core \
    || die "apt-get install chromium failed"
  [[ -x "$CHROMIUM" ]] || die "apt-get installed chromium but $CHROMIUM is not there"
}

check() {
  [[ -x "$CHROMIUM" ]] || die "$CHROMIUM is missing: run 'bash infra/browser.sh' as root"
  local profile out
  profile=$(mktemp -d)
  # A page that sets its own title proves the renderer ran, not just that the binary exists.
  if ! out=$(timeout 60 "$CHROMIUM" "${FLAGS[@]}" --user-data-dir="$profile" --dump-dom \
      'data:text/html,<title>t</title><script>document.title="tieout-"+(6*7)</script>' 2>/dev/null); then
    rm -rf "$profile"
    die "$CHROMIUM did not start headless within 60 s"
  fi
  rm -rf "$profile"
  [[ "$out" == *"tieout-42"* ]] || die "$CHROMIUM started but did not run the page's script"
  log "ok: $("$CHROMIUM" --version 2>/dev/null | head -1)"
}

case "${1:-up}" in
  up) install; check ;;
  check) check ;;
  *) die "usage: bash infra/browser.sh [up|check]" ;;
esac
