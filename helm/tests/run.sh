#!/usr/bin/env bash
# Chart tests: helm lint, helm template over the value sets in values/, kubeconform with offline schemas, and the
# assertions of chart_checks.py. Installs its tools into a project-local directory on first use: helm and
# kubeconform with `go install` (Go module proxy), kubernetes-validate (the Kubernetes JSON schemas) and PyYAML
# into a venv (PyPI). Nothing else is fetched: validation runs offline.
# Ends with "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS="${HELM_TEST_TOOLS_DIR:-$HERE/.tools}"
HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.7.0
KUBERNETES_VALIDATE_VERSION=1.37.0
PYYAML_VERSION=6.0.3

command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
mkdir -p "$TOOLS/bin"
export GOBIN="$TOOLS/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}"

# The module version recorded in a binary built by `go install`.
installed_version() { go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3 }'; }

if [[ "$(installed_version "$TOOLS/bin/helm")" != "$HELM_VERSION" ]]; then
  echo "installing helm $HELM_VERSION into $TOOLS/bin" >&2
  go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi
if [[ "$(installed_version "$TOOLS/bin/kubeconform")" != "$KUBECONFORM_VERSION" ]]; then
  echo "installing kubeconform $KUBECONFORM_VERSION into $TOOLS/bin" >&2
  go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
fi

VENV="$TOOLS/venv"
if ! "$VENV/bin/python" -c "import kubernetes_validate, yaml" 2>/dev/null; then
  echo "installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" "PyYAML==$PYYAML_VERSION"
fi

# Helm keeps no state for lint/template, but point its directories inside the tools dir anyway.
export HELM_CACHE_HOME="$TOOLS/helm/cache" HELM_CONFIG_HOME="$TOOLS/helm/config" HELM_DATA_HOME="$TOOLS/helm/data"

# Upstream's real released charts (issue 26): beside the checkout in CI, never copied into it.
export UPSTREAM_CHARTS="${UPSTREAM_CHARTS:-$(cd "$HERE/../.." && pwd)/../shared/reference/upstream-charts}"

exec "$VENV/bin/python" "$HERE/chart_checks.py" \
  --helm "$TOOLS/bin/helm" --kubeconform "$TOOLS/bin/kubeconform" --cache "$TOOLS/schemas"
