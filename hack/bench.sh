#!/usr/bin/env bash
# Benchmarks that print figures (never asserted; not part of `make test`), both on the built distribution:
#   1. node RSS under load (NodeLoadBenchmark);
#   2. the controllers at scale (ControllerScaleBenchmark): the EBS controller process over its socket, driven like
#      the chart's sidecars drive it (their --timeout, --worker-threads and retry intervals read from `helm template`
#      of the charts), against moto behind the realism layer: N=200, 1,000 and 3,000 lifecycles over 50 nodes, a run
#      under a fault mix, and EFS provisioning on a file system with 1,000 access points. Each run prints its floor
#      (derived from the realism layer's buckets and latencies) and wall/floor; the end prints one table.
# RUNS picks the controller runs (default ebs:200,ebs:1000,ebs:3000,faults:1000,efs:500), BENCH_NODES the node
# count (50), VOLUMES the node benchmark's volumes (50; SKIP_NODE_BENCH=1 skips it), SIDECAR_WORKERS the worker
# threads of each sidecar queue in place of the chart's (e.g. 1000: several clusters' provisioners calling at once).
# The five controller runs take ~25 min; the previous release at N=200 and 1,000 adds ~6 min.
#
# Side by side (one run, forms alternated per compared run: previous, current, upstream; a second table with the
# figures and ratios): BENCH_BASELINE=<git ref> is the previous release (default: the newest tag v*, else the commit in
# hack/bench-baseline; BENCH_BASELINE=none skips it), its distribution built once into .tools/bench-baseline/<commit>
# (a temporary worktree of that commit, `mvn -o package`, its own hack/assemble-dist.sh; nothing installed into
# ~/.m2). BENCH_COMPARE picks the compared runs (default ebs:200,ebs:1000: ~12 min more); the others run this build
# alone. BENCH_UPSTREAM=1 adds upstream's EBS controller (UPSTREAM_EBS_VERSION, default v1.64.0), built from source
# into .tools/upstream-ebs/ (UPSTREAM_EBS_SRC: its source tree; else the Go module proxy's copy) and run as the uid
# csi-bench-upstream with an nftables rule that drops any packet of that uid not bound for loopback (the rule is
# removed at the end and its counters printed; bench tooling only, never part of make test or an image).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
dist="$root/dist/aws-csi-driver"
[ -x "$dist/bin/aws-csi-driver" ] || { echo "no distribution in $dist: run make build first" >&2; exit 1; }

# The benchmarks' class path from this checkout's modules (never another checkout's artifacts in ~/.m2).
cpfile="$root/e2e/target/bench-classpath.txt"
mvn -q -B -ntp -o -pl e2e -am test-compile dependency:build-classpath -Dmdep.outputFile="$cpfile" \
  -Dmdep.includeScope=test >/dev/null
classes=""
for m in e2e launcher local ebs efs aws-common aws-realism driver-core proto; do
  [ "$m" = e2e ] && classes="$root/e2e/target/test-classes"
  classes="$classes:$root/$m/target/classes"
done
classpath="$classes:$(tr ':' '\n' < "$cpfile" | grep -v '/io/awscsi/' | paste -sd:)"

if [ "${SKIP_NODE_BENCH:-0}" != 1 ]; then
  java -cp "$classpath" io.awscsi.e2e.bench.NodeLoadBenchmark "$dist" "${VOLUMES:-50}"
fi

# helm as the chart tests install it (same version), to render the charts the way users install them.
helm_bin="$root/helm/tests/.tools/bin/helm"
if [ ! -x "$helm_bin" ]; then
  version="$(sed -n 's/^HELM_VERSION=//p' "$root/helm/tests/run.sh")"
  command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
  mkdir -p "$(dirname "$helm_bin")"
  GOBIN="$(dirname "$helm_bin")" GOFLAGS=-buildvcs=false go install "helm.sh/helm/v3/cmd/helm@$version"
fi
renders="$root/e2e/target/bench-renders"
mkdir -p "$renders"
"$helm_bin" template bench "$root/helm/aws-ebs-csi-driver" --kube-version 1.33.0 >"$renders/ebs.yaml" 2>/dev/null
"$helm_bin" template bench "$root/helm/aws-efs-csi-driver" --kube-version 1.33.0 >"$renders/efs.yaml" 2>/dev/null

# ---- the previous release's distribution, built once per commit
side_by_side=()
baseline_ref="${BENCH_BASELINE:-}"
if [ -z "$baseline_ref" ]; then
  baseline_ref="$(git tag --list 'v*' --sort=-v:refname | head -1)"
  [ -n "$baseline_ref" ] || baseline_ref="$(sed -n 's/^\([0-9a-f]\{7,40\}\)\( .*\)\{0,1\}$/\1/p' "$root/hack/bench-baseline" | head -1)"
fi
if [ -n "$baseline_ref" ] && [ "$baseline_ref" != none ]; then
  commit="$(git rev-parse --verify "$baseline_ref^{commit}")"
  baseline="$root/.tools/bench-baseline/$commit/aws-csi-driver"
  if [ ! -x "$baseline/bin/aws-csi-driver" ]; then
    echo "building the baseline $baseline_ref ($commit) into $baseline"
    tree="$(mktemp -d /tmp/bench-baseline.XXXXXX)"
    git worktree add --detach -q "$tree/src" "$commit"
    # package, not install: the baseline's artifacts carry the same versions as this checkout's in ~/.m2.
    if ! (cd "$tree/src" && mvn -o -q -B -ntp package -DskipTests >"$tree/build.log" 2>&1 \
        && bash hack/assemble-dist.sh "$tree/dist/aws-csi-driver" >>"$tree/build.log" 2>&1); then
      tail -30 "$tree/build.log" >&2
      git worktree remove --force "$tree/src"; rm -rf "$tree"
      echo "the baseline $baseline_ref did not build (BENCH_BASELINE=none skips it)" >&2
      exit 1
    fi
    mkdir -p "$(dirname "$baseline")"
    mv "$tree/dist/aws-csi-driver" "$baseline"
    git worktree remove --force "$tree/src"; rm -rf "$tree"
  fi
  side_by_side+=(--baseline "$baseline" --compare "${BENCH_COMPARE:-ebs:200,ebs:1000}")
  echo "baseline: $baseline_ref ($commit), $baseline"
fi

# ---- upstream's EBS controller, built once per version, run as a uid that cannot reach past loopback
guard_table=csi_bench_upstream
guard_down() {
  if nft list table inet "$guard_table" >/dev/null 2>&1; then
    echo "upstream's packets not bound for loopback, dropped (must be 0):"
    nft list table inet "$guard_table" | grep counter | sed 's/^[[:space:]]*/  /'
    nft delete table inet "$guard_table"
  fi
}
if [ "${BENCH_UPSTREAM:-0}" = 1 ]; then
  version="${UPSTREAM_EBS_VERSION:-v1.64.0}"
  upstream_dir="$root/.tools/upstream-ebs/$version"
  upstream_bin="$upstream_dir/aws-ebs-csi-driver"
  if [ ! -x "$upstream_bin" ]; then
    command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
    module=github.com/kubernetes-sigs/aws-ebs-csi-driver
    src="${UPSTREAM_EBS_SRC:-}"
    if [ -z "$src" ]; then
      src="$(cd /tmp && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || true
      [ -d "$src" ] || { echo "upstream $module@$version is not on the Go module proxy here: give its source tree as UPSTREAM_EBS_SRC" >&2; exit 1; }
    fi
    echo "building upstream's EBS driver $version from $src into $upstream_bin"
    mkdir -p "$upstream_dir"
    # As upstream's Makefile builds it (static, stripped, its version stamped).
    (cd "$src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -mod=readonly -trimpath \
      -ldflags "-X $module/pkg/driver.driverVersion=$version -X $module/pkg/cloud.driverVersion=$version -s -w" \
      -o "$upstream_bin" ./cmd/)
  fi
  upstream_charts="${UPSTREAM_CHARTS:-/work/shared/reference/upstream-charts}"
  [ -d "$upstream_charts/charts/aws-ebs-csi-driver" ] || { echo "no upstream chart in $upstream_charts (UPSTREAM_CHARTS)" >&2; exit 1; }
  "$helm_bin" template bench "$upstream_charts/charts/aws-ebs-csi-driver" --kube-version 1.33.0 \
    >"$renders/upstream-ebs.yaml" 2>/dev/null
  id -u csi-bench-upstream >/dev/null 2>&1 \
    || useradd --system --no-create-home --shell /usr/sbin/nologin csi-bench-upstream
  uid="$(id -u csi-bench-upstream)"
  # The binary where that uid may run it.
  run_dir="$(mktemp -d /tmp/bench-upstream.XXXXXX)"
  chmod 755 "$run_dir"
  install -m 755 "$upstream_bin" "$run_dir/aws-ebs-csi-driver"
  guard_down
  trap 'guard_down; rm -rf "$run_dir"' EXIT
  nft add table inet "$guard_table"
  nft add chain inet "$guard_table" out '{ type filter hook output priority 0; policy accept; }'
  nft add rule inet "$guard_table" out meta skuid "$uid" ip daddr != 127.0.0.0/8 counter drop
  nft add rule inet "$guard_table" out meta skuid "$uid" meta nfproto ipv6 ip6 daddr != ::1 counter drop
  side_by_side+=(--upstream "$run_dir/aws-ebs-csi-driver" --upstream-uid "$uid" --upstream-gid "$(id -g csi-bench-upstream)"
    --upstream-render "$renders/upstream-ebs.yaml")
  [ -n "$baseline_ref" ] && [ "$baseline_ref" != none ] || side_by_side+=(--compare "${BENCH_COMPARE:-ebs:200,ebs:1000}")
  echo "upstream: $version, $upstream_bin, as uid $uid"
fi

java -cp "$classpath" io.awscsi.e2e.bench.ControllerScaleBenchmark --dist "$dist" \
  --ebs-render "$renders/ebs.yaml" --efs-render "$renders/efs.yaml" \
  --runs "${RUNS:-ebs:200,ebs:1000,ebs:3000,faults:1000,efs:500}" --nodes "${BENCH_NODES:-50}" \
  --table "$root/e2e/target/controller-bench-table.md" --sidecar-workers "${SIDECAR_WORKERS:-0}" \
  ${side_by_side[@]+"${side_by_side[@]}"}
