# Sourced by cluster.sh: the control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler), the
# network guard (nftables counters, the service range's blackhole route), the node (containerd with the local
# images, the bridge CNI, the kubelet), and their teardown. Every listener is on 127.0.0.1.

start_etcd() {
  bg etcd /usr/bin/etcd --name kube-local --data-dir "$KL_STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster kube-local=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381
  waitfor 60 "etcd healthy" curl -sf "http://127.0.0.1:$ETCD_PORT/health" || { tail_log etcd; return 1; }
}

start_apiserver() {
  bg kube-apiserver "$B/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
    --endpoint-reconciler-type=none \
    --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
    --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$P/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP \
    --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true --profiling=false
  waitfor 180 "kube-apiserver /readyz" curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" \
    "https://127.0.0.1:$API_PORT/readyz" || { tail_log kube-apiserver; return 1; }
}

lease_held() { [ -n "$(kubectl -n "$1" get lease "$2" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)" ]; }

start_controller_manager() {
  local kc="$KL_STATE/controller-manager.kubeconfig"
  bg kube-controller-manager "$B/kube-controller-manager" --kubeconfig="$kc" \
    --authentication-kubeconfig="$kc" --authorization-kubeconfig="$kc" \
    --bind-address=127.0.0.1 --secure-port=10257 --leader-elect=true \
    --use-service-account-credentials=true --service-account-private-key-file="$P/sa.key" \
    --root-ca-file="$P/ca.crt" --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false
  waitfor 120 "kube-controller-manager holds its lease" lease_held kube-system kube-controller-manager \
    || { tail_log kube-controller-manager; return 1; }
}

start_scheduler() {
  local kc="$KL_STATE/scheduler.kubeconfig"
  bg kube-scheduler "$B/kube-scheduler" --kubeconfig="$kc" \
    --authentication-kubeconfig="$kc" --authorization-kubeconfig="$kc" \
    --bind-address=127.0.0.1 --secure-port=10259 --leader-elect=true --profiling=false
  waitfor 120 "kube-scheduler holds its lease" lease_held kube-system kube-scheduler \
    || { tail_log kube-scheduler; return 1; }
}

# The snapshot CRDs of external-snapshotter's client module v8.7.0, read from the Go module cache (never committed).
install_snapshot_crds() {
  local dir
  dir=$(cd "$KL_HERE" && GOFLAGS=-mod=mod go mod download -json github.com/kubernetes-csi/external-snapshotter/client/v8 \
    | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/config/crd" ] || die "snapshot CRDs not found in the module cache ($dir)"
  for f in "$dir"/config/crd/snapshot.storage.k8s.io_*.yaml "$dir"/config/crd/groupsnapshot.storage.k8s.io_*.yaml; do
    kubectl apply -f "$f" >/dev/null || return 1
  done
  kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
}

# --- the network guard -------------------------------------------------------------------------------------------
# Counters for packets to the pod or service range or the node's address that arrive or leave other than through
# the bridge or loopback, the blackhole route of the service range, and the node's address on loopback. `cluster.sh packets` prints the counters; the suite asserts they stay 0.
start_network_guard() {
  ip route add blackhole "$SERVICE_CIDR" 2>/dev/null || ip route show type blackhole | grep -q "^blackhole $SERVICE_CIDR" \
    || die "cannot add the blackhole route for $SERVICE_CIDR"
  echo "$SERVICE_CIDR" > "$R/blackhole-route"
  ip addr add "$NODE_IP/32" dev "$NODE_LINK" || die "cannot add the node's address $NODE_IP to $NODE_LINK"
  echo "$NODE_IP" > "$R/node-address"
  nft -f - <<EOF
table ip $NFT_TABLE {
  set guarded { type ipv4_addr; flags interval; elements = { $POD_CIDR, $SERVICE_CIDR, $NODE_IP/32 } }
  counter inbound_foreign {}
  counter outbound_foreign {}
  chain prerouting {
    type filter hook prerouting priority -300; policy accept;
    iifname != { "lo", "$BRIDGE" } ip daddr @guarded counter name inbound_foreign
  }
  chain postrouting {
    type filter hook postrouting priority 300; policy accept;
    oifname != { "lo", "$BRIDGE" } ip daddr @guarded counter name outbound_foreign
  }
}
EOF
  echo "$NFT_TABLE" > "$R/nft-table"
}

stop_network_guard() {
  [ -f "$R/nft-table" ] && { nft delete table ip "$NFT_TABLE" 2>/dev/null; rm -f "$R/nft-table"; }
  [ -f "$R/blackhole-route" ] && { ip route del blackhole "$SERVICE_CIDR" 2>/dev/null; rm -f "$R/blackhole-route"; }
  [ -f "$R/node-address" ] && { ip addr del "$NODE_IP/32" dev "$NODE_LINK" 2>/dev/null; rm -f "$R/node-address"; }
  return 0
}

# "inbound=N outbound=N" packets to the guarded ranges that did not go through the bridge.
packet_counters() {
  local in out
  in=$(nft list counter ip "$NFT_TABLE" inbound_foreign 2>/dev/null | sed -n 's/.*packets \([0-9]*\).*/\1/p')
  out=$(nft list counter ip "$NFT_TABLE" outbound_foreign 2>/dev/null | sed -n 's/.*packets \([0-9]*\).*/\1/p')
  [ -n "$in" ] && [ -n "$out" ] || { echo "no counters (is the cluster up?)" >&2; return 1; }
  echo "inbound=$in outbound=$out"
}

# --- images: made here, imported into containerd, never pulled ---------------------------------------------------
# mkimage REF ROOTFS OUT.tar ENTRYPOINT-JSON: a one-layer docker-archive tarball that `ctr images import` reads.
mkimage() {
  local ref=$1 rootfs=$2 out=$3 entrypoint=$4 work diff config
  work=$(mktemp -d "$KL_STATE/image.XXXXXX")
  tar -C "$rootfs" --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 -cf "$work/layer.tar" .
  diff=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin:/usr/bin:/sbin:/usr/sbin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entrypoint" "$diff" > "$work/config.json"
  config=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$work/$config.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$config" "$ref" > "$work/manifest.json"
  tar -C "$work" -cf "$out" manifest.json "$config.json" layer.tar
  rm -rf "$work"
}

make_images() {
  local images="$KL_TOOLS/images"
  [ -f "$images/pause.tar" ] && [ -f "$images/busybox.tar" ] && [ "$images/pause.tar" -nt "$B/pause" ] && return 0
  mkdir -p "$images"
  local root="$images/rootfs"
  rm -rf "$root"; mkdir -p "$root/pause" "$root/busybox/bin" "$root/busybox/tmp" "$root/busybox/etc"
  cp "$B/pause" "$root/pause/pause"
  cp /bin/busybox "$root/busybox/bin/busybox"
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -sf busybox "$root/busybox/bin/$applet"; done
  echo "root:x:0:0:root:/root:/bin/sh" > "$root/busybox/etc/passwd"
  echo "root:x:0:" > "$root/busybox/etc/group"
  chmod 1777 "$root/busybox/tmp"
  mkimage "$PAUSE_IMAGE" "$root/pause" "$images/pause.tar" '["/pause"]'
  mkimage "$BUSYBOX_IMAGE" "$root/busybox" "$images/busybox.tar" '["/bin/sh"]'
  rm -rf "$root"
}
PAUSE_IMAGE=docker.io/kube-local/pause:1
BUSYBOX_IMAGE=docker.io/kube-local/busybox:1

# --- the node ----------------------------------------------------------------------------------------------------
write_node_config() {
  mkdir -p "$KL_STATE/containerd" "$KL_STATE/cni/net.d" "$KL_STATE/cni/ipam" "$KUBELET_DIR"
  cat > "$KL_STATE/containerd.toml" <<EOF
version = 2
root = "$KL_STATE/containerd/root"
state = "$KL_STATE/containerd/state"
oom_score = 0
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$R/containerd.sock"
[ttrpc]
  address = "$R/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # no CAP_SYS_RESOURCE here: containerd must not raise oom_score_adj above its own
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "/usr/sbin/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$KL_STATE/cni/net.d"
EOF
  cat > "$KL_STATE/cni/net.d/10-kube-local.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "kube-local",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": false,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "dataDir": "$KL_STATE/cni/ipam"${CNI_IPAM_ROUTES:-}}}
  ]
}
EOF
  # Pods get a resolver on their own loopback: a name lookup in a pod goes nowhere instead of off the machine.
  echo "nameserver 127.0.0.1" > "$KL_STATE/resolv.conf"
  cat > "$KL_STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$P/ca.crt"}
authorization: {mode: Webhook}
tlsCertFile: "$P/kubelet-serving.crt"
tlsPrivateKeyFile: "$P/kubelet-serving.key"
containerRuntimeEndpoint: "unix://$R/containerd.sock"
cgroupDriver: cgroupfs
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failSwapOn: false
failCgroupV1: false
podLogsDir: "$L/pods"
oomScoreAdj: 0
resolvConf: "$KL_STATE/resolv.conf"
registerNode: true
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
syncFrequency: 10s
fileCheckFrequency: 10s
nodeStatusUpdateFrequency: 10s
volumePluginDir: "$KUBELET_DIR/volume-plugins"
EOF
}

# The kernel settings the kubelet and the CNI plugins change: recorded before, restored by `down`.
SYSCTLS="vm/overcommit_memory kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes net/ipv4/ip_forward"
record_host_state() {
  [ -f "$R/sysctl.orig" ] || for s in $SYSCTLS; do
    [ -f "/proc/sys/$s" ] && echo "$s $(cat "/proc/sys/$s")"
  done > "$R/sysctl.orig"
  [ -f "$R/netns.before" ] || ls /var/run/netns 2>/dev/null > "$R/netns.before" || true
  # The kubelet makes iptables chains of its own (KUBE-FIREWALL, KUBE-KUBELET-CANARY, ...) in tables it may create.
  [ -f "$R/nft-tables.before" ] || nft list tables 2>/dev/null > "$R/nft-tables.before" || true
}

# Removes the kubelet's iptables chains: the tables it created go whole; in a table that was there before, only the
# KUBE-* chains and the rules that jump to them.
remove_kubelet_chains() {
  [ -f "$R/nft-tables.before" ] || return 0
  local family table chain handle
  while read -r _ family table; do
    if ! grep -qx "table $family $table" "$R/nft-tables.before"; then
      nft delete table "$family" "$table" 2>/dev/null
      continue
    fi
    for chain in $(nft list table "$family" "$table" 2>/dev/null | awk '$1 == "chain" { print $2 }'); do
      for handle in $(nft -a list chain "$family" "$table" "$chain" 2>/dev/null | awk '/jump KUBE-/ { print $NF }'); do
        nft delete rule "$family" "$table" "$chain" handle "$handle" 2>/dev/null
      done
    done
    for chain in $(nft list table "$family" "$table" 2>/dev/null | awk '$1 == "chain" && $2 ~ /^KUBE-/ { print $2 }'); do
      nft flush chain "$family" "$table" "$chain" 2>/dev/null; nft delete chain "$family" "$table" "$chain" 2>/dev/null
    done
  done < <(nft list tables 2>/dev/null | grep -v "table ip $NFT_TABLE\$")
  return 0
}

start_containerd() {
  bg containerd /usr/bin/containerd --config "$KL_STATE/containerd.toml"
  waitfor 60 "containerd serving" ctr --address "$R/containerd.sock" version || { tail_log containerd; return 1; }
  for image in pause busybox; do
    ctr --address "$R/containerd.sock" -n k8s.io images import "$KL_TOOLS/images/$image.tar" >/dev/null || return 1
  done
}

node_ready() {
  [ "$(kubectl get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

start_kubelet() {
  mkdir -p "$KUBELET_DIR/plugins_registry" "$KUBELET_DIR/plugins" "$L/pods"
  bg kubelet "$B/kubelet" --config="$KL_STATE/kubelet.yaml" --kubeconfig="$KL_STATE/kubelet.kubeconfig" \
    --root-dir="$KUBELET_DIR" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=2
  waitfor 180 "node $NODE_NAME Ready" node_ready || { tail_log kubelet 50; return 1; }
}

# The loop devices over files of this cluster: by backing path, or (a device attached in a pod through a bind mount,
# whose path the kernel gives below that mount) by the backing file's device and inode.
our_loop_devices() {
  local ours="" f dev file ino majmin
  while IFS= read -r f; do ours+=" $(stat -c '%i:%Hd:%Ld' "$f")"; done \
    < <(find "$KL_STATE" -xdev -type f -name '*.img' 2>/dev/null)
  while read -r dev ino majmin file; do
    case "$file" in "$KL_STATE"/*) echo "$dev"; continue ;; esac
    [[ " $ours " == *" $ino:$majmin "* ]] && echo "$dev"
  done < <(losetup -l -n -O NAME,BACK-INO,BACK-MAJ:MIN,BACK-FILE 2>/dev/null)
  return 0
}

# --- teardown ----------------------------------------------------------------------------------------------------
# Pods first, while the kubelet and the driver still run, so that volumes are unpublished, unstaged and detached.
drain_workloads() {
  alive kubelet && alive kube-apiserver || return 0
  local start; start=$(now)
  # The workloads' pods first: in pods mode the driver's own pods in kube-system must outlive them (unstage, detach).
  timeout 150 "$B/kubectl" delete pods -A --field-selector metadata.namespace!=kube-system --wait=true --timeout=120s \
    >/dev/null 2>&1 || true
  timeout 100 "$B/kubectl" delete volumeattachments --all --wait=true --timeout=90s >/dev/null 2>&1 || true
  say "  pods and volume attachments deleted ($(since "$start") s)"
}

stop_node() {
  stop kubelet 20
  if alive containerd; then
    local ctr_="ctr --address $R/containerd.sock -n k8s.io"
    for t in $($ctr_ tasks ls -q 2>/dev/null); do $ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
    sleep 1
    for t in $($ctr_ tasks ls -q 2>/dev/null); do $ctr_ tasks delete -f "$t" >/dev/null 2>&1; done
  fi
  stop containerd 20
  # The shims of our containerd (they outlive it by design), matched by our containerd's socket path.
  local pid
  for pid in $(ps -eo pid=,args= | awk -v a="$R/containerd.sock" '$2 ~ /containerd-shim/ && index($0, a) { print $1 }'); do
    kill "$pid" 2>/dev/null || true
  done
}

stop_control_plane() {
  for n in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$n" 20; done
}

# Mounts below the state directory, deepest first; loop devices whose backing file is ours; our netns, bridge,
# cgroups, sysctls.
clean_host() {
  local m i
  for i in 1 2 3; do
    for m in $(awk -v k="$KL_STATE/" 'index($5, k) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    done
  done
  local dev
  for dev in $(our_loop_devices); do losetup -d "$dev" 2>/dev/null; done
  local ns
  for ns in $(ls /var/run/netns 2>/dev/null | grep '^cni-'); do
    grep -qx "$ns" "$R/netns.before" 2>/dev/null || ip netns delete "$ns" 2>/dev/null
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  local c
  for c in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  if [ -f "$R/sysctl.orig" ]; then
    local s v
    while read -r s v; do echo "$v" > "/proc/sys/$s" 2>/dev/null; done < "$R/sysctl.orig"
  fi
  stop_network_guard
  remove_kubelet_chains
}
