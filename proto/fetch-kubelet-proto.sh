#!/usr/bin/env bash
# Takes the kubelet's plugin registration API (pkg/apis/pluginregistration/v1/api.proto of the k8s.io/kubelet module
# of the given release) from the Go module registry (never from the repository) and writes
#   $2/original/api.proto                                   the file as published
#   $2/patched/k8s.io/kubelet/pluginregistration/v1/api.proto  the copy protoc compiles
# The patch only adds Java options: one file per message, in Java package pluginregistration, the proto package (as
# csi.v1's classes are in csi.v1: the JSON printer finds a message's type by its class name). The proto package, and
# so the gRPC service name the kubelet calls (pluginregistration.Registration), stays as published.
set -euo pipefail
version="$1"; out="$2"
module="k8s.io/kubelet@${version}"
file="pkg/apis/pluginregistration/v1/api.proto"
patched="$out/patched/k8s.io/kubelet/pluginregistration/v1/api.proto"
# The stamp names this script's content too, so a changed patch applies without a clean.
stamp="$version $(sha256sum "$0" | cut -c1-16)"
if [ -s "$patched" ] && [ -f "$out/.version" ] && [ "$(cat "$out/.version")" = "$stamp" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "fetch-kubelet-proto: Go is needed to download ${module} (make deps installs it)" >&2; exit 1; }
dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] && [ -f "$dir/$file" ] || { echo "fetch-kubelet-proto: could not download ${module} ($file)" >&2; exit 1; }
rm -rf "$out/original" "$out/patched"
mkdir -p "$out/original" "$(dirname "$patched")"
cp "$dir/$file" "$out/original/api.proto"
chmod u+w "$out/original/api.proto"
sed -E 's/^(package pluginregistration;.*)$/\1\noption java_multiple_files = true;\noption java_package = "pluginregistration";/' \
  "$out/original/api.proto" > "$patched"
grep -q '^option java_package = "pluginregistration";' "$patched" \
  || { echo "fetch-kubelet-proto: ${module} $file no longer declares package pluginregistration" >&2; exit 1; }
echo "$stamp" > "$out/.version"
