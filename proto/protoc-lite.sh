#!/usr/bin/env bash
# protoc as the protobuf-maven-plugin runs it, but generating for the protobuf *lite* runtime: the plugin has no switch
# for `--java_out=lite:`, so this rewrites that one argument (also inside an @argument file) and runs the protoc that
# maven-dependency-plugin copied to target/protoc. Lite messages carry no descriptors: the driver process builds none
# at run time and its AOT cache holds ~150 fewer classes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
protoc="$here/target/protoc/protoc"
[ -x "$protoc" ] || chmod +x "$protoc"
args=()
for arg in "$@"; do
  if [[ "$arg" == @* ]] && [ -f "${arg#@}" ]; then
    sed -i -E 's#^--java_out=([^l])#--java_out=lite:\1#' "${arg#@}"
  fi
  if [[ "$arg" == --java_out=* ]] && [[ "$arg" != --java_out=lite:* ]]; then
    arg="--java_out=lite:${arg#--java_out=}"
  fi
  args+=("$arg")
done
exec "$protoc" "${args[@]}"
