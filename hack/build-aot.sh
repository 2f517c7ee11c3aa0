#!/usr/bin/env bash
# Builds the JDK 25 AOT caches the launcher script uses when present: dist/aws-csi-driver/aot/<driver>-<mode>.aot,
# one per driver and mode, each from a training run of exactly that process (an AOT cache loads every class it holds
# at start, so a cache trained on another mode would load classes this one never uses). Each run starts the driver
# against a loopback IMDS stand-in, answers the calls its sidecars make first and stops on SIGTERM.
# Usage: build-aot.sh [DIST_DIR] [driver-mode ...]   (default: ebs-node efs-node ebs-controller efs-controller)
set -euo pipefail
dist="$(cd "${1:-dist/aws-csi-driver}" && pwd)"
shift || true
combos=("$@")
[ ${#combos[@]} -gt 0 ] || combos=(ebs-node efs-node ebs-controller efs-controller)
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d /tmp/aws-csi-aot.XXXXXX)"
python="$(command -v python3)"
"$python" "$here/imds-standin.py" "$work/port" & imds=$!
trap 'kill $imds 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
export AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$(cat "$work/port")" AWS_REGION=us-east-1 \
  DISABLE_TAINT_WATCHER=true
rm -rf "$dist/aot" "$dist/app.aot"
mkdir -p "$dist/aot"
for combo in "${combos[@]}"; do
  driver="${combo%-*}" mode="${combo#*-}"
  sock="$work/$combo.sock"
  extra=()
  if [ "$combo" = efs-node ]; then
    # The EFS node sets up efs-utils and keeps its watchdog running: in training it does so in scratch directories
    # with a stand-in watchdog, so the image keeps no /etc/amazon/efs of its own (the node links it at start).
    efs="$work/efs-utils"
    mkdir -p "$efs/config" "$efs/static"
    printf '#!/bin/sh\nexec sleep 600\n' >"$efs/watchdog" && chmod +x "$efs/watchdog"
    extra=(--efs-utils-config-dir-path "$efs/config" --efs-utils-config-legacy-dir-path "$efs/legacy"
      --efs-utils-static-files-path "$efs/static" --efs-utils-etc-dir-path "$efs/etc"
      --efs-state-dir-path "$efs/state" --efs-mount-watchdog-path "$efs/watchdog")
  fi
  # The same flags as every later run (the launcher's defaults and JAVA_OPTS), plus the training output.
  AWS_CSI_AOT_CACHE=none JAVA_OPTS="${JAVA_OPTS:-} -XX:AOTCacheOutput=$dist/aot/$combo.aot -Xlog:aot=error" \
    "$dist/bin/aws-csi-driver" --driver "$driver" --mode "$mode" --endpoint "unix://$sock" --log-level warn \
    "${extra[@]}" &
  pid=$!
  for _ in $(seq 1 300); do [ -S "$sock" ] && break; sleep 0.1; done
  calls=(GetPluginInfo GetPluginCapabilities Probe)
  if [ "$mode" = node ]; then calls+=(NodeGetCapabilities NodeGetInfo); else calls+=(ControllerGetCapabilities); fi
  for call in "${calls[@]}"; do
    AWS_CSI_AOT_CACHE=none "$dist/bin/aws-csi-driver" client --endpoint "unix://$sock" "$call" >/dev/null
  done
  kill -TERM "$pid"
  wait "$pid" || true
  [ -s "$dist/aot/$combo.aot" ] || { echo "no AOT cache for $combo" >&2; exit 1; }
  echo "built $dist/aot/$combo.aot ($(du -h "$dist/aot/$combo.aot" | cut -f1))"
done
