# Shared by cluster.sh and driver-*.sh (sourced): where the local cluster keeps its binaries and state, and the
# helpers that start processes (recording their PIDs), stop them by those PIDs, and wait with a bound.
# Everything the cluster creates lives under $KL_STATE and is removed by `cluster.sh down`.
KL_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KL_ROOT="$(cd "$KL_HERE/../.." && pwd)"
# Resolved: the kubelet directory below it must be the shared mount itself; reached through a symbolic link (a
# worktree whose .tools links to the main checkout's) containerd refuses the node plugin's bidirectional mount
# ("is mounted on / but it is not a shared mount"), found by the soak's first run.
KL_TOOLS="$(realpath -m "${KUBE_LOCAL_TOOLS:-$KL_ROOT/.tools/kube-local}")"
KL_STATE="$KL_TOOLS/state"
# The Kubernetes minor of the control plane and kubelets: build.sh's (1.37) unless KUBE_LOCAL_KUBE_VERSION names
# another that build-minor.sh builds (1.32, the oldest EKS supports; README "The oldest EKS minor"). Its binaries are
# in .tools/kube-local-<minor>/bin (the sidecars there are links to build.sh's); the state, ports and teardown are
# the same. The minor the running cluster was brought up with wins, as the node count does.
KL_KUBE_VERSION="${KUBE_LOCAL_KUBE_VERSION:-$(cat "$KL_STATE/run/kube-version" 2>/dev/null || true)}"
if [ -n "$KL_KUBE_VERSION" ]; then
  B="$(realpath -m "$KL_ROOT/.tools/kube-local-$KL_KUBE_VERSION/bin")"
else
  B="$KL_TOOLS/bin"
fi
P="$KL_STATE/pki"
L="$KL_STATE/logs"
R="$KL_STATE/run"
KUBELET_DIR="$KL_STATE/kubelet"
NODE_NAME=kube-local-node
# The pod network is one bridge with no gateway and no masquerading: pods reach each other and nothing else.
BRIDGE=kubelocal0
POD_CIDR=10.244.77.0/24
# Nothing serves the service range (no kube-proxy): a blackhole route keeps its packets on this machine.
SERVICE_CIDR=10.0.77.0/24
SERVICE_IP=10.0.77.1
# The kubelet refuses a loopback node IP ("nodeIP can't be loopback address"), so the node gets a second address on
# the loopback interface: a documentation address (TEST-NET-1, never routed anywhere), delivered locally as 127.0.0.1
# is. (This kernel has no dummy interfaces.)
NODE_LINK=lo
NODE_IP=192.0.2.77
# Multi-node mode (KUBE_LOCAL_NODES=3, README "Many nodes"): node 1 is the node above; node N>1 is
# $NODE_NAME-N at 192.0.2.(76+N), in its own mount namespace, with its own containerd, kubelet, EC2 instance and IMDS
# emulator. Zones by node: a, a, b, ... The count the running cluster was brought up with wins (as the driver mode).
KL_NODES="${KUBE_LOCAL_NODES:-$(cat "$KL_STATE/run/nodes" 2>/dev/null || echo 1)}"
NODE_ZONES=(a a b a b)
node_name() { if [ "$1" = 1 ]; then echo "$NODE_NAME"; else echo "$NODE_NAME-$1"; fi; }
node_ip() { echo "192.0.2.$((76 + $1))"; }
node_zone() { echo "us-east-1${NODE_ZONES[$(( ($1 - 1) % ${#NODE_ZONES[@]} ))]}"; }
# The suffix of node N's process names, sockets and files ("" for node 1: the single-node names).
node_sfx() { if [ "$1" = 1 ]; then echo ""; else echo "-$1"; fi; }
# Every node's IMDS emulator answers on that node's address, this port (node 1's through a DNAT to its emulator).
IMDS_NODE_PORT=19338
API_PORT=6443
ETCD_PORT=2379
NFT_TABLE=kube_local
export KUBECONFIG="$KL_STATE/admin.kubeconfig"

now() { date +%s.%N; }
since() { awk -v s="$1" -v n="$(now)" 'BEGIN { printf "%.1f", n - s }'; }
say() { echo "kube-local: $*"; }
die() { echo "kube-local: $*" >&2; exit 1; }
kubectl() { "$B/kubectl" "$@"; }

# bg NAME CMD...: starts CMD in the background (its own session, output to $L/NAME.log), records its PID.
bg() {
  local name=$1; shift
  setsid "$@" >>"$L/$name.log" 2>&1 < /dev/null &
  echo $! > "$R/$name.pid"
}
alive() { [ -f "$R/$1.pid" ] && kill -0 "$(cat "$R/$1.pid")" 2>/dev/null; }
# stop NAME [GRACE_SECONDS]: SIGTERM to the recorded PID, SIGKILL after the grace period; forgets the PID.
stop() {
  local name=$1 grace=${2:-10} pid
  [ -f "$R/$name.pid" ] || return 0
  pid=$(cat "$R/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    local deadline=$(( $(date +%s) + grace ))
    while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    # A process we started is our child only when this shell started it; wait where we can.
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$R/$name.pid"
}
# waitfor SECONDS WHAT CMD...: polls CMD until it succeeds; on time-out prints WHAT and returns 1.
waitfor() {
  local seconds=$1 what=$2; shift 2
  local start; start=$(now)
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then echo "kube-local: not within ${seconds}s: $what" >&2; return 1; fi
    sleep 0.3
  done
  say "  $what ($(since "$start") s)"
}
# The last lines of a component's log, for a failure message.
tail_log() { [ -f "$L/$1.log" ] && { echo "--- last lines of $L/$1.log"; tail -n "${2:-30}" "$L/$1.log"; } >&2; return 0; }
