# Sourced by cluster.sh: the driver as the charts' own pods (KUBE_LOCAL_DRIVER=chart, issue 14). The locally built
# images (hack/image: the driver, one per sidecar) are imported into the node's containerd, and the two
# upstream-layout charts are installed with `helm install`, as EKS users install them: helm/aws-ebs-csi-driver and
# helm/aws-efs-csi-driver, releases aws-ebs-csi-driver and aws-efs-csi-driver in kube-system, values
# values-pods-ebs.yaml / values-pods-efs.yaml plus what depends on this machine (paths, endpoints, images), written to
# $CHART_DIR/runtime-*.yaml. (The upstream layout, not helm/aws-csi-driver: its per-driver controller and node keep
# their own arguments, volumes and env, which the loop backend and the EFS stand-in need in one driver only, and it
# is the layout an in-place upgrade of an upstream release starts from.)
#
# The pod network (what the host mode does not need):
#   - controller pods are NOT on the host network: the sidecars' leader-election identity is os.Hostname(), which in
#     a hostNetwork pod is the node's, so two replicas on one node would both "hold" each Lease. They reach the API
#     server at the kubernetes Service address ($SERVICE_IP:443, a route to it via the bridge in every pod) and
#     emulated AWS at the bridge's address ($POD_GATEWAY); nftables DNATs both, on the bridge only, to the listeners
#     on 127.0.0.1 (route_localnet on the bridge; the interface and the setting go with the bridge at `down`). The
#     service range keeps its blackhole route on the host; nothing is routed off the machine.
#   - node pods are on the host network (the IMDS emulator and the API server are on the host's loopback), with
#     KUBERNETES_SERVICE_HOST=127.0.0.1.
#   - the kubelet directory is bind-mounted on itself and made shared, so the node plugin's Bidirectional mount of it
#     propagates (the host's / is a private mount here).
CHART_DIR="$KL_STATE/driver-chart"
IMAGES="${KUBE_LOCAL_IMAGES:-$KL_ROOT/.tools/images}"
IMAGE_REPO="${IMAGE_REPO:-localhost/aws-csi}"
DRIVER_IMAGE_TAG="${KUBE_LOCAL_IMAGE_TAG:-0.1.0}"
POD_GATEWAY=10.244.77.1
EBS_RELEASE=aws-ebs-csi-driver
EFS_RELEASE=aws-efs-csi-driver
# The sidecars the charts pin, built by build.sh (name=image:tag).
SIDECAR_IMAGES="csi-provisioner:v6.4.0 csi-attacher:v4.13.0 csi-resizer:v2.3.0 csi-snapshotter:v8.7.0"
# hostPath directories of the EFS node that the chart creates on the host; removed at `down` when this made them.
EFS_HOST_DIRS="/var/run/efs /var/amazon/efs /etc/amazon/efs"
CNI_IPAM_ROUTES=", \"routes\": [{\"dst\": \"$SERVICE_CIDR\", \"gw\": \"$POD_GATEWAY\"}]"

# Before containerd and the kubelet: the bridge with the pods' gateway address, the DNAT of the API server's
# Service address, the shared kubelet directory.
driver_network() {
  ip link add "$BRIDGE" type bridge 2>/dev/null || true
  ip addr add "$POD_GATEWAY/24" dev "$BRIDGE" || return 1
  ip link set "$BRIDGE" up
  echo 1 > "/proc/sys/net/ipv4/conf/$BRIDGE/route_localnet"
  nft -f - <<EOF || return 1
table ip $NFT_TABLE {
  chain pod_dnat {
    type nat hook prerouting priority -100; policy accept;
    iifname "$BRIDGE" ip daddr $SERVICE_IP tcp dport 443 dnat to 127.0.0.1:$API_PORT
  }
}
EOF
  mkdir -p "$KUBELET_DIR"
  mount --bind "$KUBELET_DIR" "$KUBELET_DIR" && mount --make-rshared "$KUBELET_DIR"
}

# The images of the release: the driver's emulated TEST image (make image: both drivers, as the two production images
# hold them, plus lib/local and the emulated entrypoint, hack/image/aws-csi-driver-emulated; both charts run it) and
# the sidecars' (built here from build.sh's binaries
# when missing; cached by hack/image), imported into the node's containerd.
import_images() {
  local specs=() s
  [ -s "$IMAGES/aws-csi-driver-emulated.tar" ] || die "no emulated driver test image in $IMAGES (make image)"
  for s in $SIDECAR_IMAGES; do
    [ -s "$IMAGES/${s%%:*}.tar" ] && grep -qx "$IMAGE_REPO/$s" "$IMAGES/${s%%:*}.tar.ref" 2>/dev/null \
      || specs+=("$B/${s%%:*}=$s")
  done
  if [ ${#specs[@]} -gt 0 ]; then
    bash "$KL_ROOT/hack/image/build-static-image.sh" --repo "$IMAGE_REPO" "${specs[@]}" >> "$L/images.log" 2>&1 \
      || { tail_log images; return 1; }
  fi
  # Into every node's containerd (several nodes: side by side).
  local i rc=0
  for (( i = 1; i <= KL_NODES; i++ )); do
    (
      for s in aws-csi-driver-emulated $SIDECAR_IMAGES; do
        ctr --address "$R/containerd$(node_sfx "$i").sock" -n k8s.io images import "$IMAGES/${s%%:*}.tar" >/dev/null || exit 1
      done
    ) &
  done
  for (( i = 1; i <= KL_NODES; i++ )); do wait -n || rc=1; done
  [ "$rc" = 0 ] || return 1
  DRIVER_IMAGE_REF=$(cat "$IMAGES/aws-csi-driver-emulated.tar.ref")
  # The tag the release is installed with (IMAGE_TAG of make image may differ from the default).
  DRIVER_IMAGE_TAG=${DRIVER_IMAGE_REF##*:}
}

# KEY's value in the emulator's env file.
aws_value() { sed -n "s/^$1=//p" "$R/aws.env"; }
port_of() { echo "$1" | sed -n 's|.*:\([0-9]*\)/*$|\1|p'; }

write_runtime_values() {
  local aws imds region fs loop efs repo
  aws=$(aws_value AWS_ENDPOINT_URL); imds=$(aws_value AWS_EC2_METADATA_SERVICE_ENDPOINT)
  region=$(aws_value AWS_REGION); fs=$(aws_value AWS_LOCAL_FILE_SYSTEM_ID)
  loop="$KL_STATE/ebs-loop"; efs="$KL_STATE/efs-local"; repo="${DRIVER_IMAGE_REF%:*}"
  local standin="$KL_ROOT/hack/efs-utils-standin" static="$KL_STATE/efs-utils-static"
  mkdir -p "$static" && echo "stand-in CA bundle of the local image (it has no amazon-efs-utils)" > "$static/efs-utils.crt"
  local pod_aws="http://$POD_GATEWAY:$(port_of "$aws")" pod_imds="http://$POD_GATEWAY:$(port_of "$imds")"
  # Controller pods: emulated AWS through the bridge's address; a non-loopback endpoint gets no dummy keys from
  # the driver, so the emulator's test keys are given.
  local controller_env="
    - {name: AWS_ENDPOINT_URL, value: \"$pod_aws\"}
    - {name: AWS_EC2_METADATA_SERVICE_ENDPOINT, value: \"$pod_imds\"}
    - {name: AWS_ACCESS_KEY_ID, value: test}
    - {name: AWS_SECRET_ACCESS_KEY, value: test}"
  # Several nodes: each node plugin reaches its own node's IMDS and serves HTTP on its own node's address, both from
  # the node's address (status.hostIP, the kubelet's --node-ip), and its loop state is its node's (start_node_instances).
  local node_ip_env="" node_addr="$NODE_IP" node_loop="$loop"
  if [ "$KL_NODES" -gt 1 ]; then
    node_ip_env="
    - {name: KUBE_LOCAL_NODE_IP, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}"
    imds="http://\$(KUBE_LOCAL_NODE_IP):$IMDS_NODE_PORT"
    node_addr="\$(KUBE_LOCAL_NODE_IP)"
    node_loop="$loop/nodes/\$(CSI_NODE_NAME)"
  fi
  local node_env="$node_ip_env
    - {name: AWS_REGION, value: \"$region\"}
    - {name: AWS_ENDPOINT_URL, value: \"$aws\"}
    - {name: AWS_EC2_METADATA_SERVICE_ENDPOINT, value: \"$imds\"}
    - {name: DISABLE_TAINT_WATCHER, value: \"true\"}
    - {name: KUBERNETES_SERVICE_HOST, value: \"127.0.0.1\"}
    - {name: KUBERNETES_SERVICE_PORT, value: \"$API_PORT\"}"
  cat > "$CHART_DIR/runtime-ebs.yaml" <<EOF
image: {repository: $repo, tag: "$DRIVER_IMAGE_TAG"}
sidecars:
  provisioner: {image: {repository: $IMAGE_REPO/csi-provisioner, tag: v6.4.0}}
  attacher: {image: {repository: $IMAGE_REPO/csi-attacher, tag: v4.13.0}}
  resizer: {image: {repository: $IMAGE_REPO/csi-resizer, tag: v2.3.0}}
  snapshotter: {image: {repository: $IMAGE_REPO/csi-snapshotter, tag: v8.7.0}}
controller:
  region: "$region"
  env:$controller_env
    - {name: AWS_CSI_EMULATION_ARGS, value: "--device-backend=loop --loop-state-dir=$loop"}
  volumes:
    - {name: loop-state, hostPath: {path: "$loop", type: Directory}}
    - {name: host-dev, hostPath: {path: /dev, type: Directory}}
  volumeMounts:
    - {name: loop-state, mountPath: "$loop"}
    - {name: host-dev, mountPath: /dev}
node:
  kubeletPath: "$KUBELET_DIR"
  # The node's address (on loopback), not the chart's 0.0.0.0: the kubelet probes a hostNetwork pod there.
  additionalArgs: ["--http-endpoint=$node_addr:3302"]
  env:$node_env
    - {name: AWS_CSI_EMULATION_ARGS, value: "--device-backend=loop --loop-state-dir=$node_loop"}
  volumes:
    - {name: loop-state, hostPath: {path: "$loop", type: Directory}}
  volumeMounts:
    - {name: loop-state, mountPath: "$loop"}
EOF
  cat > "$CHART_DIR/runtime-efs.yaml" <<EOF
image: {repository: $repo, tag: "$DRIVER_IMAGE_TAG"}
sidecars:
  csiProvisioner: {image: {repository: $IMAGE_REPO/csi-provisioner, tag: v6.4.0}}
controller:
  region: "$region"
  env:$controller_env
    - {name: AWS_CSI_EMULATION_ARGS, value: "--efs-mount-backend=local --efs-local-root=$efs"}
  volumes:
    - {name: efs-local, hostPath: {path: "$efs", type: Directory}}
    - {name: efs-controller-mounts, emptyDir: {}}
  volumeMounts:
    - {name: efs-local, mountPath: "$efs"}
    - {name: efs-controller-mounts, mountPath: /var/lib/csi/pv}
# The node as production runs it, the efs-utils backend (mount -t efs) with its watchdog supervised, where efs-utils'
# executables are stand-ins (no NFS client in this kernel; the local image has no amazon-efs-utils), put where the
# package puts them: hack/efs-utils-standin's mount.efs starts a TLS proxy per mount and bind-mounts the local
# directory the controller's local backend uses; the package's static files, a stand-in CA.
node:
  kubeletPath: "$KUBELET_DIR"
  additionalArgs: ["--http-endpoint=$node_addr:3312"]
  env:$node_env
    - {name: EFS_UTILS_STANDIN_ROOT, value: "$efs"}
  volumes:
    - {name: efs-local, hostPath: {path: "$efs", type: Directory}}
    - {name: standin-mount-efs, hostPath: {path: "$standin/mount.efs", type: File}}
    - {name: standin-watchdog, hostPath: {path: "$standin/amazon-efs-mount-watchdog", type: File}}
    - {name: standin-efs-proxy, hostPath: {path: "$standin/efs-proxy", type: File}}
    - {name: standin-static-files, hostPath: {path: "$static", type: Directory}}
  volumeMounts:
    - {name: efs-local, mountPath: "$efs"}
    - {name: standin-mount-efs, mountPath: /sbin/mount.efs, readOnly: true}
    - {name: standin-watchdog, mountPath: /usr/bin/amazon-efs-mount-watchdog, readOnly: true}
    - {name: standin-efs-proxy, mountPath: /usr/bin/efs-proxy, readOnly: true}
    - {name: standin-static-files, mountPath: /etc/amazon/efs-static-files, readOnly: true}
storageClasses:
  - name: efs-sc
    reclaimPolicy: Delete
    parameters: {provisioningMode: efs-ap, fileSystemId: "$fs", directoryPerms: "700"}
EOF
  # Emulated AWS for the controller pods: the bridge's address, on the emulator's ports only.
  nft add rule ip "$NFT_TABLE" pod_dnat iifname "$BRIDGE" ip daddr "$POD_GATEWAY" \
    tcp dport "{ $(port_of "$aws"), $(port_of "$imds") }" dnat to 127.0.0.1
}

# helm install|upgrade of one release with the pods-mode values (extra helm arguments after the chart).
helm_release() {
  local release=$1 driver=$2; shift 2
  "$HELM" upgrade --install "$release" "$KL_ROOT/helm/$release" -n kube-system \
    -f "$KL_HERE/values-pods-$driver.yaml" -f "$CHART_DIR/runtime-$driver.yaml" --wait --timeout 5m "$@" || return 1
  # helm's --wait counts a DaemonSet within its maxUnavailable as ready: every pod of the release, through its probes.
  kubectl -n kube-system rollout status "daemonset/$driver-csi-node" --timeout=180s \
    && kubectl -n kube-system rollout status "deployment/$driver-csi-controller" --timeout=180s \
    && kubectl -n kube-system wait --for=condition=Ready pod -l "app.kubernetes.io/instance=$release" --timeout=180s
}

driver_up() {
  mkdir -p "$CHART_DIR" "$KL_STATE/ebs-loop" "$KL_STATE/efs-local"
  local d top
  for d in $EFS_HOST_DIRS; do
    top=$d
    while [ ! -e "$(dirname "$top")" ]; do top=$(dirname "$top"); done
    [ -e "$d" ] || echo "$top" >> "$R/host-dirs-made"
  done
  local t; t=$(now)
  import_images || return 1
  say "  images imported ($DRIVER_IMAGE_REF and $SIDECAR_IMAGES, $(since "$t") s)"
  write_runtime_values || return 1
  t=$(now)
  helm_release "$EBS_RELEASE" ebs >> "$L/helm.log" 2>&1 || { tail_log helm; driver_failure_dump; return 1; }
  say "  helm install $EBS_RELEASE: pods Ready ($(since "$t") s)"
  t=$(now)
  helm_release "$EFS_RELEASE" efs >> "$L/helm.log" 2>&1 || { tail_log helm; driver_failure_dump; return 1; }
  say "  helm install $EFS_RELEASE: pods Ready ($(since "$t") s)"
  local i
  for (( i = 1; i <= KL_NODES; i++ )); do
    waitfor 120 "both node plugins registered with the kubelet of $(node_name "$i") (CSINode)" \
      csinode_has "$(node_name "$i")" ebs.csi.aws.com efs.csi.aws.com || { driver_failure_dump; return 1; }
  done
  local lease
  for lease in ebs-csi-aws-com external-attacher-leader-ebs-csi-aws-com external-resizer-ebs-csi-aws-com \
               external-snapshotter-leader-ebs-csi-aws-com efs-csi-aws-com; do
    waitfor 120 "lease $lease held" lease_held kube-system "$lease" || { driver_failure_dump; return 1; }
  done
}

driver_failure_dump() {
  kubectl -n kube-system get pods -o wide >&2 || true
  kubectl -n kube-system get events --sort-by=.lastTimestamp 2>/dev/null | tail -n 30 >&2 || true
  local p
  for p in $(kubectl -n kube-system get pods -o name 2>/dev/null | grep csi); do
    echo "--- $p" >&2; kubectl -n kube-system logs "$p" --all-containers --tail=15 >&2 2>&1 || true
  done
}

csinode_has() {
  local drivers node=$1; shift
  drivers=$(kubectl get csinode "$node" -o jsonpath='{.spec.drivers[*].name}' 2>/dev/null) || return 1
  for d in "$@"; do [[ " $drivers " == *" $d "* ]] || return 1; done
}

driver_pod_start() { die "pods mode: the Deployments and DaemonSets start pods"; }

# After the workloads are gone: the releases uninstalled while the kubelet still runs (their pods stop cleanly).
driver_down() {
  if alive kube-apiserver && alive kubelet && [ -x "${HELM:-}" ]; then
    local r
    for r in "$EFS_RELEASE" "$EBS_RELEASE"; do
      timeout 120 "$HELM" uninstall "$r" -n kube-system --wait --timeout 90s >/dev/null 2>&1 || true
    done
    timeout 100 "$B/kubectl" -n kube-system wait --for=delete pod \
      -l "app.kubernetes.io/instance in ($EBS_RELEASE,$EFS_RELEASE)" --timeout=90s \
      >/dev/null 2>&1 || true
  fi
  if [ -f "$R/host-dirs-made" ]; then
    local d
    while read -r d; do [ -n "$d" ] && rm -rf "$d"; done < "$R/host-dirs-made"
    rm -f "$R/host-dirs-made"
  fi
  return 0
}

driver_env() {
  echo "KUBE_LOCAL_RELEASES=$EBS_RELEASE,$EFS_RELEASE"
  echo "KUBE_LOCAL_CHARTS=$KL_ROOT/helm"
  echo "KUBE_LOCAL_HELM=$HELM"
  echo "KUBE_LOCAL_VALUES_EBS=$KL_HERE/values-pods-ebs.yaml,$CHART_DIR/runtime-ebs.yaml"
  echo "KUBE_LOCAL_VALUES_EFS=$KL_HERE/values-pods-efs.yaml,$CHART_DIR/runtime-efs.yaml"
  echo "KUBE_LOCAL_DRIVER_IMAGE=$DRIVER_IMAGE_REF"
  echo "KUBE_LOCAL_IMAGES=$IMAGES"
  echo "KUBE_LOCAL_CONTAINERD=$R/containerd.sock"
  # The EFS node's efs-utils state on the host (the chart's hostPath), where the stand-ins keep their mounts' state.
  echo "KUBE_LOCAL_EFS_STATE_DIR=/var/run/efs"
}
