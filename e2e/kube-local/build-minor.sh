#!/usr/bin/env bash
# Builds kube (the multi-call binary of cmd/kube) of another Kubernetes minor than build.sh's: KUBE_LOCAL_KUBE_VERSION
# (or $1), today 1.32, the oldest minor EKS supports (extended support; issue 28 item 3). The module is
# kube-<minor>/ (its go.mod pins k8s.io/kubernetes and its staging modules; cmd/kube/main.go is a link to the one
# source). Output: .tools/kube-local-<minor>/bin, with the CSI sidecars, pause and hostpod of build.sh's build linked
# beside kube (the same binaries on every minor). A script of its own, not a branch of build.sh: build.sh's stamp
# covers its own text, and a change there would rebuild the default binaries. Skipped when current.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
minor="${1:-${KUBE_LOCAL_KUBE_VERSION:-1.32}}"
case "$minor" in
  1.32) kube_version=v1.32.13 ;;
  *) echo "build-minor.sh: $minor: only 1.32 is pinned (kube-1.32/go.mod) besides build.sh's 1.37" >&2; exit 2 ;;
esac
tools="$(realpath -m "${KUBE_LOCAL_TOOLS:-$root/.tools/kube-local}")"
bash "$here/build.sh"
out="$root/.tools/kube-local-$minor/bin"
export GOCACHE="$tools/go-build" GOFLAGS=-mod=mod CGO_ENABLED=0
cd "$here/kube-$minor"
stamp=$( { go version; cat go.mod go.sum "$here/build-minor.sh" cmd/kube/*.go; } | sha256sum | cut -c1-16)
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then
  echo "kube-local $kube_version is current ($out)"
  exit 0
fi
mkdir -p "$out"
rm -f "$out/.stamp"
ld="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld="$ld -X $p.gitVersion=$kube_version -X $p.gitMajor=1 -X $p.gitMinor=${minor#1.} -X $p.gitTreeState=clean"
  ld="$ld -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=1970-01-01T00:00:00Z"
done
start=$(date +%s)
echo "building kube $kube_version into $out (cold: about 11 min of 2 cores)"
nice -n 10 go build -ldflags "$ld" -o "$out/" ./cmd/kube
for n in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do ln -sf kube "$out/$n"; done
for n in csi-provisioner csi-attacher csi-resizer csi-snapshotter snapshot-controller pause hostpod; do
  ln -sf "$tools/bin/$n" "$out/$n"
done
echo "$stamp" > "$out/.stamp"
echo "built in $(( $(date +%s) - start )) s"
