#!/usr/bin/env bash
# The figures of the driver images (make image-sizes): for each docker-archive tarball of make image, its size, the
# size of each layer (root fs, jre, dist, aot) as the tarball carries it and as a registry stores it (gzip -9, and
# gzip -6 as umoci and docker push write it), and with --import the time `ctr -n k8s.io images import` takes, into a
# containerd of its own (its own root, state and socket under a scratch directory, in a mount namespace of its own, the
# CRI plugin off: nothing of the local cluster is touched, and it runs beside one), import and unpack included.
# Usage: image-sizes.sh [--import] [TARBALL...]   (default: .tools/images/aws-csi-driver-{ebs,efs}.tar)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
import=false
if [ "${1:-}" = --import ]; then import=true; shift; fi
tarballs=("$@")
[ ${#tarballs[@]} -gt 0 ] || tarballs=("$images/aws-csi-driver-ebs.tar" "$images/aws-csi-driver-efs.tar")
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
scratch="$(mktemp -d /tmp/aws-csi-image-sizes.XXXXXX)"
ctr_pid=""
cleanup() {
  [ -z "$ctr_pid" ] || { kill "$ctr_pid" 2>/dev/null; wait "$ctr_pid" 2>/dev/null || true; }
  rm -rf "$scratch"
}
trap cleanup EXIT
for tarball in "${tarballs[@]}"; do
  [ -s "$tarball" ] || die "no $tarball (make image)"
  name="$(cat "$tarball.ref" 2>/dev/null || basename "$tarball" .tar)"
  tar -xf "$tarball" -C "$scratch" manifest.json
  config="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["Config"])' "$scratch/manifest.json")"
  tar -xf "$tarball" -C "$scratch" "$config"
  # The layers in order, each with the history line that made it (the build script's comment: base, jre, dist, aot).
  python3 - "$scratch/manifest.json" "$scratch/$config" >"$scratch/layers" <<'PY'
import json, sys
layers = json.load(open(sys.argv[1]))[0]["Layers"]
history = [h for h in json.load(open(sys.argv[2])).get("history", []) if not h.get("empty_layer")]
for i, layer in enumerate(layers):
    print(layer + "\t" + (history[i].get("created_by", "?") if i < len(history) else "?"))
PY
  echo "$name ($tarball): tarball $(mib "$(stat -c %s "$tarball")") MiB"
  printf '  %-10s %-10s %-10s %s\n' "layer MiB" "gzip -6" "gzip -9" "made by"
  total=0 total6=0 total9=0
  while IFS=$'\t' read -r layer by; do
    size=$(tar -xOf "$tarball" "$layer" | wc -c)
    gz6=$(tar -xOf "$tarball" "$layer" | gzip -6 | wc -c)
    gz9=$(tar -xOf "$tarball" "$layer" | gzip -9 | wc -c)
    total=$((total + size)) total6=$((total6 + gz6)) total9=$((total9 + gz9))
    printf '  %-10s %-10s %-10s %s\n' "$(mib "$size")" "$(mib "$gz6")" "$(mib "$gz9")" "${by:0:90}"
  done <"$scratch/layers"
  printf '  %-10s %-10s %-10s %s\n' "$(mib "$total")" "$(mib "$total6")" "$(mib "$total9")" "all layers"
  rm -f "$scratch/manifest.json" "$scratch/$config"
done
$import || exit 0

need containerd ctr unshare
cat >"$scratch/containerd.toml" <<EOF
version = 2
root = "$scratch/root"
state = "$scratch/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$scratch/containerd.sock"
[ttrpc]
  address = "$scratch/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
EOF
unshare --mount --propagation private containerd --config "$scratch/containerd.toml" >"$scratch/containerd.log" 2>&1 &
ctr_pid=$!
for _ in $(seq 1 100); do ctr --address "$scratch/containerd.sock" version >/dev/null 2>&1 && break; sleep 0.1; done
ctr --address "$scratch/containerd.sock" version >/dev/null || { cat "$scratch/containerd.log"; die "containerd did not start"; }
for tarball in "${tarballs[@]}"; do
  t0=$(date +%s.%N)
  ctr --address "$scratch/containerd.sock" -n k8s.io images import "$tarball" >/dev/null
  t1=$(date +%s.%N)
  echo "import $(basename "$tarball"): $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (ctr -n k8s.io images import, unpacked into overlayfs)"
done
