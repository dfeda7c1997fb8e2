#!/usr/bin/env bash
# tieout's RL venv: TRL (GRPOTrainer) and verl's reward loader, on CPU, for the trainer tests
# (tests/integration/test_trainers.py).
#
#   bash infra/rl.sh          # same as fetch
#   bash infra/rl.sh fetch    # build the venv into the cache (once; no-op after), print its python
#   bash infra/rl.sh python   # print the venv's python (exit 1 when not built)
#
# Layered on the CPU vLLM venv (infra/model.sh fetch) instead of a second copy of torch: the RL venv holds
# only the packages that venv lacks, installed --no-deps at the pins below (a resolution of trl + datasets
# + verl against that venv's own pins), and a .pth file puts the vLLM venv's site-packages after its own.
# Packages of the RL venv therefore win; none of them is also in the vLLM venv (checked at build time),
# so nothing is shadowed. ~440 MB (ray is 200 MB of it) instead of a second ~5 GB.
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# trl 1.16.0 and datasets 5.2.0 support the vLLM venv's transformers 5.19.0 / torch 2.13.0 /
# accelerate 1.15.0. verl 0.9.1 is there for its custom-reward loader (verl.trainer.ppo.reward) and reward
# manager only: it declares transformers<5.11 plus a GPU training stack (vLLM/SGLang workers, wandb, peft),
# none of which the loader imports, so it goes in --no-deps with just what `import verl` needs.
PINS=(
  trl==1.16.0
  datasets==5.2.0
  multiprocess==0.70.19
  pandas==3.1.1
  pyarrow==26.0.1
  python-dateutil==4.0.0
  tzdata==2026.6
  xxhash==4.1.0
  # verl's reward loader: verl.trainer.ppo.reward imports verl, whose DataProto needs ray and tensordict
  verl==0.9.1
  ray==2.60.0
  tensordict==0.10.0
  msgpack==1.2.4
  pyvers==0.2.3
  omegaconf==2.4.0
  codetiming==1.4.0
  orjson==3.13.0
)

BASE_VENV="$CACHE/vllm/venv"
BASE_STAMP="$BASE_VENV/.tieout-complete"
ROOT="$CACHE/rl"
VENV="$ROOT/venv"
VPY="$VENV/bin/python"
STAMP="$VENV/.tieout-complete"
ILOG="$ROOT/install.log"
export UV_CACHE_DIR=${UV_CACHE_DIR:-$CACHE/uv}
export UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1

# what the venv was built from: a new pin or a rebuilt vLLM venv rebuilds it
fingerprint() {
  printf '%s | %s | %s\n' "${PINS[*]}" "$(cat "$BASE_STAMP" 2>/dev/null)" "$(sha256sum <"${BASH_SOURCE[0]}" | cut -c1-16)"
}

cmd_fetch() {
  bash "$REPO/infra/model.sh" fetch
  [[ -f "$BASE_STAMP" ]] || die "no vLLM venv at $BASE_VENV (bash infra/model.sh fetch)"
  mkdir -p "$ROOT"
  exec 8>"$ROOT/.fetch.lock"
  flock -w "$FETCH_TIMEOUT" 8 || die "timed out waiting for $ROOT/.fetch.lock"
  local want; want=$(fingerprint)
  if [[ -x "$VPY" && "$(cat "$STAMP" 2>/dev/null)" == "$want" ]]; then
    log "RL venv: cached in $VENV"
    echo "$VPY"
    return
  fi
  local uv t0=$SECONDS base_python base_site site
  uv=$(find_uv)
  base_python=$("$BASE_VENV/bin/python" -c 'import sys; print(sys._base_executable)')
  base_site=$("$BASE_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  log "RL venv: installing ${PINS[*]} into $VENV (on top of $BASE_VENV) ..."
  rm -rf "$VENV"
  : >"$ILOG"
  run_logged "$ILOG" "$uv" --no-config venv --python "$base_python" "$VENV"
  site=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # site-packages .pth lines are appended to sys.path: the RL venv's own packages come first.
  echo "$base_site" >"$site/_tieout_vllm_venv.pth"
  run_logged "$ILOG" "$uv" --no-config pip install --python "$VPY" --no-deps "${PINS[@]}"
  # nothing of the RL venv may shadow a package of the vLLM venv (its pins are what vLLM was tested with)
  local dup
  dup=$(comm -12 <("$uv" --no-config pip freeze --python "$VPY" 2>/dev/null | sed 's/==.*//' | sort) \
                 <("$uv" --no-config pip freeze --python "$BASE_VENV/bin/python" 2>/dev/null | sed 's/==.*//' | sort))
  [[ -z "$dup" ]] || die "RL venv shadows packages of the vLLM venv: $dup"
  local got
  got=$(timeout 300 "$VPY" -c 'import trl, datasets, transformers, torch; print(trl.__version__, transformers.__version__, torch.__version__)' 2>>"$ILOG" | tail -n 1) \
    || { tail -n 30 "$ILOG" >&2; die "'import trl' fails in $VENV (log: $ILOG)"; }
  echo "$want" >"$STAMP"
  exec 8>&-
  log "RL venv: trl/transformers/torch $got in $((SECONDS - t0)) s ($(du -sh "$VENV" | cut -f1) + the vLLM venv)"
  echo "$VPY"
}

cmd_python() {
  [[ -x "$VPY" && "$(cat "$STAMP" 2>/dev/null)" == "$(fingerprint)" ]] || die "RL venv not built: bash infra/rl.sh fetch"
  echo "$VPY"
}

dispatch "[fetch|python]" "${1:-fetch}" "${@:2}"
