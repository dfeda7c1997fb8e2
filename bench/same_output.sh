#!/usr/bin/env bash
# Is the output of this checkout byte-identical to that of another revision, on every corpus and sample PDF?
#
#   bash bench/same_output.sh [BASE_REV]     (default: origin/main, else HEAD~1)
#
# For refactors that promise no behaviour change: runs `tieout run` over ../shared/corpus ({financial,
# filings,table,hostile}) and sample_docs/ with the code at BASE_REV (a temporary git worktree) and with
# this checkout's working tree, then compares every JSONL file byte for byte. Exits 1 on any difference.
# The records carry no timings, and the runner writes documents in input order, so equal code gives equal
# bytes whatever the number of workers.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${TIEOUT_CORPUS:-$repo/../shared/corpus}
python=${PYTHON:-$repo/.venv/bin/python}
base=${1:-$(git -C "$repo" rev-parse --verify -q origin/main || git -C "$repo" rev-parse HEAD~1)}
work=$(mktemp -d "${TMPDIR:-/tmp}/tieout-same.XXXXXX")
trap 'git -C "$repo" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

inputs=()
for d in financial filings table hostile; do [[ -d $corpus/$d ]] && inputs+=("$corpus/$d"); done
inputs+=("$repo/sample_docs")

run() {  # run CODE_DIR OUT_DIR
    (cd "$1" && PYTHONPATH=$1 "$python" -m tieout.cli run --workers 2 --out "$2" "${inputs[@]}" >"$2.log" 2>&1) ||
        { echo "tieout run failed in $1 (exit code kept in $2.log):"; tail -5 "$2.log"; }
}

git -C "$repo" worktree add -q --detach "$work/base" "$base"
echo "base $(git -C "$repo" rev-parse --short "$base") vs working tree of $(git -C "$repo" rev-parse --short HEAD)"
run "$work/base" "$work/before"
run "$repo" "$work/after"

status=0
for f in "$work"/before/*.jsonl; do
    name=$(basename "$f")
    if cmp -s "$f" "$work/after/$name"; then
        echo "same  $name ($(wc -l <"$f") records)"
    else
        echo "DIFF  $name"
        status=1
    fi
done
exit $status
