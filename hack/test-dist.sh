#!/usr/bin/env bash
# Tests of the distribution as the image ships it: the launcher script (class path and JVM flags per mode, the AOT
# cache choice, the emulators reachable from `local` alone), the AOT training script the Dockerfile runs, and the node
# plugin started from it against a loopback IMDS stand-in (ready only once its metadata is read, NodeGetInfo, a clear
# exit when metadata is unreachable, SIGTERM, the kubelet registration served in one container) and a Kubernetes API
# stand-in (the startup taint removed by a child process, never in the node; the diagnose command from the script,
# its jar on its own class path alone).
# Usage: test-dist.sh [DIST_DIR]. Ends with one line "N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$(cd "${1:-$root/dist/aws-csi-driver}" && pwd)"
cli="$dist/bin/aws-csi-driver"
work="$(mktemp -d /tmp/aws-csi-dist-test.XXXXXX)"
passed=0 failed=0 pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
check() { # check NAME COMMAND...
  if "${@:2}" >"$work/check.out" 2>&1; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/     /' "$work/check.out" | tail -n 15
  fi
}

python3 "$root/hack/imds-standin.py" "$work/imds-port" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/imds-port" ] && break; sleep 0.05; done
export AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$(cat "$work/imds-port")" AWS_REGION=us-east-1 \
  DISABLE_TAINT_WATCHER=true

# start NAME ARGS... : starts the driver on $work/NAME.sock, its pid in $work/NAME.pid
start() {
  local name="$1"; shift
  "$cli" "$@" --endpoint "unix://$work/$name.sock" >"$work/$name.log" 2>&1 &
  echo $! >"$work/$name.pid"; pids+=($!)
}
wait_socket() { for _ in $(seq 1 300); do [ -S "$work/$1.sock" ] && return 0; sleep 0.05; done; return 1; }
call() { "$cli" client --endpoint "unix://$work/$1.sock" "${@:2}"; }
cmdline() { tr '\0' ' ' <"/proc/$(cat "$work/$1.pid")/cmdline"; }

node_is_ready_and_answers_node_get_info() {
  wait_socket node || return 1
  for _ in $(seq 1 100); do call node Probe | grep -q '"ready": true' && break; sleep 0.05; done
  call node Probe | grep -q '"ready": true' || { echo "never ready"; return 1; }
  call node NodeGetInfo | tee "$work/info.json"
  grep -q '"nodeId": "i-0aaaaaaaaaaaaaaaa"' "$work/info.json" \
    && grep -q '"topology.ebs.csi.aws.com/zone": "us-east-1a"' "$work/info.json"
}
node_leaves_the_ec2_sdk_off_its_class_path() {
  local cl; cl="$(cmdline node)"; echo "$cl"
  [[ "$cl" == *"$dist/lib/*"* && "$cl" != *"lib/controller"* && "$cl" == *"-Xmn1m"* ]]
}
node_never_opens_the_ec2_jar() {
  ! ls -l "/proc/$(cat "$work/node.pid")/fd" | grep -q 'ec2-.*\.jar'
}
controller_has_the_ec2_sdk_and_no_node_flags() {
  wait_socket controller || return 1
  local cl; cl="$(cmdline controller)"; echo "$cl"
  [[ "$cl" == *"$dist/lib/controller/*"* && "$cl" != *"-Xmn1m"* ]] \
    && call controller ControllerGetCapabilities | grep -q CREATE_DELETE_VOLUME
}
sigterm_stops_the_node_and_removes_its_socket() {
  local pid; pid="$(cat "$work/node.pid")"
  kill -TERM "$pid"
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  ! kill -0 "$pid" 2>/dev/null && wait "$pid"; local rc=$?
  # 143 is how a JVM reports an exit on SIGTERM once its shutdown hooks have run.
  echo "exit code $rc"; { [ "$rc" -eq 0 ] || [ "$rc" -eq 143 ]; } && [ ! -e "$work/node.sock" ]
}
unreachable_metadata_stops_the_start_with_one_clear_line() {
  AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:9 KUBECONFIG=/nonexistent timeout 60 \
    "$cli" --driver ebs --mode node --endpoint "unix://$work/nometa.sock" >"$work/nometa.log" 2>&1
  local rc=$?
  cat "$work/nometa.log"
  [ "$rc" -eq 1 ] && grep -q '^aws-csi-driver: cannot start: .*127.0.0.1:9' "$work/nometa.log" \
    && ! grep -q '^\s*at ' "$work/nometa.log" && [ ! -e "$work/nometa.sock" ]
}
the_launcher_works_through_a_symlink() {
  ln -s "$cli" "$work/aws-csi-driver" && "$work/aws-csi-driver" --version | grep -q '^aws-csi-driver '
}
aot_training_builds_the_node_cache() {
  bash "$root/hack/build-aot.sh" "$dist" ebs-node ebs-node-registration && [ -s "$dist/aot/ebs-node.aot" ] \
    && [ -s "$dist/aot/ebs-node-registration.aot" ]
}
node_starts_with_its_aot_cache() {
  start aotnode --driver ebs --mode node
  wait_socket aotnode || return 1
  local cl; cl="$(cmdline aotnode)"; echo "$cl"
  [[ "$cl" == *"-XX:AOTCache=$dist/aot/ebs-node.aot"* ]] && call aotnode NodeGetInfo | grep -q i-0aaaaaaaaaaaaaaaa \
    && ! grep -qi 'error\|warning.*aot' "$work/aotnode.log"
}
aot_cache_can_be_turned_off() {
  AWS_CSI_AOT_CACHE=none start noaot --driver ebs --mode node
  wait_socket noaot || return 1
  [[ "$(cmdline noaot)" != *"AOTCache"* ]]
}

# One container: the node serves the kubelet's plugin registration itself (in place of node-driver-registrar) and
# its own /healthz and /readyz (in place of livenessprobe), from classes the AOT training put in its cache; the test
# plays the kubelet.
node_serves_the_kubelet_registration_from_its_aot_cache() {
  local port reg="$work/registry/ebs.csi.aws.com-reg.sock" kubelet=/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  JAVA_OPTS="-Xlog:class+load=info:file=$work/registration-classes.txt" start regnode --driver ebs --mode node \
    --kubelet-registration-path "$kubelet" --plugin-registration-path "$work/registry" --http-endpoint "127.0.0.1:$port"
  for _ in $(seq 1 300); do [ -S "$reg" ] && break; sleep 0.05; done
  [ -S "$reg" ] || { echo "no registration socket"; cat "$work/regnode.log"; return 1; }
  [ "$(stat -c %a "$reg")" = 600 ] || { echo "registration socket mode $(stat -c %a "$reg")"; return 1; }
  "$cli" client --endpoint "unix://$reg" GetInfo | tee "$work/getinfo.json"
  grep -q '"type": "CSIPlugin"' "$work/getinfo.json" && grep -q '"name": "ebs.csi.aws.com"' "$work/getinfo.json" \
    && grep -q "\"endpoint\": \"$kubelet\"" "$work/getinfo.json" && grep -q '"1.0.0"' "$work/getinfo.json" || return 1
  local ready; ready="$(curl -s -w ' %{http_code}' "127.0.0.1:$port/readyz")"; echo "before the kubelet's report: $ready"
  [[ "$ready" == *"the kubelet has not registered ebs.csi.aws.com"*" 503" ]] || return 1
  "$cli" client --endpoint "unix://$reg" NotifyRegistrationStatus '{"error":"no CSINode"}' >/dev/null || return 1
  ready="$(curl -s -w ' %{http_code}' "127.0.0.1:$port/readyz")"; echo "after a failure: $ready"
  [[ "$ready" == *"kubelet registration failed: no CSINode"*" 503" ]] || return 1
  [ "$(curl -s -o /dev/null -w '%{http_code}' "127.0.0.1:$port/healthz")" = 200 ] || { echo "not live"; return 1; }
  "$cli" client --endpoint "unix://$reg" NotifyRegistrationStatus '{"pluginRegistered":true}' >/dev/null || return 1
  ready="$(curl -s -w ' %{http_code}' "127.0.0.1:$port/readyz")"; echo "after a success: $ready"
  [ "$ready" = "ok"$'\n'" 200" ] || return 1
  curl -s "127.0.0.1:$port/metrics" | grep -x 'csi_kubelet_registration_registered 1' || return 1
  [[ "$(cmdline regnode)" == *"-XX:AOTCache=$dist/aot/ebs-node-registration.aot"* ]] \
    || { echo "not on its own cache: $(cmdline regnode)"; return 1; }
  for class in pluginregistration.RegistrationGrpc io.awscsi.core.registration.KubeletRegistration; do
    grep -q "$class source: shared objects file" "$work/registration-classes.txt" \
      || { echo "$class is not in the AOT cache"; grep "$class" "$work/registration-classes.txt"; return 1; }
  done
  local pid; pid="$(cat "$work/regnode.pid")"
  kill -TERM "$pid"
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  ! kill -0 "$pid" 2>/dev/null && [ ! -e "$reg" ] && [ ! -e "$work/regnode.sock" ] \
    && grep -q 'registration socket .* removed' "$work/regnode.log" || { cat "$work/regnode.log"; return 1; }
}

# What ships is what production runs: the emulators (the realism layer, the moto and IMDS-emulator helpers) and the
# local runtime live in lib/local, which only `local` puts on its class path.
emulator_classes_in() { # the emulator and local-runtime classes in the given jars
  for jar in "$@"; do unzip -Z1 "$jar" | grep -E '^io/awscsi/(realism|local)/' | sed "s|^|$jar: |"; done
}
serving_class_paths_hold_no_emulator() {
  local found; found="$(emulator_classes_in "$dist"/lib/*.jar "$dist"/lib/controller/*.jar | head -5)"
  [ -z "$found" ] || { echo "emulator classes off lib/local:"; echo "$found"; return 1; }
  local cl
  for name in node controller; do
    cl="$(cmdline "$name" 2>/dev/null || true)"
    [ -n "$cl" ] || { echo "$name is not running"; return 1; }
    [[ "$cl" != *"lib/local"* ]] || { echo "$name: $cl"; return 1; }
  done
  # ... and lib/local has them, so the check above would see them if they came back
  [ -n "$(emulator_classes_in "$dist"/lib/local/*.jar | grep -m1 'io/awscsi/realism/process/MotoServer')" ]
}
no_serving_class_refers_to_an_emulator_class() {
  # a reference would be a UTF-8 constant naming the class in some class file of the driver's own packages
  local jar refs
  for jar in "$dist"/lib/*.jar "$dist"/lib/controller/*.jar; do
    unzip -q -o "$jar" 'io/awscsi/*' -d "$work/serving-classes" 2>/dev/null
  done
  [ -f "$work/serving-classes/io/awscsi/launcher/Main.class" ] || { echo "no driver classes extracted"; return 1; }
  refs="$(grep -rlaE 'io/awscsi/(realism|local)/' "$work/serving-classes")"
  [ -z "$refs" ] || { echo "classes referring to lib/local:"; echo "$refs"; return 1; }
}
local_runs_with_lib_local_on_its_class_path() {
  "$cli" local --driver nope >"$work/local.out" 2>&1; local rc=$?
  cat "$work/local.out"
  [ "$rc" -eq 2 ] && grep -q 'aws-csi-driver local: --driver must be ebs, efs, both or none' "$work/local.out"
}
the_application_jar_alone_cannot_run_local() {
  "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -cp "$dist/lib/*" io.awscsi.launcher.Main local \
    >"$work/nolocal.out" 2>&1
  local rc=$?; cat "$work/nolocal.out"
  [ "$rc" -eq 2 ] && grep -q 'bin/aws-csi-driver local' "$work/nolocal.out"
}

# kubeconfig_for PORTFILE: a kubeconfig for the Kubernetes API stand-in listening on the port in PORTFILE
kubeconfig_for() {
  printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:%s"}}]\n%s\n' \
    "$(cat "$1")" 'users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x'
}

# The node on a "cluster": its startup taint goes, removed by a child JVM; the node itself loads no Kubernetes client.
the_startup_taint_is_removed_by_a_child_process_not_the_node() {
  python3 "$root/hack/kube-standin.py" "$work/kube-port" "$work/patches" & pids+=($!)
  for _ in $(seq 1 100); do [ -s "$work/kube-port" ] && break; sleep 0.05; done
  kubeconfig_for "$work/kube-port" >"$work/kubeconfig"
  DISABLE_TAINT_WATCHER= KUBECONFIG="$work/kubeconfig" CSI_NODE_NAME=node-1 \
    JAVA_OPTS="-Xlog:class+load=info:file=$work/tainted-classes.txt" start tainted --driver ebs --mode node
  wait_socket tainted || return 1
  for _ in $(seq 1 200); do [ -s "$work/patches" ] && break; sleep 0.1; done
  cat "$work/patches" 2>/dev/null
  grep -q '/api/v1/nodes/node-1 .*"op":"replace","path":"/spec/taints","value":\[{"effect":"NoSchedule","key":"example.com/keep"}\]' \
    "$work/patches" || { echo "no patch removing the startup taint"; return 1; }
  if grep 'io\.fabric8.*source: file' "$work/tainted-classes.txt"; then echo "the node loaded the Kubernetes client"; return 1; fi
  if grep 'io\.awscsi\.diagnose' "$work/tainted-classes.txt"; then echo "the node loaded diagnose"; return 1; fi
  # the child logged its outcome on the node's output and is gone
  for _ in $(seq 1 50); do pgrep -f "remove-startup-taint --driver ebs" >/dev/null || break; sleep 0.1; done
  ! pgrep -f "remove-startup-taint --driver ebs"
}

# `diagnose` runs from the script with lib/diagnose on its class path (no serving process has it), against a cluster
# named by a kubeconfig: the stand-in has no such claim, so it cannot tell (exit 2) and says why.
diagnose_runs_from_the_script_with_its_own_class_path() {
  [[ "$(cmdline node)" != *"lib/diagnose"* && "$(cmdline controller)" != *"lib/diagnose"* ]] \
    || { echo "a serving process has lib/diagnose on its class path"; return 1; }
  "$cli" diagnose --help | grep -q "Which log for which stage" || return 1
  "$cli" diagnose --print-rbac | grep -q 'resources: \["pods/log"\]' || return 1
  python3 "$root/hack/kube-standin.py" "$work/diag-port" "$work/diag-patches" & pids+=($!)
  for _ in $(seq 1 100); do [ -s "$work/diag-port" ] && break; sleep 0.05; done
  kubeconfig_for "$work/diag-port" >"$work/diag-kubeconfig"
  local code=0
  "$cli" diagnose pvc shop/data --kubeconfig "$work/diag-kubeconfig" -o json >"$work/diag.json" || code=$?
  cat "$work/diag.json"
  [ "$code" -eq 2 ] && grep -q '"summary" : "PVC shop/data not found"' "$work/diag.json"
}

# The EFS node from the same distribution (its class path has what it needs, e.g. the EFS SDK).
efs_node_is_ready_and_answers_node_get_info() {
  start efsnode --driver efs --mode node
  wait_socket efsnode || { cat "$work/efsnode.log"; return 1; }
  for _ in $(seq 1 100); do call efsnode Probe | grep -q '"ready": true' && break; sleep 0.05; done
  call efsnode NodeGetInfo | tee "$work/efs-info.json"
  grep -q '"nodeId": "i-0aaaaaaaaaaaaaaaa"' "$work/efs-info.json" || { cat "$work/efsnode.log"; return 1; }
  ! grep -q 'Exception' "$work/efsnode.log" || { cat "$work/efsnode.log"; return 1; }
}

# Netty's native library comes from lib/native: the node starts with no usable temporary directory at all.
node_needs_no_temporary_directory() {
  JAVA_OPTS="-Djava.io.tmpdir=$work/no-such-dir" start notmp --driver ebs --mode node
  wait_socket notmp || return 1
  for _ in $(seq 1 100); do call notmp Probe | grep -q '"ready": true' && return 0; sleep 0.05; done
  cat "$work/notmp.log"; return 1
}

start node --driver ebs --mode node
start controller --driver ebs --mode controller
check "node is ready and answers NodeGetInfo from IMDS" node_is_ready_and_answers_node_get_info
check "node leaves the EC2 SDK off its class path, with the node's heap flags" node_leaves_the_ec2_sdk_off_its_class_path
check "node never opens the EC2 jar" node_never_opens_the_ec2_jar
check "controller has the EC2 SDK and the default flags" controller_has_the_ec2_sdk_and_no_node_flags
check "no jar of a serving class path holds an emulator class; node and controller leave lib/local off" \
  serving_class_paths_hold_no_emulator
check "no class of a serving class path refers to an emulator or local-runtime class" \
  no_serving_class_refers_to_an_emulator_class
check "local starts io.awscsi.local.LocalMain with lib/local on its class path" local_runs_with_lib_local_on_its_class_path
check "the application jar alone points local at the launcher script" the_application_jar_alone_cannot_run_local
check "SIGTERM stops the node and removes its socket" sigterm_stops_the_node_and_removes_its_socket
check "unreachable metadata stops the start with one clear line, exit 1" \
  unreachable_metadata_stops_the_start_with_one_clear_line
check "the launcher works through a symlink" the_launcher_works_through_a_symlink
check "AOT training (the Dockerfile's step) builds the node caches" aot_training_builds_the_node_cache
check "the node starts with its AOT cache" node_starts_with_its_aot_cache
check "AWS_CSI_AOT_CACHE=none turns the cache off" aot_cache_can_be_turned_off
check "one container: the node serves the kubelet registration, /healthz and /readyz, from its AOT cache" \
  node_serves_the_kubelet_registration_from_its_aot_cache
check "the EFS node is ready and answers NodeGetInfo" efs_node_is_ready_and_answers_node_get_info
check "the node needs no temporary directory (Netty's library loads from lib/native)" node_needs_no_temporary_directory
check "the startup taint is removed by a child process, the node loads no Kubernetes client" \
  the_startup_taint_is_removed_by_a_child_process_not_the_node
check "diagnose runs from the script, lib/diagnose on its class path alone" \
  diagnose_runs_from_the_script_with_its_own_class_path
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
