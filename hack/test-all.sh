#!/usr/bin/env bash
# The whole suite: every module's unit and integration tests (moto, IMDS emulator, loop devices, mounts, csi-sanity
# for EBS and EFS, the lifecycle run, the LocalStack lane: lifecycle and csi-sanity for EBS on LocalStack), then the
# distribution's tests (hack/test-dist.sh), the local driver image run (hack/image/test-image-run.sh) and held
# against the Dockerfile (LocalImageTest), the Helm chart tests, and the cluster suite on the local Kubernetes of
# e2e/kube-local (hack/test-cluster.sh). The local cluster's Go build (kube and the CSI sidecars, ~6-20 min cold,
# skipped when current) runs niced beside the Maven build; the cluster suite with host processes runs beside the
# images and the helm tests.
# Ends with one line "N passed, N failed, N skipped".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$root/.tools/bin:$PATH"
status=0
# Failures that no surefire report holds (a part that could not run), added to the final count.
unreported=0
# The image run's result line (counted at the end with the dist and helm lines); none when no image was built.
run_line=
rm -rf ./*/target/surefire-reports ./*/target/surefire-reports-pods
# The pods-mode cases (the same list as make test-chart-pods).
CHART_PODS_TESTS=$(sed -n 's/^CHART_PODS_TESTS := //p' Makefile)
HOST_CLUSTER_TESTS='io.awscsi.e2e.cluster.*Test,!io.awscsi.e2e.cluster.Chart*Test,!io.awscsi.e2e.cluster.EfsSharedVolumeTest,!io.awscsi.e2e.cluster.EfsNodePluginRestartTest,!io.awscsi.e2e.cluster.SoakTest'
suite_start=$(date +%s)
kube_build_start=$(date +%s)
bash e2e/kube-local/build.sh > target-kube-build.log 2>&1 &
kube_build=$!
# -fae: every module runs even when an earlier one fails, so one run shows every failure.
# (PIPESTATUS read right after the pipeline: an `|| true` behind it would replace it with true's status.)
mvn -B -ntp -fae verify -Dit=true -Dsurefire.printSummary=true 2>&1 | tee target-test.log | grep --line-buffered -E \
  'Tests run:|FAIL|ERROR\]|BUILD|Reactor Summary|SUCCESS \[|csi-sanity|lifecycle'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "time: maven verify $(( $(date +%s) - suite_start )) s"
part_start=$(date +%s)
# csi-sanity's counts and the LocalStack lane's lines (what it ran against; EFS stays on moto), from the tests' output.
grep -h -E '^(csi-sanity|LocalStack lane)' e2e/target/surefire-reports/*-output.txt 2>/dev/null | sort -u || true
# The distribution as the image ships it (launcher script, AOT training, the node process from the script).
if bash hack/assemble-dist.sh >/dev/null 2>&1; then
  dist_line=$(bash hack/test-dist.sh 2>&1 | tee target-dist.log | tail -n 1)
else
  dist_line="the distribution could not be assembled"
fi
echo "dist: $dist_line"
echo "time: dist $(( $(date +%s) - part_start )) s"; part_start=$(date +%s)
if [[ "$dist_line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
  [ "${BASH_REMATCH[2]}" -eq 0 ] || status=1
else
  echo "dist tests did not report a result (see target-dist.log)"; status=1
fi
# The cluster suite with the driver as host processes needs the distribution (its `up` copies it, AOT caches
# included, into the cluster's state) and the kube build, not the images: it runs beside the images, the image run
# and the helm tests (about 4 min of the budget), which start no cluster, use no fixed port and look at no mount,
# loop device or Maven output of its; the Maven run that tests the images waits for it (one Maven at a time in this
# tree). Its classes ran above with no cluster (skipped); their reports are replaced by the real run.
host_cluster_start=$(date +%s)
host_cluster=
if wait "$kube_build"; then
  echo "kube-local build: $(tail -n 1 target-kube-build.log) (finished $(( $(date +%s) - kube_build_start )) s after the start)"
  # Every cluster case but those the pods-mode run below makes anyway (the Chart* cases need pods; EFS's shared
  # volumes run against the chart's pods): each case once, ~2 min less.
  MVN_OFFLINE=-o CLUSTER_TESTS="$HOST_CLUSTER_TESTS" bash hack/test-cluster.sh >target-cluster-run.log 2>&1 &
  host_cluster=$!
  echo "cluster (host processes): started beside the images and helm parts (target-cluster-run.log)"
else
  echo "kube-local build failed (see target-kube-build.log)"
fi
# The driver images without a container engine (hack/image/) and their run in a chroot.
if bash hack/image/build-driver-image.sh >target-images.log 2>&1; then
  grep -E '^image: .*(built|is current|done in)' target-images.log | sed 's/^/images: /'
  # the image's node run in a chroot of its file system (hack/image/test-image-run.sh; about 15 s)
  run_line=$(bash hack/image/test-image-run.sh 2>&1 | tee -a target-images.log | tail -n 1)
  echo "images: run: $run_line"
  if [[ "$run_line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    [ "${BASH_REMATCH[2]}" -eq 0 ] || status=1
  else
    echo "the image run did not report a result (see target-images.log)"; status=1
  fi
  image_tests=1
else
  echo "images: the local driver image could not be built (see target-images.log)"; status=1
  unreported=$((unreported + 1))
fi
echo "time: images $(( $(date +%s) - part_start )) s"; part_start=$(date +%s)
helm_line=$(bash helm/tests/run.sh 2>&1 | tee target-helm.log | tail -n 1)
echo "helm: $helm_line"
if [[ "$helm_line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
  [ "${BASH_REMATCH[2]}" -eq 0 ] || status=1
else
  echo "helm tests did not report a result (see target-helm.log)"; status=1
fi
echo "time: helm $(( $(date +%s) - part_start )) s"; part_start=$(date +%s)
if [ -n "$host_cluster" ]; then
  wait "$host_cluster"
  cluster_line=$(tail -n 1 target-cluster-run.log)
  # its whole output (failures' cluster state included) into this run's, as if it had run in the foreground
  cat target-cluster-run.log
else
  cluster_line="cluster: 0 passed, 1 failed, 0 skipped"
fi
echo "$cluster_line"
echo "time: cluster (host processes, from the end of the kube build's wait; beside images and helm) $(( $(date +%s) - host_cluster_start )) s"
part_start=$(date +%s)
# The tests that hold the images against the Dockerfile (their first run above, without an image, skipped; this run's
# reports replace those), once the cluster's Maven run is done.
if [ "${image_tests:-0}" = 1 ]; then
  # -am: the modules of this tree, not whatever another checkout last installed into the local Maven repository
  mvn -B -ntp -o -pl e2e -am test -Dtest='DockerfileToolsTest,LocalImageTest' -Daws-csi.images="$root/.tools/images" \
    -Dsurefire.failIfNoSpecifiedTests=false >>target-images.log 2>&1 || status=1
  grep -E 'Tests run:.*in io.awscsi.e2e.(DockerfileToolsTest|LocalImageTest)' target-images.log | sed 's/^/images: /'
  echo "time: image tests $(( $(date +%s) - part_start )) s"; part_start=$(date +%s)
fi
# Pods mode: the charts installed as pods from the local images (make test-chart-pods): install, the cluster cases
# that exercise the pods, upgrade/rollback/uninstall, metrics. Its own reports directory (counted below).
if [ -s .tools/images/aws-csi-driver-emulated.tar ] && [[ "$cluster_line" =~ ^cluster: ]]; then
  pods_line=$(MVN_OFFLINE=-o KUBE_LOCAL_DRIVER=chart CLUSTER_TESTS="$CHART_PODS_TESTS" \
    CLUSTER_REPORTS=e2e/target/surefire-reports-pods CLUSTER_LOG=target-cluster-pods.log \
    bash hack/test-cluster.sh 2>&1 | tee target-cluster-pods-run.log | tail -n 1)
else
  pods_line="cluster: 0 passed, 1 failed, 0 skipped"
fi
echo "pods mode: $pods_line"
echo "time: cluster (pods) $(( $(date +%s) - part_start )) s"
if [[ "$pods_line" =~ ^cluster:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
  [ "${BASH_REMATCH[2]}" -eq 0 ] || status=1
  [ "${BASH_REMATCH[1]}" -gt 0 ] || unreported=$((unreported + BASH_REMATCH[2]))
else
  echo "pods-mode cluster tests did not report a result (see target-cluster-pods-run.log)"; status=1
fi
if [[ "$cluster_line" =~ ^cluster:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
  [ "${BASH_REMATCH[2]}" -eq 0 ] || status=1
  # The cluster never came up: its failure is not in any report.
  [ "${BASH_REMATCH[1]}" -gt 0 ] || unreported=$((unreported + BASH_REMATCH[2]))
else
  echo "cluster tests did not report a result (see target-cluster-run.log)"; status=1
fi
# Counted over every report (the image and cluster classes with their real results) and the dist and helm lines.
passed=0; failed=$unreported; skipped=0
while read -r t f e s; do
  passed=$((passed + t - f - e - s)); failed=$((failed + f + e)); skipped=$((skipped + s))
done < <(python3 - <<'PY'
import glob, xml.etree.ElementTree as ET
for p in glob.glob('*/target/surefire-reports/TEST-*.xml') + glob.glob('*/target/surefire-reports-pods/TEST-*.xml'):
    r = ET.parse(p).getroot()
    print(r.get('tests'), r.get('failures'), r.get('errors'), r.get('skipped'))
PY
)
for line in "$dist_line" "$helm_line" ${run_line:+"$run_line"}; do
  if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  else
    failed=$((failed + 1))
  fi
done
echo "whole suite: $(( $(date +%s) - suite_start )) s"
[ "$passed" -gt 0 ] || status=1
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
