# Sourced by cluster.sh: the driver as host processes (KUBE_LOCAL_DRIVER=host). The chart is rendered with
# `helm template` for this cluster (Kubernetes 1.37.2 with the snapshot API, EBS and EFS on the emulated file system);
# its RBAC, service accounts, CSIDriver objects and classes are applied as they are, and each replica of its
# Deployments and DaemonSets runs as one hostpod (hostpods.py says what a host process gets that a pod would get
# from the kubelet). Another file driver-<name>.sh with the same three functions runs the driver another way (the
# chart's pods, issue 14); the suite is the same.
HOST_DIR="$KL_STATE/driver-host"

# Group snapshots on (issue 31): csi-snapshotter with the gate, and a 1 minute resync (default 15) because
# csi-snapshotter v8.7.0 fills a group's per-member readiness from the first CreateVolumeGroupSnapshot answer only
# and snapshot-controller stamps the members from it: a member ready after that is seen at the next resync.
render_chart() {
  local fs_id=$1
  "$HELM" template aws-csi-driver "$KL_ROOT/helm/aws-csi-driver" --namespace kube-system --kube-version 1.37.2 \
    --api-versions snapshot.storage.k8s.io/v1 --set efs.enabled=true --set "efsStorageClass.fileSystemId=$fs_id" \
    --set defaultStorageClass.enabled=true --set defaultVolumeSnapshotClass.enabled=true \
    --set defaultStorageClass.name=gp3 --set defaultStorageClass.parameters.type=gp3 \
    --set-string defaultStorageClass.parameters.encrypted=true --set node.kubeletRegistration=builtin \
    --set 'sidecars.snapshotter.additionalArgs[0]=--feature-gates=CSIVolumeGroupSnapshot=true' \
    --set 'sidecars.snapshotter.additionalArgs[1]=--resync-period=1m' ${KUBE_LOCAL_CHART_ARGS:-} > "$HOST_DIR/rendered.yaml"
}

driver_up() {
  mkdir -p "$HOST_DIR" "$KL_STATE/ebs-loop" "$KL_STATE/efs-local"
  local fs_id
  fs_id=$(sed -n 's/^AWS_LOCAL_FILE_SYSTEM_ID=//p' "$R/aws.env")
  render_chart "$fs_id" || return 1
  local accounts args=() account
  accounts=$(python3 "$KL_HERE/hostpods.py" --rendered "$HOST_DIR/rendered.yaml" --out "$HOST_DIR" --list-accounts) || return 1
  kubectl apply -f "$HOST_DIR/objects.yaml" >/dev/null || return 1
  for account in $accounts; do
    args+=(--kubeconfig "$account=$(token_kubeconfig "${account%/*}" "${account#*/}")") || return 1
  done
  python3 "$KL_HERE/hostpods.py" --rendered "$HOST_DIR/rendered.yaml" --out "$HOST_DIR" --state "$KL_STATE" \
    --bin "$B" --driver "$KL_STATE/driver/bin/aws-csi-driver" --kubelet-dir "$KUBELET_DIR" \
    --loop-dir "$KL_STATE/ebs-loop" --efs-root "$KL_STATE/efs-local" --node-name "$NODE_NAME" \
    --api-port "$API_PORT" --aws-env "$R/aws.env" \
    "${args[@]}" > "$HOST_DIR/pods.txt" || return 1
  local name port rest
  while read -r name port rest; do
    driver_pod_start "$name"
    say "  $name: $rest"
  done < "$HOST_DIR/pods.txt"
  while read -r name port rest; do
    [ "$port" = None ] && continue
    waitfor 180 "$name ready (/readyz on 127.0.0.1:$port)" curl -sf "http://127.0.0.1:$port/readyz" \
      || { tail_log "hostpod-$name"; return 1; }
  done < "$HOST_DIR/pods.txt"
  waitfor 120 "both node plugins registered with the kubelet (CSINode)" csinode_has ebs.csi.aws.com efs.csi.aws.com \
    || { tail_log kubelet 30; return 1; }
  local lease
  for lease in ebs-csi-aws-com external-attacher-leader-ebs-csi-aws-com external-resizer-ebs-csi-aws-com \
               external-snapshotter-leader-ebs-csi-aws-com efs-csi-aws-com; do
    waitfor 120 "lease $lease held" lease_held kube-system "$lease" || return 1
  done
}

csinode_has() {
  local drivers
  drivers=$(kubectl get csinode "$NODE_NAME" -o jsonpath='{.spec.drivers[*].name}' 2>/dev/null) || return 1
  for d in "$@"; do [[ " $drivers " == *" $d "* ]] || return 1; done
}

driver_pod_start() {
  alive "hostpod-$1" && die "hostpod $1 is running"
  [ -f "$HOST_DIR/pods/$1.json" ] || die "no hostpod $1"
  bg "hostpod-$1" unshare --uts "$B/hostpod" --spec "$HOST_DIR/pods/$1.json"
}

driver_down() {
  local f
  for f in "$R"/hostpod-*.pid; do [ -e "$f" ] && stop "$(basename "$f" .pid)" 45; done
  return 0
}

driver_env() {
  echo "KUBE_LOCAL_HOSTPODS=$(awk '{ print $1 }' "$HOST_DIR/pods.txt" | paste -sd, -)"
  echo "KUBE_LOCAL_HOSTPOD_RUN=$KL_STATE/run/pods"
  echo "KUBE_LOCAL_HOSTPOD_PIDS=$R"
  echo "KUBE_LOCAL_HOSTPOD_LOGS=$L/pods-host"
}
