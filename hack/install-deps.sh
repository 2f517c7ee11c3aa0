#!/usr/bin/env bash
# Installs what the build and the tests need and a fresh machine may lack; anything already present is skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export GOBIN="$root/.tools/bin"
export GOFLAGS=-mod=mod
mkdir -p "$GOBIN"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
say() { echo "deps: $*"; }
apt_updated=false
apt_install() {
  if ! $apt_updated; then apt-get update -qq >/dev/null 2>&1 || true; apt_updated=true; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
  echo "deps: JDK 25 not found at JAVA_HOME=$JAVA_HOME; install Temurin 25 and set JAVA_HOME" >&2
  exit 1
fi
command -v mvn >/dev/null || { say "installing maven"; apt_install maven; }
command -v go >/dev/null || { echo "deps: Go >= 1.25 is required (csi-sanity, the CSI spec download)" >&2; exit 1; }
# tini: the image's PID 1, which hack/test-dist.sh runs as the image does
for tool in mkfs.ext4:e2fsprogs mkfs.xfs:xfsprogs losetup:mount blkid:util-linux tini:tini; do
  command -v "${tool%%:*}" >/dev/null || { say "installing ${tool##*:}"; apt_install "${tool##*:}"; }
done
if ! python3 -c 'import moto.server' 2>/dev/null || ! command -v moto_server >/dev/null; then
  say "installing moto[server]"
  python3 -m pip install -q 'moto[server]==5.2.1'
fi
[ -x "$GOBIN/csi-sanity" ] || { say "installing csi-sanity v5.5.0"; go install github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity@v5.5.0; }
[ -x "$GOBIN/ec2-metadata-mock" ] || { say "installing ec2-metadata-mock v1.13.0";
  go install github.com/aws/amazon-ec2-metadata-mock/cmd/ec2-metadata-mock@v1.13.0; }
# The local images (hack/image/, no container engine; `install-deps.sh --images`, as `make image` and `make test`
# call it): Debian's mmdebstrap, umoci and skopeo; for another machine's image (make image ARCH=arm64) QEMU's
# user-mode emulators and arch-test, which mmdebstrap asks before it uses them. `make run` needs none of them.
if [ "${1:-}" = --test ] || [ "${1:-}" = --images ]; then
  for tool in mmdebstrap:mmdebstrap umoci:umoci skopeo:skopeo qemu-aarch64-static:qemu-user-static arch-test:arch-test; do
    command -v "${tool%%:*}" >/dev/null || { say "installing ${tool##*:}"; apt_install --no-install-recommends "${tool##*:}"; }
  done
fi
# The loop-device backend needs loop devices; make sure the module is there (a no-op where it is built in).
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
# Test-only parts (`install-deps.sh --test`, as `make test` calls it): LocalStack as a plain process for the
# LocalStack lane (Python 3.13 venv in .tools/localstack, pinned). `make run` does not need them.
if [ "${1:-}" = --test ]; then
  bash "$root/hack/install-localstack.sh"
fi
