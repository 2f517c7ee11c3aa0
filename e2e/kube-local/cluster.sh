#!/usr/bin/env bash
# The local Kubernetes cluster of the cluster suite (see README.md here): one node, or KUBE_LOCAL_NODES=3 nodes
# (each its own kubelet, containerd, mount namespace, EC2 instance and IMDS emulator; pods mode only):
#   cluster.sh up       build what is stale, then etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#                       the snapshot CRDs and snapshot-controller, the network guard, containerd and the kubelet,
#                       emulated AWS, and the driver (KUBE_LOCAL_DRIVER=host: host processes from the chart)
#   cluster.sh down     everything up started, stopped by PID; mounts, loop devices, bridge, network namespaces,
#                       cgroups, sysctls, nftables table and blackhole route removed or restored; state deleted
#   cluster.sh env      the environment the suite reads (KUBECONFIG, E2E_LOCAL_CLUSTER, ...), as KEY=value lines
#   cluster.sh packets  the guard's counters: packets to the pod or service range not through the bridge
#   cluster.sh hostpod-start POD   starts a killed driver replica again (host mode; the suite's failover case)
#   cluster.sh node-stop N / node-start N   multi-node mode: node N (2..) lost as a machine is (its containers,
#                       containerd and kubelet killed, its mount namespace and so its mounts gone), and back
#   cluster.sh restart kubelet|containerd|kube-apiserver   stops that component (node 1's; SIGTERM, by its PID) and
#                       starts it again as up did; containerd's shims and so the pods' containers outlive it (the
#                       soak's faults)
#   cluster.sh pause etcd SECONDS   SIGSTOP to etcd, SIGCONT after SECONDS (the soak's faults)
#   cluster.sh pause imds [N] SECONDS   node N's (default 1) IMDS emulator unreachable for SECONDS: its packets
#                       dropped (connections hang, as to an IMDS that stopped answering), then let through again
#   cluster.sh mounts   every node's mounts below the state directory, as "NODE MOUNT-POINT" lines (nodes 2.. see theirs
#                       in their own mount namespaces only; the soak's ledger checks every node)
#   cluster.sh revive   starts again the control-plane processes that exited (as a node's supervisor would)
# Needs root, the Debian packages containerd, runc, containernetworking-plugins, etcd-server and busybox-static
# (installed when missing), Go, and the driver's distribution (make build).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# moto, the IMDS emulator (make deps) and Go.
export PATH="$KL_ROOT/.tools/bin:$PATH:/usr/local/go/bin"
. "$KL_HERE/pki.sh"
. "$KL_HERE/node.sh"
# The way the running cluster was brought up wins (cluster.sh down of a pods-mode cluster uninstalls its releases).
# Several nodes need the charts' pods (a node plugin per node): the default there.
KL_DRIVER="${KUBE_LOCAL_DRIVER:-$(cat "$R/driver-mode" 2>/dev/null || { [ "$KL_NODES" -gt 1 ] && echo chart || echo host; })}"
DIST="${KUBE_LOCAL_DIST:-$KL_ROOT/dist/aws-csi-driver}"
AWS_PROFILE_NAME="${KUBE_LOCAL_AWS_PROFILE:-fast}"
. "$KL_HERE/driver-$KL_DRIVER.sh"

ensure_packages() {
  local missing=()
  for t in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins etcd:etcd-server \
           /bin/busybox:busybox-static nft:nftables; do
    local probe=${t%%:*}
    if [[ "$probe" == /* ]]; then [ -e "$probe" ] || missing+=("${t##*:}")
    else command -v "$probe" >/dev/null || missing+=("${t##*:}"); fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (apt)"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # hostpods.py reads the rendered chart with PyYAML (the version the chart tests pin).
  python3 -c 'import yaml' 2>/dev/null || { say "installing PyYAML (pip)"; python3 -m pip install -q PyYAML==6.0.3; }
}

# helm of the version the chart tests pin (helm/tests/run.sh), in the directory they install it to.
ensure_helm() {
  HELM="$KL_ROOT/helm/tests/.tools/bin/helm"
  local version
  version=$(sed -n 's/^HELM_VERSION=//p' "$KL_ROOT/helm/tests/run.sh")
  if [ "$(go version -m "$HELM" 2>/dev/null | awk '$1 == "mod" { print $3 }')" != "$version" ]; then
    say "installing helm $version"
    GOBIN="$(dirname "$HELM")" GOFLAGS=-buildvcs=false nice -n 10 go install "helm.sh/helm/v3/cmd/helm@$version"
  fi
}

start_aws() {
  mkdir -p "$KL_STATE/aws"
  # Restored volumes initialize for 45 s (the fast profile's 3 s would end before the attacher's first try), so
  # that blockAttachUntilInitialized is seen holding an attachment back (VolumeInitializationTest).
  bg aws "$KL_STATE/driver/bin/aws-csi-driver" local --driver none --no-lifecycle --work-dir "$KL_STATE/aws" \
    --profile "$AWS_PROFILE_NAME" --volume-initialization 45s --env-file "$R/aws.env"
  # Ready once it wrote its endpoints; a process that died is not waited for.
  waitfor 120 "emulated AWS (moto + realism layer + IMDS emulator, profile $AWS_PROFILE_NAME)" \
    sh -c "test -s '$R/aws.env' || ! kill -0 $(cat "$R/aws.pid")" && [ -s "$R/aws.env" ] || { tail_log aws; return 1; }
}

# snapshot-controller is cluster infrastructure (an add-on on EKS, not part of the chart): its own module's RBAC.
start_snapshot_controller() {
  local dir kc
  dir=$(cd "$KL_HERE" && GOFLAGS=-mod=mod go mod download -json github.com/kubernetes-csi/external-snapshotter/v8 \
    | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  kubectl apply -f "$dir/deploy/kubernetes/snapshot-controller/rbac-snapshot-controller.yaml" >/dev/null
  kc=$(token_kubeconfig kube-system snapshot-controller)
  # The group snapshot gate (issue 31): the groupsnapshot.storage.k8s.io CRDs are installed beside the snapshot ones
  # and the module's RBAC covers them; without a VolumeGroupSnapshot object nothing else changes.
  bg snapshot-controller "$B/snapshot-controller" --kubeconfig="$kc" --leader-election=true \
    --leader-election-namespace=kube-system --http-endpoint=127.0.0.1:19790 --v=2 \
    --feature-gates=CSIVolumeGroupSnapshot=true
  waitfor 120 "snapshot-controller holds its lease" lease_held kube-system snapshot-controller-leader \
    || { tail_log snapshot-controller; return 1; }
}

write_env() {
  {
    echo "KUBECONFIG=$KUBECONFIG"
    echo "E2E_LOCAL_CLUSTER=$KL_STATE/cluster.env"
    echo "E2E_BUSYBOX_IMAGE=$BUSYBOX_IMAGE"
    echo "KUBE_LOCAL_DRIVER=$KL_DRIVER"
    echo "KUBE_LOCAL_NODE=$NODE_NAME"
    echo "KUBE_LOCAL_NODES=$KL_NODES"
    echo "KUBE_LOCAL_KUBE_VERSION=$KL_KUBE_VERSION"
    local i names="" ; for (( i = 1; i <= KL_NODES; i++ )); do names+="${names:+,}$(node_name "$i")"; done
    echo "KUBE_LOCAL_NODE_NAMES=$names"
    echo "KUBE_LOCAL_STATE=$KL_STATE"
    echo "KUBE_LOCAL_HARNESS=$KL_HERE/cluster.sh"
    echo "KUBE_LOCAL_LOOP_DIR=$KL_STATE/ebs-loop"
    echo "KUBE_LOCAL_POD_CIDR=$POD_CIDR"
    echo "KUBE_LOCAL_SERVICE_CIDR=$SERVICE_CIDR"
    echo "KUBE_LOCAL_NODE_IP=$NODE_IP"
    echo "KUBE_LOCAL_NODE_LINK=$NODE_LINK"
    cat "$R/aws.env"
    driver_env
  } > "$KL_STATE/cluster.env"
}

up() {
  [ "$(id -u)" = 0 ] || die "needs root (mounts, loop devices, network namespaces)"
  if alive kube-apiserver; then die "already up (cluster.sh down first)"; fi
  [ -x "$DIST/bin/aws-csi-driver" ] || die "no driver distribution at $DIST: run make build"
  [[ "$KL_NODES" =~ ^[1-5]$ ]] || die "KUBE_LOCAL_NODES must be 1 to 5, got $KL_NODES"
  # Several nodes need a driver per node: the charts' DaemonSets (host mode runs one node's processes).
  [ "$KL_NODES" = 1 ] || [ "$KL_DRIVER" = chart ] || die "KUBE_LOCAL_NODES=$KL_NODES needs KUBE_LOCAL_DRIVER=chart"
  local start; start=$(now)
  # What a half-finished earlier run left.
  [ -d "$KL_STATE" ] && down >/dev/null 2>&1
  ensure_packages
  ensure_helm
  # `up` takes the minor from the environment alone (what a half-finished earlier run recorded is not inherited).
  KL_KUBE_VERSION="${KUBE_LOCAL_KUBE_VERSION:-}"
  [ -n "$KL_KUBE_VERSION" ] || B="$KL_TOOLS/bin"
  if [ -n "$KL_KUBE_VERSION" ]; then
    # build-minor.sh builds (or finds current) that minor's kube, and build.sh's sidecars beside it.
    bash "$KL_HERE/build-minor.sh" "$KL_KUBE_VERSION" || die "no kube of Kubernetes $KL_KUBE_VERSION (build-minor.sh)"
  else
    bash "$KL_HERE/build.sh"
  fi
  mkdir -p "$KL_STATE" "$L" "$R"
  echo "$KL_DRIVER" > "$R/driver-mode"
  echo "$KL_NODES" > "$R/nodes"
  [ -z "$KL_KUBE_VERSION" ] || echo "$KL_KUBE_VERSION" > "$R/kube-version"
  say "Kubernetes $("$B/kubectl" version --client -o json | sed -n 's/.*"gitVersion": "\(.*\)",/\1/p' | head -n 1) from $B"
  say "state in $KL_STATE; logs in $L"
  # The driver under test, copied: a rebuild of dist/ while the cluster runs does not change it.
  cp -a "$DIST" "$KL_STATE/driver"
  make_images
  make_pki
  record_host_state
  local t; t=$(now)
  start_etcd && start_apiserver && start_controller_manager && start_scheduler || return 1
  install_snapshot_crds || return 1
  say "control plane up ($(since "$t") s)"
  t=$(now)
  start_network_guard
  # The pod network the driver's pods need (driver-chart.sh), before the first pod.
  if declare -F driver_network >/dev/null; then driver_network || return 1; fi
  if [ "$KL_NODES" -gt 1 ]; then
    # Each node's kubelet names its EC2 instance (provider id): emulated AWS and the instances first.
    start_aws && start_node_instances || return 1
    say "emulated AWS and $KL_NODES instances up ($(since "$t") s)"
  fi
  write_node_config
  start_containerd && start_kubelet || return 1
  say "$KL_NODES node(s) up ($(since "$t") s)"
  t=$(now)
  if [ "$KL_NODES" = 1 ]; then start_aws || return 1; fi
  start_snapshot_controller || return 1
  driver_up || return 1
  say "driver up ($KL_DRIVER, $(since "$t") s)"
  write_env
  say "cluster up in $(since "$start") s: export \$(cluster.sh env)  or  KUBECONFIG=$KUBECONFIG"
}

# Teardown never stops half-way (a leftover of one step must not keep the next from running): without errexit, in a
# subshell of its own; its status is whether the state could be deleted.
down() { ( set +e; teardown ); }

teardown() {
  local start; start=$(now)
  drain_workloads
  driver_down
  stop snapshot-controller
  stop_node
  stop aws 30
  stop_control_plane
  # Anything else that recorded a PID here.
  local f
  for f in "$R"/*.pid; do [ -e "$f" ] && stop "$(basename "$f" .pid)"; done
  clean_host
  if [ -d "$KL_STATE" ]; then
    rm -rf "$KL_TOOLS/last-logs"
    [ -d "$L" ] && mv "$L" "$KL_TOOLS/last-logs"
    # Never delete a directory something is still mounted under: that would delete a volume's data.
    if awk -v k="$KL_STATE/" 'index($5, k) == 1' /proc/self/mountinfo | grep -q .; then
      say "keeping $KL_STATE: still mounted below it:"; awk -v k="$KL_STATE/" 'index($5, k) == 1 { print "  " $5 }' /proc/self/mountinfo
      return 1
    fi
    rm -rf "$KL_STATE"
  fi
  say "down in $(since "$start") s; logs of the last run in $KL_TOOLS/last-logs"
  leftovers
}

# What of the cluster is left on the host (nothing after a clean down).
leftovers() {
  local mounts loops procs
  mounts=$(awk -v k="$KL_STATE/" 'index($5, k) == 1' /proc/self/mountinfo | wc -l)
  local namespaces cgroups addresses
  namespaces=$( (ls "$R"/ns/node-*.mnt 2>/dev/null || true) | wc -l)
  cgroups=$( (ls -d /sys/fs/cgroup/*/kube-local-[0-9]* 2>/dev/null || true) | wc -l)
  addresses=$(ip -o addr show dev "$NODE_LINK" | grep -c ' 192\.0\.2\.\(7[7-9]\|8[01]\)/' || true)
  loops=$(our_loop_devices | wc -l)
  procs=$( (ls "$R"/*.pid 2>/dev/null || true) | wc -l)
  say "left: $mounts mounts, $loops loop devices, $procs processes, $namespaces node mount namespaces, $cgroups node cgroup roots, $addresses node addresses, bridge $(ip link show "$BRIDGE" >/dev/null 2>&1 && echo present || echo absent), node address $(ip -o addr show dev "$NODE_LINK" | grep -q " $NODE_IP/" && echo present || echo absent), nft table $(nft list table ip "$NFT_TABLE" >/dev/null 2>&1 && echo present || echo absent), blackhole route $(ip route show type blackhole | grep -q "$SERVICE_CIDR" && echo present || echo absent), kubelet iptables chains $(nft list ruleset 2>/dev/null | grep -c 'chain KUBE-' || true)"
}

# imds_outage N SECONDS: node N's IMDS unreachable for that long. Its emulator keeps running: the node's packets to
# it are dropped in an output filter chain of the cluster's nftables table (after the DNAT that takes node 1's IMDS
# address to the emulated AWS's front on loopback, so node 1 is matched there), then the chain is flushed.
imds_outage() {
  local i=$1 secs=$2 match front
  if [ "$i" = 1 ]; then
    front=$(sed -n 's|^AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:\([0-9]*\).*|\1|p' "$R/aws.env")
    [ -n "$front" ] || die "no IMDS front of node 1 in $R/aws.env"
    match="ip daddr 127.0.0.1 tcp dport $front"
  else
    match="ip daddr $(node_ip "$i") tcp dport $IMDS_NODE_PORT"
  fi
  nft add chain ip "$NFT_TABLE" imds_outage '{ type filter hook output priority 0; policy accept; }'
  trap 'nft flush chain ip "$NFT_TABLE" imds_outage 2>/dev/null' EXIT
  # shellcheck disable=SC2086
  nft add rule ip "$NFT_TABLE" imds_outage $match counter drop
  sleep "$secs"
  local dropped
  dropped=$(nft list chain ip "$NFT_TABLE" imds_outage | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | head -n 1)
  nft flush chain ip "$NFT_TABLE" imds_outage
  trap - EXIT
  echo "IMDS of node $(node_name "$i") unreachable for $secs s (${dropped:-0} packets dropped)"
}

case "${1:-}" in
  up) up || { echo "kube-local: up failed; logs in $L (cluster.sh down cleans up)" >&2; exit 1; } ;;
  down) down ;;
  env) [ -f "$KL_STATE/cluster.env" ] || die "not up"; cat "$KL_STATE/cluster.env" ;;
  packets) packet_counters ;;
  hostpod-start) [ -n "${2:-}" ] || die "usage: cluster.sh hostpod-start POD"; driver_pod_start "$2" ;;
  node-stop) [[ "${2:-}" =~ ^[2-9]$ ]] && [ "$2" -le "$KL_NODES" ] || die "usage: cluster.sh node-stop N (2..$KL_NODES)"
    node_power_off "$2" ;;
  node-start) [[ "${2:-}" =~ ^[2-9]$ ]] && [ "$2" -le "$KL_NODES" ] || die "usage: cluster.sh node-start N (2..$KL_NODES)"
    node_power_on "$2" ;;
  restart)
    case "${2:-}" in
      # Node 1's only: start_kubelet/start_containerd start every node's, which on several nodes started a second
      # containerd of nodes 2.. (and a new mount namespace for it) over the running one, whose orphaned process
      # outlived cluster.sh down (found by the soak's first run on three nodes).
      kubelet) stop kubelet 20; start_node_kubelet 1
        waitfor 180 "node $(node_name 1) Ready" node_ready "$(node_name 1)" || { tail_log kubelet 50; exit 1; } ;;
      containerd) stop containerd 20; start_node_containerd 1 ;;
      kube-apiserver) stop kube-apiserver 20; start_apiserver ;;
      *) die "usage: cluster.sh restart kubelet|containerd|kube-apiserver" ;;
    esac ;;
  pause)
    case "${2:-}" in
      etcd)
        [[ "${3:-}" =~ ^[0-9]+$ ]] || die "usage: cluster.sh pause etcd SECONDS"
        alive etcd || die "etcd is not running"
        pid=$(cat "$R/etcd.pid")
        kill -STOP "$pid"; sleep "$3"; kill -CONT "$pid" ;;
      imds)
        if [ $# -ge 4 ]; then node=$3; secs=$4; else node=1; secs=${3:-}; fi
        [[ "$node" =~ ^[1-9]$ ]] && [ "$node" -le "$KL_NODES" ] && [[ "$secs" =~ ^[0-9]+$ ]] \
          || die "usage: cluster.sh pause imds [N (1..$KL_NODES)] SECONDS"
        imds_outage "$node" "$secs" ;;
      *) die "usage: cluster.sh pause etcd SECONDS | pause imds [N] SECONDS" ;;
    esac ;;
  revive)
    # What a node's supervisor (systemd, the kubelet's static pods) does on a real cluster: a control-plane process
    # that exited is started again. They exit by design when they lose their leader election, e.g. across an API
    # server restart longer than their renew deadline (found by the soak: nothing restarted them here).
    for c in kube-controller-manager kube-scheduler snapshot-controller; do
      alive "$c" && continue
      case "$c" in
        kube-controller-manager) start_controller_manager >/dev/null ;;
        kube-scheduler) start_scheduler >/dev/null ;;
        snapshot-controller) start_snapshot_controller >/dev/null ;;
      esac && echo "revived $c"
    done ;;
  mounts)
    for (( i = 1; i <= KL_NODES; i++ )); do
      [ "$i" = 1 ] || [ -e "$R/ns/node-$i.mnt" ] || continue
      # shellcheck disable=SC2046
      $(node_enter "$i") awk -v k="$KL_STATE/" -v n="$(node_name "$i")" 'index($5, k) == 1 { print n " " $5 }' \
        /proc/self/mountinfo || true
    done ;;
  status) leftovers; for f in "$R"/*.pid; do [ -e "$f" ] && echo "$(basename "$f" .pid) $(cat "$f") $(kill -0 "$(cat "$f")" 2>/dev/null && echo running || echo dead)"; done ;;
  *) echo "usage: cluster.sh up|down|env|packets|status|node-stop N|node-start N|restart C|pause etcd S|pause imds [N] S|mounts|revive" >&2; exit 2 ;;
esac
