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

# What a minor needs beyond its defaults, as EKS runs it. 1.32 (README "The oldest EKS minor"): EKS serves
# VolumeAttributesClass there through its beta API (storage.k8s.io/v1beta1, feature gate and runtime-config; EKS's
# 1.34 release notes: volume modification keeps working on 1.31-1.33); the PV controller of the controller manager
# takes the same gate. 1.34+: VolumeAttributesClass is GA, nothing to add.
minor_gates() {
  case "$KL_KUBE_VERSION" in
    1.3[123]) echo "--feature-gates=VolumeAttributesClass=true" ;;
  esac
}
minor_apiserver_flags() {
  case "$KL_KUBE_VERSION" in
    1.3[123]) echo "--feature-gates=VolumeAttributesClass=true --runtime-config=storage.k8s.io/v1beta1=true" ;;
  esac
}

start_apiserver() {
  # shellcheck disable=SC2046
  bg kube-apiserver "$B/kube-apiserver" $(minor_apiserver_flags) \
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
  # shellcheck disable=SC2046
  bg kube-controller-manager "$B/kube-controller-manager" $(minor_gates) --kubeconfig="$kc" \
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
  local i addresses="$NODE_IP/32"
  : > "$R/node-address"
  for (( i = 1; i <= KL_NODES; i++ )); do
    ip addr add "$(node_ip "$i")/32" dev "$NODE_LINK" || die "cannot add the node's address $(node_ip "$i") to $NODE_LINK"
    node_ip "$i" >> "$R/node-address"
    [ "$i" = 1 ] || addresses+=", $(node_ip "$i")/32"
  done
  nft -f - <<EOF
table ip $NFT_TABLE {
  set guarded { type ipv4_addr; flags interval; elements = { $POD_CIDR, $SERVICE_CIDR, $addresses } }
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
  if [ -f "$R/node-address" ]; then
    local a
    while read -r a; do [ -n "$a" ] && ip addr del "$a/32" dev "$NODE_LINK" 2>/dev/null; done < "$R/node-address"
    rm -f "$R/node-address"
  fi
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
# write_containerd_config N: node N's containerd (its own root, state and sockets; the CNI configuration is shared:
# one bridge, one host-local allocation, so pods of every node are on one network).
write_containerd_config() {
  local sfx; sfx=$(node_sfx "$1")
  mkdir -p "$KL_STATE/containerd$sfx"
  cat > "$KL_STATE/containerd$sfx.toml" <<EOF
version = 2
root = "$KL_STATE/containerd$sfx/root"
state = "$KL_STATE/containerd$sfx/state"
oom_score = 0
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$R/containerd$sfx.sock"
[ttrpc]
  address = "$R/containerd$sfx-ttrpc.sock"
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
}

write_node_config() {
  mkdir -p "$KL_STATE/cni/net.d" "$KL_STATE/cni/ipam" "$KUBELET_DIR"
  local i
  for (( i = 1; i <= KL_NODES; i++ )); do write_containerd_config "$i"; done
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
  for (( i = 1; i <= KL_NODES; i++ )); do write_kubelet_config "$i"; done
}

# write_kubelet_config N: node N's kubelet configuration ($KL_STATE/kubelet<sfx>.yaml). Node 1 of a one-node cluster
# is as it always was; in multi-node mode every node also gets its EC2 instance as provider id (written by
# start_node_instances), and nodes past the first their own cgroup root (one kubelet removes the pod cgroups below its
# root that it does not know: sharing kubepods would kill the other nodes' pods).
write_kubelet_config() {
  local i=$1 sfx ip
  sfx=$(node_sfx "$i"); ip=$(node_ip "$i")
  local serving="kubelet-serving"; [ "$i" = 1 ] || serving="kubelet-serving-$i"
  local extra=""
  if [ "$KL_NODES" -gt 1 ]; then
    extra="providerID: \"aws:///$(node_zone "$i")/$(cat "$R/instance$sfx" 2>/dev/null)\""
    [ "$i" = 1 ] || extra+=$'\n'"cgroupRoot: /kube-local$sfx"
  fi
  cat > "$KL_STATE/kubelet$sfx.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: $( [ "$i" = 1 ] && echo 127.0.0.1 || echo "$ip" )
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$P/ca.crt"}
authorization: {mode: Webhook}
tlsCertFile: "$P/$serving.crt"
tlsPrivateKeyFile: "$P/$serving.key"
containerRuntimeEndpoint: "unix://$R/containerd$sfx.sock"
cgroupDriver: cgroupfs
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failSwapOn: false
failCgroupV1: false
podLogsDir: "$L/pods$sfx"
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
$extra
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

# Node N>1 runs in its own mount namespace (multi-node mode): a namespace file under $R/ns (a private bind mount, as
# unshare needs), in which the node's own kubelet directory is mounted over $KUBELET_DIR and made shared, so every
# node's kubelet, containerd and pods use the one path of the charts while none sees another node's mounts. Node 1
# stays in the host's namespace (what the host sees is node 1's).
node_namespace() {
  local i=$1
  local dir="$KL_STATE/nodes/$i/kubelet" host efs_binds=""
  mkdir -p "$dir"
  touch "$R/ns/node-$i.mnt"
  # The EFS node's host directories (efs-utils' state, its watchdog's) are each node's own on a real cluster: a node's
  # own directory over each in its namespace, so no node's watchdog or plugin sees (and cleans) another's mounts. The
  # host directory is made if missing (and recorded, as driver-chart.sh records the chart's, for `down`).
  for host in /var/run/efs /var/amazon/efs; do
    if [ ! -e "$host" ]; then
      local top=$host
      while [ ! -e "$(dirname "$top")" ]; do top=$(dirname "$top"); done
      echo "$top" >> "$R/host-dirs-made"
      mkdir -p "$host"
    fi
    mkdir -p "$KL_STATE/nodes/$i$host"
    efs_binds+="mount --bind '$KL_STATE/nodes/$i$host' '$host' && "
  done
  # The host's own mounts at the kubelet path (pods mode's shared bind) are let go first: containerd judges the path
  # by the first mount table entry for it, which must be the node's shared one.
  unshare --mount="$R/ns/node-$i.mnt" --propagation private \
    sh -c "while mountpoint -q '$KUBELET_DIR'; do umount -l '$KUBELET_DIR' || exit 1; done;
           $efs_binds mount --bind '$dir' '$KUBELET_DIR' && mount --make-rshared '$KUBELET_DIR'"
}
# The command prefix that runs a program in node N's mount namespace (none for node 1); nsenter execs the program,
# so the PID bg records is the program's.
node_enter() { [ "$1" = 1 ] || echo "nsenter --mount=$R/ns/node-$1.mnt"; }

start_containerd() {
  local i
  # The namespace files' directory, once (the nodes start side by side).
  if [ "$KL_NODES" -gt 1 ] && [ ! -f "$R/ns/.private" ]; then
    mkdir -p "$R/ns" && mount --bind "$R/ns" "$R/ns" && mount --make-private "$R/ns" && touch "$R/ns/.private" || return 1
  fi
  for (( i = 1; i <= KL_NODES; i++ )); do start_node_containerd "$i" & done
  local rc=0
  for (( i = 1; i <= KL_NODES; i++ )); do wait -n || rc=1; done
  return $rc
}

start_node_containerd() {
  local i=$1 sfx; sfx=$(node_sfx "$1")
  if [ "$i" != 1 ]; then node_namespace "$i" || return 1; fi
  # shellcheck disable=SC2046
  bg "containerd$sfx" $(node_enter "$i") /usr/bin/containerd --config "$KL_STATE/containerd$sfx.toml"
  waitfor 60 "containerd$sfx serving" ctr --address "$R/containerd$sfx.sock" version || { tail_log "containerd$sfx"; return 1; }
  for image in pause busybox; do
    ctr --address "$R/containerd$sfx.sock" -n k8s.io images import "$KL_TOOLS/images/$image.tar" >/dev/null || return 1
  done
}

node_ready() {
  [ "$(kubectl get node "${1:-$NODE_NAME}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

start_kubelet() {
  local i
  for (( i = 1; i <= KL_NODES; i++ )); do start_node_kubelet "$i" || return 1; done
  for (( i = 1; i <= KL_NODES; i++ )); do
    waitfor 180 "node $(node_name "$i") Ready" node_ready "$(node_name "$i")" \
      || { tail_log "kubelet$(node_sfx "$i")" 50; return 1; }
  done
}

start_node_kubelet() {
  local i=$1 sfx name labels=""
  sfx=$(node_sfx "$i"); name=$(node_name "$i")
  local kc="$KL_STATE/kubelet.kubeconfig"; [ "$i" = 1 ] || kc="$KL_STATE/kubelet-$i.kubeconfig"
  mkdir -p "$L/pods$sfx"
  local dir="$KUBELET_DIR"; [ "$i" = 1 ] || dir="$KL_STATE/nodes/$i/kubelet"
  mkdir -p "$dir/plugins_registry" "$dir/plugins"
  if [ "$KL_NODES" -gt 1 ]; then
    # What EKS's cloud provider puts on a node; the kubelet may set these labels on its own Node.
    labels="--node-labels=topology.kubernetes.io/region=us-east-1,topology.kubernetes.io/zone=$(node_zone "$i"),node.kubernetes.io/instance-type=m5.large"
    if [ "$i" != 1 ]; then
      local c
      for c in /sys/fs/cgroup/*/; do [ -d "$c" ] && [ ! -L "${c%/}" ] && mkdir -p "$c/kube-local$sfx"; done
    fi
  fi
  # shellcheck disable=SC2046
  bg "kubelet$sfx" $(node_enter "$i") "$B/kubelet" --config="$KL_STATE/kubelet$sfx.yaml" --kubeconfig="$kc" \
    --root-dir="$KUBELET_DIR" --hostname-override="$name" --node-ip="$(node_ip "$i")" $labels --v=2
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
  local i
  for (( i = KL_NODES; i >= 1; i-- )); do stop_one_node "$i"; done
}

stop_one_node() {
  local sfx; sfx=$(node_sfx "$1")
  stop "kubelet$sfx" 20
  if alive "containerd$sfx"; then
    local ctr_="ctr --address $R/containerd$sfx.sock -n k8s.io"
    # A task that already stopped (a container that exited) refuses the kill: not a failure of the power-off (under
  # errexit it ended node-stop at once, silently; found by the untainted node-lost run).
  for t in $($ctr_ tasks ls -q 2>/dev/null); do $ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true; done
    sleep 1
    for t in $($ctr_ tasks ls -q 2>/dev/null); do $ctr_ tasks delete -f "$t" >/dev/null 2>&1; done
  fi
  stop "containerd$sfx" 20
  # The shims of our containerd (they outlive it by design), matched by our containerd's socket path.
  local pid
  for pid in $(ps -eo pid=,args= | awk -v a="$R/containerd$sfx.sock" '$2 ~ /containerd-shim/ && index($0, a) { print $1 }'); do
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
    # (A node's containerd in its own mount namespace leaves only the empty file here once that namespace is gone.)
    grep -qx "$ns" "$R/netns.before" 2>/dev/null || ip netns delete "$ns" 2>/dev/null || rm -f "/var/run/netns/$ns"
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  local c
  for c in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/kube-local-[0-9]*; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  if [ -f "$R/sysctl.orig" ]; then
    local s v
    while read -r s v; do echo "$v" > "/proc/sys/$s" 2>/dev/null; done < "$R/sysctl.orig"
  fi
  stop_network_guard
  remove_kubelet_chains
}

# --- multi-node mode: an EC2 instance and an IMDS emulator per node ------------------------------------------------
# Node 1 is the instance the emulated AWS made (AWS_LOCAL_INSTANCE_ID, us-east-1a) with its IMDS front (the ENIs EC2
# attached to it); node N>1 gets an instance run in its zone through the realism layer (boto3, as any EC2 client) and
# an amazon-ec2-metadata-mock of its own reporting it, on the node's address. Every node's IMDS is
# http://<node address>:$IMDS_NODE_PORT (node 1's DNATed to its front on 127.0.0.1), so one DaemonSet reaches its own
# node's with the downward API's status.hostIP. The loop backend's state gets a directory per node whose by-id is
# that instance's (by-instance/<id>, what the controller links for an attach to it), so a node finds only the volumes
# attached to its own instance.
start_node_instances() {
  [ "$KL_NODES" -gt 1 ] || return 0
  local i sfx id zone ip front
  sed -n 's/^AWS_LOCAL_INSTANCE_ID=//p' "$R/aws.env" > "$R/instance"
  front=$(sed -n 's|^AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:\([0-9]*\).*|\1|p' "$R/aws.env")
  [ -s "$R/instance" ] && [ -n "$front" ] || { say "no instance or IMDS of node 1 in $R/aws.env"; return 1; }
  nft -f - <<NFT || return 1
table ip $NFT_TABLE {
  chain node_imds {
    type nat hook output priority -100; policy accept;
    ip daddr $(node_ip 1) tcp dport $IMDS_NODE_PORT dnat to 127.0.0.1:$front
  }
}
NFT
  for (( i = 2; i <= KL_NODES; i++ )); do
    sfx=$(node_sfx "$i"); zone=$(node_zone "$i"); ip=$(node_ip "$i")
    id=$(AWS_ENDPOINT_URL=$(sed -n 's/^AWS_ENDPOINT_URL=//p' "$R/aws.env") python3 - "$zone" <<'PY'
import sys, boto3
ec2 = boto3.client("ec2", region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
r = ec2.run_instances(ImageId="ami-0123456789abcdef0", MinCount=1, MaxCount=1, InstanceType="m5.large",
                      Placement={"AvailabilityZone": sys.argv[1]})
print(r["Instances"][0]["InstanceId"])
PY
    ) || { say "run-instances for node $i failed"; return 1; }
    echo "$id" > "$R/instance$sfx"
    mkdir -p "$KL_STATE/imds$sfx"
    cat > "$KL_STATE/imds$sfx/aemm-config.json" <<JSON
{"metadata": {"values": {"instance-id": "$id", "instance-type": "m5.large", "placement-availability-zone": "$zone",
  "placement-availability-zone-id": "use1-az$i", "placement-region": "us-east-1", "local-ipv4": "$ip"}},
 "dynamic": {"values": {"instance-identity-document": {"accountId": "123456789012", "imageId": "ami-0123456789abcdef0",
  "availabilityZone": "$zone", "version": "2017-09-30", "privateIp": "$ip", "instanceId": "$id",
  "pendingTime": "2026-01-01T00:00:00Z", "architecture": "x86_64", "instanceType": "m5.large", "region": "us-east-1"}}}}
JSON
    (cd "$KL_STATE/imds$sfx" && bg "imds$sfx" "$KL_ROOT/.tools/bin/ec2-metadata-mock" -n "$ip" -p "$IMDS_NODE_PORT" -I \
      -c "$KL_STATE/imds$sfx/aemm-config.json")
  done
  for (( i = 1; i <= KL_NODES; i++ )); do
    sfx=$(node_sfx "$i")
    waitfor 30 "node $(node_name "$i"): instance $(cat "$R/instance$sfx") in $(node_zone "$i"), IMDS at $(node_ip "$i"):$IMDS_NODE_PORT" \
      curl -sf -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60' "http://$(node_ip "$i"):$IMDS_NODE_PORT/latest/api/token" \
      || { tail_log "imds$sfx"; return 1; }
  done
  local loop="$KL_STATE/ebs-loop" name
  mkdir -p "$loop/volumes" "$loop/snapshots"
  for (( i = 1; i <= KL_NODES; i++ )); do
    sfx=$(node_sfx "$i"); name=$(node_name "$i"); id=$(cat "$R/instance$sfx")
    mkdir -p "$loop/by-instance/$id" "$loop/nodes/$name"
    ln -sfn ../../volumes "$loop/nodes/$name/volumes"
    ln -sfn ../../snapshots "$loop/nodes/$name/snapshots"
    ln -sfn "../../by-instance/$id" "$loop/nodes/$name/by-id"
  done
}

# node_power_off N: node N lost as a machine is: its containers, containerd and kubelet killed (no unmount, no
# unstage, no detach: nothing of the node answers any more), then its mount namespace let go, so its mounts are gone
# with it (the EC2 attachments stay until the control plane detaches them).
node_power_off() {
  local i=$1 sfx; sfx=$(node_sfx "$1")
  local ctr_="ctr --address $R/containerd$sfx.sock -n k8s.io" pid t
  # A task that already stopped (a container that exited) refuses the kill: not a failure of the power-off (under
  # errexit it ended node-stop at once, silently; found by the untainted node-lost run).
  for t in $($ctr_ tasks ls -q 2>/dev/null); do $ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true; done
  stop "kubelet$sfx" 0
  stop "containerd$sfx" 0
  for pid in $(ps -eo pid=,args= | awk -v a="$R/containerd$sfx.sock" '$2 ~ /containerd-shim/ && index($0, a) { print $1 }'); do
    kill -9 "$pid" 2>/dev/null || true
  done
  umount "$R/ns/node-$i.mnt" 2>/dev/null || umount -l "$R/ns/node-$i.mnt"
  say "node $(node_name "$i") powered off"
}

# node_power_on N: node N boots again: a fresh mount namespace, its containerd (its images kept on disk) and kubelet.
node_power_on() {
  local i=$1
  start_node_containerd "$i" && start_node_kubelet "$i" || return 1
  waitfor 180 "node $(node_name "$i") Ready" node_ready "$(node_name "$i")" || { tail_log "kubelet$(node_sfx "$i")" 50; return 1; }
}
