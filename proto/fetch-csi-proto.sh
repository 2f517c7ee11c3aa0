#!/usr/bin/env bash
# Takes csi.proto of the given CSI spec release from the Go module registry (never from the repository) and writes
#   $2/original/csi.proto  the file as published
#   $2/patched/csi.proto   the copy protoc compiles
# The patch only renames `mutable_parameters` to `mutable_params` (same field numbers, json_name kept): protoc's Java
# generator emits a deprecated getMutableParameters() for `parameters` that clashes with the getter of
# `mutable_parameters`, so the unmodified file does not compile. Field names do not travel on the wire.
# It also asks for one Java file per message, which keeps imports readable.
set -euo pipefail
version="$1"; out="$2"
module="github.com/container-storage-interface/spec@${version}"
if [ -s "$out/original/csi.proto" ] && [ -f "$out/.version" ] && [ "$(cat "$out/.version")" = "$version" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "fetch-csi-proto: Go is needed to download ${module} (make deps installs it)" >&2; exit 1; }
dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] && [ -f "$dir/csi.proto" ] || { echo "fetch-csi-proto: could not download ${module}" >&2; exit 1; }
mkdir -p "$out/original" "$out/patched"
cp "$dir/csi.proto" "$out/original/csi.proto"
chmod u+w "$out/original/csi.proto"
sed -E \
  -e 's/^(\s*map<string, string>) mutable_parameters = ([0-9]+);/\1 mutable_params = \2 [json_name = "mutableParameters"];/' \
  -e 's/^(package csi\.v1;)$/\1\noption java_multiple_files = true;\noption java_package = "csi.v1";/' \
  "$out/original/csi.proto" > "$out/patched/csi.proto"
if grep -qE '^\s*map<string, string> mutable_parameters =' "$out/patched/csi.proto"; then
  echo "fetch-csi-proto: mutable_parameters rename did not apply to every field" >&2; exit 1
fi
echo "$version" > "$out/.version"
