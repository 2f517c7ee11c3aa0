#!/usr/bin/env bash
# Tests of the distribution as the image ships it: the launcher script (class path and JVM flags per mode, the AOT
# cache choice, the emulators reachable from `local` and `emulated` alone), Netty's native library per machine architecture, the AOT
# training script the Dockerfile runs, and the node plugin started from it against a loopback IMDS stand-in (ready
# only once its metadata is read, NodeGetInfo, a clear exit when metadata is unreachable, SIGTERM, the kubelet
# registration served in one container) and a Kubernetes API stand-in (the startup taint removed by a child process,
# never in the node; the diagnose command from the script, its jar on its own class path alone).
# Usage: test-dist.sh [DIST_DIR]. Ends with one line "N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$(cd "${1:-$root/dist/aws-csi-driver}" && pwd)"
cli="$dist/bin/aws-csi-driver"
work="$(mktemp -d /tmp/aws-csi-dist-test.XXXXXX)"
passed=0 failed=0 pids=() mounted=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for f in "$work"/*.init; do [ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
check() { # check NAME COMMAND...
  local began=$SECONDS
  if "${@:2}" >"$work/check.out" 2>&1; then
    passed=$((passed + 1)); echo "ok   $1 ($((SECONDS - began)) s)"
  else
    failed=$((failed + 1)); echo "FAIL $1 ($((SECONDS - began)) s)"; sed 's/^/     /' "$work/check.out" | tail -n 15
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
  [[ "$cl" == *"$dist/lib/controller/*"* && "$cl" != *"-Xmn1m"* && "$cl" == *"-XX:-BytecodeVerificationRemote"* ]] \
    && call controller ControllerGetCapabilities | grep -q CREATE_DELETE_VOLUME
}
upstream_form_node_gets_the_nodes_class_path_and_serves() {
  # upstream's chart: the mode as the first argument, klog's -v and --logging-format
  start upnode node --driver ebs --logging-format=text -v=2
  wait_socket upnode || { cat "$work/upnode.log"; return 1; }
  local cl; cl="$(cmdline upnode)"; echo "$cl"
  for _ in $(seq 1 100); do call upnode Probe | grep -q '"ready": true' && break; sleep 0.05; done
  call upnode NodeGetInfo | grep -q '"nodeId": "i-0aaaaaaaaaaaaaaaa"' || { cat "$work/upnode.log"; return 1; }
  kill -TERM "$(cat "$work/upnode.pid")"
  [[ "$cl" == *"$dist/lib/*"* && "$cl" != *"lib/controller"* && "$cl" == *"-Xmn1m"* ]]
}
# Upstream EFS's chart passes neither driver nor mode: the flag it renders in one pod alone names it.
upstream_efs_node_form_starts_the_efs_node_with_the_nodes_flags() {
  start upefsnode --logtostderr --v=2 --vol-metrics-opt-in=false --vol-metrics-refresh-period=240 \
    --vol-metrics-fs-rate-limit=5 --max-inflight-mount-calls-opt-in=false --max-inflight-mount-calls=10 \
    --volume-attach-limit-opt-in=false --volume-attach-limit=20 --force-unmount-after-timeout=false \
    --unmount-timeout=30s --debug-logs=false --efs-cloudwatch-log-enabled=false \
    --s3files-cloudwatch-log-enabled=true --s3files-cloudwatch-metrics-enabled=true $(efs_flags upefsnode)
  wait_socket upefsnode || { cat "$work/upefsnode.log"; return 1; }
  local cl; cl="$(cmdline upefsnode)"; echo "$cl"
  call upefsnode GetPluginInfo | grep -q '"name": "efs.csi.aws.com"' || { cat "$work/upefsnode.log"; return 1; }
  call upefsnode NodeGetInfo | grep -q '"nodeId": "i-0aaaaaaaaaaaaaaaa"' || { cat "$work/upefsnode.log"; return 1; }
  ! call upefsnode ControllerGetCapabilities >/dev/null 2>&1 || { echo "the node serves the controller"; return 1; }
  kill -TERM "$(cat "$work/upefsnode.pid")"
  [[ "$cl" == *"$dist/lib/*"* && "$cl" != *"lib/controller"* && "$cl" == *"-Xmn1m"* ]]
}
upstream_efs_controller_form_starts_the_efs_controller() {
  start upefsctl --logtostderr --v=2 --delete-access-point-root-dir=false --debug-logs=false \
    --http-endpoint=127.0.0.1:0
  wait_socket upefsctl || { cat "$work/upefsctl.log"; return 1; }
  local cl; cl="$(cmdline upefsctl)"; echo "$cl"
  call upefsctl GetPluginInfo | grep -q '"name": "efs.csi.aws.com"' || { cat "$work/upefsctl.log"; return 1; }
  call upefsctl ControllerGetCapabilities | grep -q CREATE_DELETE_VOLUME || { cat "$work/upefsctl.log"; return 1; }
  ! call upefsctl NodeGetInfo >/dev/null 2>&1 || { echo "the controller serves the node"; return 1; }
  kill -TERM "$(cat "$work/upefsctl.pid")"
  # the EC2 SDK is the EBS controller's alone: the EFS image has no lib/controller
  [[ "$cl" != *"-Xmn1m"* && "$cl" != *"lib/controller"* ]]
}
both_efs_pods_flags_without_a_mode_are_refused_naming_them() {
  "$cli" --delete-access-point-root-dir --vol-metrics-opt-in --endpoint "unix://$work/both.sock" >"$work/both.out" 2>&1
  local rc=$?; cat "$work/both.out"
  [ "$rc" -eq 2 ] && grep -q -- '--delete-access-point-root-dir .*--vol-metrics-opt-in .*--mode' "$work/both.out" \
    && [ ! -e "$work/both.sock" ]
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

# What ships is what production runs: the emulators (the realism layer, the moto and IMDS-emulator helpers), the
# emulation module (the loop-device and local-directory backends, the emulated driver's entry point) and the local
# runtime live in lib/local, which only `local` and `emulated` put on their class path.
emulator_classes_in() { # the emulator, emulation and local-runtime classes in the given jars
  for jar in "$@"; do unzip -Z1 "$jar" | grep -E '^io/awscsi/(realism|emulation|local)/' | sed "s|^|$jar: |"; done
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
  [ -n "$(emulator_classes_in "$dist"/lib/local/*.jar | grep -m1 'io/awscsi/realism/process/MotoServer')" ] \
    && [ -n "$(emulator_classes_in "$dist"/lib/local/*.jar | grep -m1 'io/awscsi/emulation/ebs/LoopDeviceBackend')" ]
}
no_serving_class_refers_to_an_emulator_class() {
  # a reference would be a UTF-8 constant naming the class in some class file of the driver's own packages
  local jar refs
  for jar in "$dist"/lib/*.jar "$dist"/lib/controller/*.jar; do
    unzip -q -o "$jar" 'io/awscsi/*' -d "$work/serving-classes" 2>/dev/null
  done
  [ -f "$work/serving-classes/io/awscsi/launcher/Main.class" ] || { echo "no driver classes extracted"; return 1; }
  refs="$(grep -rlaE 'io[/.]awscsi[/.](realism|emulation|local)[/.]' "$work/serving-classes")"
  [ -z "$refs" ] || { echo "classes referring to lib/local:"; echo "$refs"; return 1; }
  # ... and the same grep finds the references lib/local's own classes make (it would see one that came back)
  unzip -q -o "$dist"/lib/local/emulation-*.jar 'io/awscsi/*' -d "$work/emulation-classes" 2>/dev/null
  grep -qlaE 'io/awscsi/emulation/ebs/' "$work/emulation-classes/io/awscsi/emulation/EmulationOptions.class"
}
# The emulated driver (loop devices, local directories) runs from lib/local; the serving one refuses its flags.
emulated_runs_with_lib_local_on_its_class_path() {
  "$cli" emulated --driver ebs --device-backend nbd >"$work/emulated.out" 2>&1; local rc=$?
  cat "$work/emulated.out"
  [ "$rc" -eq 2 ] && grep -q '^aws-csi-driver emulated: --device-backend must be nvme|loop, got nbd' "$work/emulated.out" \
    && "$cli" emulated --help | grep -q -- '--loop-state-dir DIR'
}
the_serving_driver_refuses_the_emulated_drivers_flags() {
  local flag rc
  for flag in --device-backend=loop --loop-state-dir=/tmp/x --efs-mount-backend=local --efs-local-root=/tmp/x; do
    "$cli" --driver efs --mode node --endpoint "unix://$work/refused.sock" "$flag" >"$work/refused.out" 2>&1; rc=$?
    cat "$work/refused.out"
    [ "$rc" -eq 2 ] && grep -q "^aws-csi-driver: ${flag%%=*} is a flag of the emulated driver.*aws-csi-driver emulated" \
      "$work/refused.out" && [ ! -e "$work/refused.sock" ] || return 1
  done
  # ... and the application jar alone points `emulated` at the launcher script
  "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -cp "$dist/lib/*" io.awscsi.launcher.Main emulated \
    >"$work/noemulated.out" 2>&1; rc=$?
  cat "$work/noemulated.out"
  [ "$rc" -eq 2 ] && grep -q 'bin/aws-csi-driver emulated' "$work/noemulated.out"
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

# efs-utils' directories as the chart mounts them from the host, here scratch directories under $work/NAME (so no
# test writes /etc/amazon/efs or /var/run/efs of this machine), and a watchdog: STANDIN_ARGS for the stand-in.
efs_flags() { # efs_flags NAME [WATCHDOG]
  local h="$work/$1"
  mkdir -p "$h/var-amazon-efs" "$h/static" "$h/run-efs"
  echo "CA of the image" >"$h/static/efs-utils.crt"
  local watchdog="${2:-$h/watchdog}"
  if [ -z "${2:-}" ]; then
    printf '#!/bin/sh\nexec python3 %s --config %s --state-dir %s %s\n' "$root/hack/efs-utils-standin/amazon-efs-mount-watchdog" \
      "$h/etc-amazon-efs/efs-utils.conf" "$h/run-efs" "${STANDIN_ARGS:-}" >"$watchdog"
    chmod +x "$watchdog"
  fi
  echo --efs-utils-config-dir-path "$h/var-amazon-efs" --efs-utils-config-legacy-dir-path "$h/etc-amazon-efs-legacy" \
    --efs-utils-static-files-path "$h/static" --efs-utils-etc-dir-path "$h/etc-amazon-efs" \
    --efs-state-dir-path "$h/run-efs" --efs-mount-watchdog-path "$watchdog"
}

# The EFS node from the same distribution (its class path has what it needs, e.g. the EFS SDK).
efs_node_is_ready_and_answers_node_get_info() {
  # shellcheck disable=SC2046
  start efsnode --driver efs --mode node $(efs_flags efsnode)
  wait_socket efsnode || { cat "$work/efsnode.log"; return 1; }
  # Ready exactly when mount.efs is installed (it is not on a test machine without efs-utils): one Probe says which.
  local want=false probe
  { [ -x /sbin/mount.efs ] || [ -x /usr/sbin/mount.efs ]; } && want=true
  probe="$(call efsnode Probe)"; echo "$probe"
  grep -q "\"ready\": $want" <<<"$probe" || { echo "Probe should say ready: $want"; return 1; }
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

# The EFS node as the image runs it: the Dockerfile's ENTRYPOINT (tini as PID 1, the launcher its child) as PID 1 of
# a PID namespace of its own, a "pod"; killing that PID 1 ends every process of the pod, as a container's end does.
# Stand-ins for the watchdog and efs-proxy (hack/efs-utils-standin) play efs-utils' part: this kernel has no NFS.
entrypoint=()
read_entrypoint() {
  mapfile -t entrypoint < <(python3 - "$root/Dockerfile" "$dist" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("ENTRYPOINT ")]
for word in json.loads(lines[-1][len("ENTRYPOINT "):]):
    print(word.replace("/opt/aws-csi-driver", sys.argv[2], 1))
PY
)
  [ "${#entrypoint[@]}" -gt 0 ] && [ -x "${entrypoint[0]}" ] || { echo "entrypoint ${entrypoint[*]} not runnable here (make deps installs tini)"; return 1; }
}
pod() { # pod NAME ENTRYPOINT-WORDS... -- DRIVER-ARGS... : the pod's PID 1 (host pid) in $work/NAME.init
  local name="$1"; shift
  local words=()
  while [ "$1" != -- ]; do words+=("$1"); shift; done; shift
  unshare --pid --fork --mount-proc "${words[@]}" "$@" --endpoint "unix://$work/$name.sock" >"$work/$name.log" 2>&1 &
  local outer=$!; pids+=("$outer"); echo "$outer" >"$work/$name.unshare"
  for _ in $(seq 1 100); do
    local init; init="$(cat "/proc/$outer/task/$outer/children" 2>/dev/null | awk '{print $1}')"
    [ -n "$init" ] && { echo "$init" >"$work/$name.init"; return 0; }
    sleep 0.02
  done
  echo "no PID 1 for $name"; return 1
}
pod_processes() { # the host pids of every process of the pod, its PID 1 included
  local init; init="$(cat "$work/$1.init")"
  local queue=("$init") out=()
  while [ ${#queue[@]} -gt 0 ]; do
    local p="${queue[0]}"; queue=("${queue[@]:1}"); out+=("$p")
    for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do queue+=("$c"); done
  done
  echo "${out[@]}"
}
zombies_of() { for p in $(pod_processes "$1"); do [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && echo "$p"; done; }
efs_pod_ready() { wait_socket "$1" && for _ in $(seq 1 200); do grep -q "started amazon-efs-mount-watchdog" "$work/$1.log" && return 0; sleep 0.05; done; cat "$work/$1.log"; return 1; }

orphans_of_the_efs_node_leave_no_zombie_under_the_image_entrypoint() {
  read_entrypoint || return 1
  [ "$(basename "${entrypoint[0]}")" = tini ] || { echo "the entrypoint is not tini: ${entrypoint[*]}"; return 1; }
  # shellcheck disable=SC2046
  STANDIN_ARGS="--orphans" pod reap "${entrypoint[@]}" -- --driver efs --mode node \
    --efs-utils-conf-overrides mount-watchdog:poll_interval_sec=0.1 $(STANDIN_ARGS="--orphans" efs_flags reap)
  efs_pod_ready reap || return 1
  sleep 2 # ~20 orphans made and ended by now
  local first second; first="$(zombies_of reap)"; sleep 0.5; second="$(zombies_of reap)"
  echo "zombies: [$first] then [$second]"
  local stale; stale="$(comm -12 <(echo "$first" | sort) <(echo "$second" | sort) | grep . || true)"
  kill -KILL "$(cat "$work/reap.init")"
  [ -z "$stale" ]
}
without_tini_the_same_orphans_stay_zombies() {
  read_entrypoint || return 1
  # The launcher alone as PID 1 (the JVM, which reaps only its own children): the check above would fail this way.
  # shellcheck disable=SC2046
  STANDIN_ARGS="--orphans" pod noreap "${entrypoint[@]:2}" -- --driver efs --mode node \
    --efs-utils-conf-overrides mount-watchdog:poll_interval_sec=0.1 $(STANDIN_ARGS="--orphans" efs_flags noreap)
  efs_pod_ready noreap || return 1
  sleep 2
  local count; count="$(zombies_of noreap | wc -l)"
  echo "$count zombies"
  kill -KILL "$(cat "$work/noreap.init")"
  [ "$count" -ge 5 ]
}
the_efs_node_writes_the_efs_utils_configuration_and_links_its_directory() {
  local h="$work/reap"
  ls -l "$h" "$h/var-amazon-efs"
  [ "$(readlink "$h/etc-amazon-efs")" = "$h/var-amazon-efs" ] || { echo "etc dir not linked to the host dir"; return 1; }
  grep -qx "CA of the image" "$h/var-amazon-efs/efs-utils.crt" || { echo "static files not restored"; return 1; }
  local conf="$h/var-amazon-efs/efs-utils.conf"
  python3 - "$conf" <<'PY'
import configparser, sys
c = configparser.ConfigParser(); c.read(sys.argv[1])
assert c.get("mount", "region") == "us-east-1", c.get("mount", "region", fallback=None)
assert c.get("mount-watchdog", "poll_interval_sec") == "0.1"
assert c.get("mount", "port_range_upper_bound") == "21049"
assert c.get("mount", "fips_mode_enabled") == "false"
assert c.get("client-info", "source") == "k8s"
print("efs-utils.conf as asked")
PY
}
a_watchdog_that_exits_is_started_again() {
  read_entrypoint || return 1
  local port; port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  # shellcheck disable=SC2046
  STANDIN_ARGS="--exit-after 0.3" pod restarts "${entrypoint[@]}" -- --driver efs --mode node \
    --http-endpoint "127.0.0.1:$port" --efs-utils-conf-overrides mount-watchdog:poll_interval_sec=0.1 \
    $(STANDIN_ARGS="--exit-after 0.3" efs_flags restarts)
  efs_pod_ready restarts || return 1
  for _ in $(seq 1 100); do [ "$(grep -c 'exited with code 1' "$work/restarts.log")" -ge 2 ] && break; sleep 0.1; done
  grep 'amazon-efs-mount-watchdog' "$work/restarts.log" | tail -n 4
  local metric; metric="$(curl -s "http://127.0.0.1:$port/metrics" | grep '^aws_efs_csi_mount_watchdog_restarts_total')"
  echo "$metric"
  kill -KILL "$(cat "$work/restarts.init")"
  [ "$(grep -c 'exited with code 1' "$work/restarts.log")" -ge 2 ] && [ "${metric##* }" != 0 ] && [ -n "$metric" ]
}
proxy_answer() { python3 - "$1" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1); print(s.recv(100).decode().strip())
except OSError:
    print("")
PY
}
a_restarted_plugin_reaches_the_existing_mounts_and_its_stop_leaves_no_process() {
  read_entrypoint || return 1
  local h="$work/restart" port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  # shellcheck disable=SC2046
  local flags; flags="$(efs_flags restart) --efs-utils-conf-overrides mount-watchdog:poll_interval_sec=0.2"
  # A mount made before the pods: a bind mount, with efs-utils' state for it (its proxy's command and port).
  mkdir -p "$h/fs" "$h/target" && mount --bind "$h/fs" "$h/target" && mounted+=("$h/target")
  printf '[efs]\naccept = 127.0.0.1:%s\n' "$port" >"$h/run-efs/stunnel-config.fs-0123abcd.target.$port"
  printf '{"pid": 999999999, "cmd": ["python3", "%s", "%s", "--tls"], "mountpoint": "%s"}' \
    "$root/hack/efs-utils-standin/efs-proxy" "$h/run-efs/stunnel-config.fs-0123abcd.target.$port" "$h/target" \
    >"$h/run-efs/fs-0123abcd.target.$port"
  # shellcheck disable=SC2086
  pod first "${entrypoint[@]}" -- --driver efs --mode node $flags
  efs_pod_ready first || return 1
  local a=""; for _ in $(seq 1 100); do a="$(proxy_answer "$port")"; [ -n "$a" ] && break; sleep 0.1; done
  echo "first pod: $a"; [ -n "$a" ] || { cat "$work/first.log"; return 1; }
  kill -KILL "$(cat "$work/first.init")"; wait "$(cat "$work/first.unshare")" 2>/dev/null
  [ -z "$(proxy_answer "$port")" ] || { echo "the proxy outlived its pod"; return 1; }
  rm -f "$work/first.sock"
  # shellcheck disable=SC2086
  pod second "${entrypoint[@]}" -- --driver efs --mode node $flags
  efs_pod_ready second || return 1
  local b=""; for _ in $(seq 1 100); do b="$(proxy_answer "$port")"; [ -n "$b" ] && break; sleep 0.1; done
  echo "second pod: $b"
  # The port was dead in between, so this answer is a new proxy (pids repeat: each pod numbers its own from 1).
  [ -n "$b" ] && grep -q "started the TLS proxy of $h/target again" "$work/second.log" \
    || { cat "$work/second.log"; return 1; }
  # A graceful stop: SIGTERM to PID 1, which tini passes to the driver; the driver stops the watchdog and its proxies.
  kill -TERM "$(cat "$work/second.init")"
  local rc=0; wait "$(cat "$work/second.unshare")" || rc=$?
  echo "exit code $rc"; grep -E "stopped amazon-efs-mount-watchdog" "$work/second.log" || return 1
  local left=""; for p in /proc/[0-9]*; do grep -qa "$h/" "$p/cmdline" 2>/dev/null && left+=" ${p#/proc/}"; done
  [ -z "$left" ] || { echo "processes left:$left"; return 1; }
  [ -z "$(proxy_answer "$port")" ]
}

# Machine architectures: lib/native holds Netty's epoll library of each machine the distribution is for, named as
# Netty asks for it (libnetty_transport_native_epoll_<os.arch as Netty normalizes it>.so); nothing else is native.
# elf_machine FILE: "e_machine class data" of an ELF file (62 x86_64, 183 aarch64; class 2 = 64-bit, data 1 = LSB)
elf_machine() {
  [ "$(head -c 4 "$1" | od -An -t x1 | tr -d ' ')" = 7f454c46 ] || { echo "not-elf"; return; }
  echo "$(od -An -t u2 -j 18 -N 2 "$1" | tr -d ' ') $(od -An -t u1 -j 4 -N 1 "$1" | tr -d ' ') $(od -An -t u1 -j 5 -N 1 "$1" | tr -d ' ')"
}
native_libraries() { (cd "$1/lib/native" && ls -A | LC_ALL=C sort | paste -sd' '); }
lib_native_holds_an_elf_library_per_machine() {
  local found; found="$(native_libraries "$dist")"; echo "lib/native: $found"
  [ "$found" = "libnetty_transport_native_epoll_aarch_64.so libnetty_transport_native_epoll_x86_64.so" ] || return 1
  echo "x86_64: $(elf_machine "$dist/lib/native/libnetty_transport_native_epoll_x86_64.so")"
  echo "aarch_64: $(elf_machine "$dist/lib/native/libnetty_transport_native_epoll_aarch_64.so")"
  [ "$(elf_machine "$dist/lib/native/libnetty_transport_native_epoll_x86_64.so")" = "62 2 1" ] \
    && [ "$(elf_machine "$dist/lib/native/libnetty_transport_native_epoll_aarch_64.so")" = "183 2 1" ]
}
# The jars hold no other native code than Netty's library (which lib/native has as files): no ELF, PE or Mach-O
# entry in any jar of lib/, by content, not by name.
the_only_native_code_in_the_jars_is_nettys_epoll_library() {
  python3 - "$dist" <<'PY'
import glob, sys, zipfile
dist = sys.argv[1]
found = []
for jar in sorted(glob.glob(dist + "/lib/*.jar") + glob.glob(dist + "/lib/*/*.jar")):
    with zipfile.ZipFile(jar) as z:
        for info in z.infolist():
            if info.is_dir() or info.filename.endswith(".class"):
                continue
            with z.open(info) as f:
                head = f.read(4)
            if head in (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf") or head[:2] == b"MZ":
                found.append(jar[len(dist) + 1:] + "!" + info.filename)
print("\n".join(found))
expected = ["lib/aws-csi-driver.jar!META-INF/native/libnetty_transport_native_epoll_aarch_64.so",
            "lib/aws-csi-driver.jar!META-INF/native/libnetty_transport_native_epoll_x86_64.so"]
sys.exit(0 if sorted(found) == expected else 1)
PY
}
# A distribution for one machine, as an image lays it out (the Dockerfile passes its TARGETARCH).
an_assembly_for_one_machine_carries_its_library_alone() {
  local arch want machine other
  for arch in arm64 aarch64 amd64 x86_64; do
    case "$arch" in arm64|aarch64) want=aarch_64 machine="183 2 1" ;; *) want=x86_64 machine="62 2 1" ;; esac
    bash "$root/hack/assemble-dist.sh" --arch "$arch" "$work/dist-$arch" >/dev/null || return 1
    echo "$arch: lib/native: $(native_libraries "$work/dist-$arch")"
    [ "$(native_libraries "$work/dist-$arch")" = "libnetty_transport_native_epoll_$want.so" ] || return 1
    [ "$(elf_machine "$work/dist-$arch/lib/native/libnetty_transport_native_epoll_$want.so")" = "$machine" ] || return 1
    # ... and but for lib/native (and the AOT caches, which training adds) it is the one for both machines
    other="$(diff -r -q -x native -x aot -x app.aot "$dist" "$work/dist-$arch")" || { echo "$other"; return 1; }
    rm -rf "$work/dist-$arch"
  done
}
an_unknown_architecture_is_refused() {
  bash "$root/hack/assemble-dist.sh" --arch riscv64 "$work/dist-riscv" >"$work/riscv.out" 2>&1; local rc=$?
  cat "$work/riscv.out"
  [ "$rc" -ne 0 ] && grep -q 'unknown machine architecture riscv64' "$work/riscv.out" && [ ! -e "$work/dist-riscv" ]
}
# The JVM loads the library of its own machine (Netty names it by os.arch) from lib/native: the running node has
# mapped exactly that file, and no copy of it.
the_node_maps_its_machines_library_from_lib_native() {
  local maps; maps="$(grep -o '[^ ]*netty_transport_native_epoll[^ ]*' "/proc/$(cat "$work/node.pid")/maps" | sort -u)"
  echo "node maps: $maps (uname -m: $(uname -m))"
  local want; case "$(uname -m)" in aarch64) want=aarch_64 ;; *) want=x86_64 ;; esac
  [ "$maps" = "$dist/lib/native/libnetty_transport_native_epoll_$want.so" ]
}

start node --driver ebs --mode node
start controller --driver ebs --mode controller
check "node is ready and answers NodeGetInfo from IMDS" node_is_ready_and_answers_node_get_info
check "the node maps its machine's Netty library from lib/native" the_node_maps_its_machines_library_from_lib_native
check "lib/native holds Netty's epoll library per machine, each ELF for the machine its name says" \
  lib_native_holds_an_elf_library_per_machine
check "the only native code in the jars is Netty's epoll library" the_only_native_code_in_the_jars_is_nettys_epoll_library
check "a distribution for one machine (arm64, amd64) carries that machine's library alone" \
  an_assembly_for_one_machine_carries_its_library_alone
check "an unknown machine architecture is refused" an_unknown_architecture_is_refused
check "node leaves the EC2 SDK off its class path, with the node's heap flags" node_leaves_the_ec2_sdk_off_its_class_path
check "node never opens the EC2 jar" node_never_opens_the_ec2_jar
check "controller has the EC2 SDK and the default flags" controller_has_the_ec2_sdk_and_no_node_flags
check "upstream's form (node as first argument, -v=2, --logging-format) starts the node with the node's flags" \
  upstream_form_node_gets_the_nodes_class_path_and_serves
check "upstream EFS's node form (no driver, no mode, --vol-metrics-opt-in) starts the EFS node with the node's flags" \
  upstream_efs_node_form_starts_the_efs_node_with_the_nodes_flags
check "upstream EFS's controller form (--delete-access-point-root-dir) starts the EFS controller" \
  upstream_efs_controller_form_starts_the_efs_controller
check "both EFS pods' flags without a mode are refused naming them, exit 2" \
  both_efs_pods_flags_without_a_mode_are_refused_naming_them
check "no jar of a serving class path holds an emulator class; node and controller leave lib/local off" \
  serving_class_paths_hold_no_emulator
check "no class of a serving class path refers to an emulator, emulation or local-runtime class" \
  no_serving_class_refers_to_an_emulator_class
check "emulated starts io.awscsi.emulation.EmulatedDriverMain with lib/local on its class path" \
  emulated_runs_with_lib_local_on_its_class_path
check "the serving driver refuses the emulated driver's flags, naming the emulated entry point" \
  the_serving_driver_refuses_the_emulated_drivers_flags
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
check "the EFS node answers Probe (ready exactly when mount.efs is installed) and NodeGetInfo" \
  efs_node_is_ready_and_answers_node_get_info
check "image entrypoint as PID 1: orphans of the EFS node leave no zombie (tini reaps)" \
  orphans_of_the_efs_node_leave_no_zombie_under_the_image_entrypoint
check "without tini as PID 1 the same orphans stay zombies (the check above can fail)" \
  without_tini_the_same_orphans_stay_zombies
check "the EFS node writes efs-utils.conf as asked, in the host directory it links" \
  the_efs_node_writes_the_efs_utils_configuration_and_links_its_directory
check "image entrypoint: a watchdog that exits is started again, counted in /metrics" \
  a_watchdog_that_exits_is_started_again
check "image entrypoint: a restarted plugin gets the existing mounts' proxies back; SIGTERM leaves no process" \
  a_restarted_plugin_reaches_the_existing_mounts_and_its_stop_leaves_no_process
check "the node needs no temporary directory (Netty's library loads from lib/native)" node_needs_no_temporary_directory
check "the startup taint is removed by a child process, the node loads no Kubernetes client" \
  the_startup_taint_is_removed_by_a_child_process_not_the_node
check "diagnose runs from the script, lib/diagnose on its class path alone" \
  diagnose_runs_from_the_script_with_its_own_class_path
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
