#!/usr/bin/env bash
# Builds dist/aws-csi-driver/app.aot, the JDK 25 AOT cache the launcher script uses when present: one training run
# that starts the driver (gRPC, Netty epoll, log4j, the AWS SDK clients), answers a CSI call and stops on SIGTERM.
set -euo pipefail
dist="${1:-dist/aws-csi-driver}"
sock="/tmp/aws-csi-aot-$$.sock"
rm -f "$dist/app.aot"
AWS_REGION=us-east-1 DISABLE_TAINT_WATCHER=true JAVA_OPTS="-XX:AOTCacheOutput=$dist/app.aot -Xlog:aot=error" \
  "$dist/bin/aws-csi-driver" --driver efs --mode controller --endpoint "unix://$sock" --log-level warn &
pid=$!
for _ in $(seq 1 300); do [ -S "$sock" ] && break; sleep 0.1; done
"$dist/bin/aws-csi-driver" client --endpoint "unix://$sock" GetPluginInfo >/dev/null
"$dist/bin/aws-csi-driver" client --endpoint "unix://$sock" Probe >/dev/null
kill -TERM "$pid"
wait "$pid" || true
[ -s "$dist/app.aot" ] && echo "built $dist/app.aot ($(du -h "$dist/app.aot" | cut -f1))"
