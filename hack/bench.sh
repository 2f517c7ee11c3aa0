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
# The five controller runs take ~25 min.
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

java -cp "$classpath" io.awscsi.e2e.bench.ControllerScaleBenchmark --dist "$dist" \
  --ebs-render "$renders/ebs.yaml" --efs-render "$renders/efs.yaml" \
  --runs "${RUNS:-ebs:200,ebs:1000,ebs:3000,faults:1000,efs:500}" --nodes "${BENCH_NODES:-50}" \
  --table "$root/e2e/target/controller-bench-table.md" --sidecar-workers "${SIDECAR_WORKERS:-0}"
