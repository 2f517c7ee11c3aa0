#!/usr/bin/env bash
# Builds the JDK 25 AOT caches the launcher script uses when present: dist/aws-csi-driver/aot/<driver>-<mode>.aot,
# one per driver and mode, each from a training run of exactly that process (an AOT cache loads every class it holds
# at start, so a cache trained on another mode would load classes this one never uses). Each run starts the driver
# against a loopback IMDS stand-in, answers the calls its sidecars make first and stops on SIGTERM.
# A node that serves the kubelet registration itself (--kubelet-registration-path: one container, no
# node-driver-registrar) gets a cache of its own, <driver>-node-registration.aot, trained with the kubelet's calls on
# the registration socket and its /healthz and /readyz probes: in one cache with the sidecar node's, those classes cost a node with
# the sidecars 2.2 MiB of idle RSS (measured, make bench-startup).
# Usage: build-aot.sh [DIST_DIR] [driver-mode[-registration] ...]
#   (default: ebs-node efs-node ebs-node-registration efs-node-registration). A controller gets no cache by default:
#   the cache holds every class its training loaded, and a controller's includes the 1,524 EC2 request classes that
#   verifying the EC2 client loads (the cache's assembly verifies whatever the launcher's flags say), so with it the
#   controller's idle RSS is ~16 MiB higher for ~0.3 s less start-up (docs/benchmarks.md); ebs-controller and
#   efs-controller still build one when named.
# With AWS_EC2_METADATA_SERVICE_ENDPOINT set, the training uses that IMDS stand-in and needs no python3 (the EBS
# image has none: the local image build serves hack/imds-standin.py from outside the image's file system); the
# registration socket's free port and the kubelet's probes are bash's own (/dev/tcp).
set -euo pipefail
dist="$(cd "${1:-dist/aws-csi-driver}" && pwd)"
shift || true
combos=("$@")
[ ${#combos[@]} -gt 0 ] || combos=(ebs-node efs-node ebs-node-registration efs-node-registration)
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d /tmp/aws-csi-aot.XXXXXX)"
imds="" pid=""
trap 'kill $imds $pid 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "${AWS_EC2_METADATA_SERVICE_ENDPOINT:-}" ]; then
  python3 "$here/imds-standin.py" "$work/port" & imds=$!
  for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$(cat "$work/port")"
fi
export AWS_EC2_METADATA_SERVICE_ENDPOINT AWS_REGION=us-east-1 DISABLE_TAINT_WATCHER=true
# free_port: a loopback port nothing listens on (a refused connection says so).
# Below Linux's ephemeral range (32768-60999 by default): a port there can be the local end of some other process's
# outgoing connection, which no connect test sees and which makes the bind fail ("Address already in use").
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}
# http_get URL-PATH PORT: one GET on the loopback, its answer read whole (an error status is an answer too).
http_get() {
  exec 3<>"/dev/tcp/127.0.0.1/$2"
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
  timeout 10 cat <&3 >/dev/null || true
  exec 3<&-
}
rm -rf "$dist/aot" "$dist/app.aot"
mkdir -p "$dist/aot"
for combo in "${combos[@]}"; do
  driver="${combo%%-*}" mode="${combo#*-}" sock="$work/$combo.sock" registration=()
  if [ "${mode%-registration}" != "$mode" ]; then
    mode="${mode%-registration}"
    port="$(free_port)"
    registration=(--kubelet-registration-path "$sock" --plugin-registration-path "$work/$combo-registry"
      --http-endpoint "127.0.0.1:$port")
  fi
  extra=()
  if [ "$driver-$mode" = efs-node ]; then
    # The EFS node sets up efs-utils and keeps its watchdog running: in training it does so in scratch directories
    # with a stand-in watchdog, so the image keeps no /etc/amazon/efs of its own (the node links it at start).
    efs="$work/$combo-efs-utils"
    mkdir -p "$efs/config" "$efs/static"
    printf '#!/bin/sh\nexec sleep 600\n' >"$efs/watchdog" && chmod +x "$efs/watchdog"
    extra=(--efs-utils-config-dir-path "$efs/config" --efs-utils-config-legacy-dir-path "$efs/legacy"
      --efs-utils-static-files-path "$efs/static" --efs-utils-etc-dir-path "$efs/etc"
      --efs-state-dir-path "$efs/state" --efs-mount-watchdog-path "$efs/watchdog")
  fi
  # The same flags as every later run (the launcher's defaults and JAVA_OPTS), plus the training output.
  AWS_CSI_AOT_CACHE=none JAVA_OPTS="${JAVA_OPTS:-} -XX:AOTCacheOutput=$dist/aot/$combo.aot -Xlog:aot=error" \
    "$dist/bin/aws-csi-driver" --driver "$driver" --mode "$mode" --endpoint "unix://$sock" --log-level warn \
    "${registration[@]}" "${extra[@]}" &
  pid=$!
  for _ in $(seq 1 300); do [ -S "$sock" ] && break; sleep 0.1; done
  calls=(GetPluginInfo GetPluginCapabilities Probe)
  if [ "$mode" = node ]; then calls+=(NodeGetCapabilities NodeGetInfo); else calls+=(ControllerGetCapabilities); fi
  for call in "${calls[@]}"; do
    AWS_CSI_AOT_CACHE=none "$dist/bin/aws-csi-driver" client --endpoint "unix://$sock" "$call" >/dev/null
  done
  if [ ${#registration[@]} -gt 0 ]; then
    # The kubelet's side: its plugin watcher on the registration socket, its probes on /healthz and /readyz.
    reg="$work/$combo-registry/$driver.csi.aws.com-reg.sock"
    for _ in $(seq 1 300); do [ -S "$reg" ] && break; sleep 0.1; done
    AWS_CSI_AOT_CACHE=none "$dist/bin/aws-csi-driver" client --endpoint "unix://$reg" GetInfo >/dev/null
    AWS_CSI_AOT_CACHE=none "$dist/bin/aws-csi-driver" client --endpoint "unix://$reg" NotifyRegistrationStatus \
      '{"pluginRegistered":true}' >/dev/null
    # Either answer trains the same path (an EFS node without efs-utils, outside the image, is not live).
    http_get /healthz "$port"
    http_get /readyz "$port"
  fi
  kill -TERM "$pid"
  wait "$pid" || true
  pid=""
  [ -s "$dist/aot/$combo.aot" ] || { echo "no AOT cache for $combo" >&2; exit 1; }
  echo "built $dist/aot/$combo.aot ($(du -h "$dist/aot/$combo.aot" | cut -f1))"
done
