#!/usr/bin/env bash
# The cluster part of the suite alone (`make test-cluster`; `make test` runs it after the other parts): brings the
# local cluster of e2e/kube-local up (a real kube-apiserver, controller manager, scheduler and kubelet on containerd,
# the real CSI sidecars, the driver under test on emulated AWS), runs the cluster suite (io.awscsi.e2e.cluster.*Test)
# against it, prints every case's timed steps, and takes the cluster down (also when the suite fails, unless
# KEEP_CLUSTER=1). Needs the driver's distribution (dist/aws-csi-driver: `make build`).
# Pods mode (`make test-chart-pods`): KUBE_LOCAL_DRIVER=chart installs the charts as pods from the local images
# (make image); CLUSTER_TESTS picks the cases, CLUSTER_REPORTS and CLUSTER_LOG keep that run's reports and log apart.
# Ends with one line "cluster: N passed, N failed, N skipped".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$root/.tools/bin:$PATH"
harness=e2e/kube-local/cluster.sh
reports="${CLUSTER_REPORTS:-e2e/target/surefire-reports}"
log="${CLUSTER_LOG:-target-cluster.log}"
tests="${CLUSTER_TESTS:-io.awscsi.e2e.cluster.*Test}"
t0=$(date +%s)
: > "$log"
down() {
  if [ "${KEEP_CLUSTER:-}" = 1 ]; then echo "cluster kept up (KEEP_CLUSTER=1): bash $harness down"; return; fi
  local t; t=$(date +%s)
  bash "$harness" down 2>&1 | tee -a "$log" | tail -n 2
  echo "cluster down: $(( $(date +%s) - t )) s"
}
t=$(date +%s)
if ! bash "$harness" up 2>&1 | tee -a "$log"; then
  echo "the local cluster did not come up (see $log and .tools/kube-local/last-logs)"
  down
  echo "cluster: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
echo "cluster up: $(( $(date +%s) - t )) s"
set -a
# shellcheck disable=SC1090
. <(bash "$harness" env)
set +a
rm -f "$reports"/TEST-io.awscsi.e2e.cluster.*.xml "$reports"/io.awscsi.e2e.cluster.*-output.txt
t=$(date +%s)
# Surefire writes to e2e/target/surefire-reports only: another run's reports there are set aside meanwhile, and this
# run's are moved to $reports after it.
mkdir -p "$reports"
stash=""
if [ "$reports" != e2e/target/surefire-reports ]; then
  stash=$(mktemp -d)
  mv e2e/target/surefire-reports/*io.awscsi.e2e.cluster.* "$stash"/ 2>/dev/null || true
fi
mvn -B -ntp ${MVN_OFFLINE:--o} -pl e2e -am test -Dtest="$tests" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dsurefire.printSummary=true 2>&1 | tee -a "$log" \
  | grep --line-buffered -E 'Tests run:.*cluster|FAIL|BUILD' || true
echo "cluster suite: $(( $(date +%s) - t )) s"
if [ -n "$stash" ]; then
  mv e2e/target/surefire-reports/*io.awscsi.e2e.cluster.* "$reports"/ 2>/dev/null || true
  mv "$stash"/* e2e/target/surefire-reports/ 2>/dev/null || true
  rmdir "$stash"
fi
# Every case's steps with their times, and any failure's dump of the cluster's state.
for f in "$reports"/io.awscsi.e2e.cluster.*-output.txt; do
  [ -e "$f" ] && awk '/^===== cluster state/ { dump = 1 } dump || /^\[/ { print } /^===== end of the cluster state/ { dump = 0 }' "$f"
done | tee -a "$log" | awk '/^===== cluster state/ { dump = 1 } !dump { print } /^===== end/ { dump = 0; print "(the cluster state at the failure: '"$log"')" }'
# The first lines of every failure, in full in target-cluster.log.
grep -h -A3 '<<< FAILURE\|<<< ERROR' "$reports"/io.awscsi.e2e.cluster.*.txt 2>/dev/null | head -40
packets=$(bash "$harness" packets 2>&1)
echo "network guard after the suite: $packets" | tee -a "$log"
down
read -r passed failed skipped < <(python3 - "$reports" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
t = f = s = 0
for p in glob.glob(sys.argv[1] + '/TEST-io.awscsi.e2e.cluster.*.xml'):
    r = ET.parse(p).getroot()
    t += int(r.get('tests')); f += int(r.get('failures')) + int(r.get('errors')); s += int(r.get('skipped'))
print(t - f - s, f, s)
PY
)
if [[ "$packets" != "inbound=0 outbound=0" ]]; then
  echo "packets to the pod or service range left the bridge: $packets"; failed=$((failed + 1))
fi
[ "$((passed + failed))" -gt 0 ] || { echo "the cluster suite ran no test"; failed=$((failed + 1)); }
echo "cluster part: $(( $(date +%s) - t0 )) s"
echo "cluster: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
