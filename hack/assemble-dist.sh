#!/usr/bin/env bash
# Lays out the runnable distribution from the built modules (after `mvn package` or `install`):
#   dist/aws-csi-driver/bin/aws-csi-driver   the launcher script
#   dist/aws-csi-driver/lib/aws-csi-driver.jar  the driver and its dependencies in one jar (launcher's shaded jar):
#                                            the JVM pays for every jar of the class path at start
#   dist/aws-csi-driver/lib/native/          Netty's epoll library, loaded from there (see below)
#   dist/aws-csi-driver/lib/controller/      the EC2 SDK, used by the EBS controller alone: the launcher leaves it off
#                                            a node plugin's class path, so the node never reads its 12,600 entries
#   dist/aws-csi-driver/lib/diagnose/        the diagnose command, on the class path of `aws-csi-driver diagnose` alone
#   dist/aws-csi-driver/lib/local/           `aws-csi-driver local` alone (the local module, the realism layer, the
#                                            moto and IMDS-emulator helpers): no serving process has them on its class
#                                            path, and the images leave them out
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${1:-$root/dist/aws-csi-driver}"
rm -rf "$dist"
mkdir -p "$dist/bin" "$dist/lib/controller" "$dist/lib/local" "$dist/lib/diagnose"
cp "$root/launcher/src/dist/bin/aws-csi-driver" "$dist/bin/"
cp "$root"/launcher/target/launcher-*-all.jar "$dist/lib/aws-csi-driver.jar"
cp "$root"/launcher/target/lib/ec2-*.jar "$dist/lib/controller/"
cp "$root"/local/target/local-*.jar "$root"/aws-realism/target/aws-realism-*.jar "$dist/lib/local/"
cp "$root"/launcher/target/lib/diagnose-*.jar "$dist/lib/diagnose/"
# Netty's epoll library as a file: Netty loads it from java.library.path (the launcher points it at lib/native) before
# it would copy it out of the jar into a temporary file, which costs the node ~25 ms of start (a SecureRandom for the
# file name, the copy) and needs a writable, exec-mounted /tmp.
mkdir -p "$dist/lib/native"
(cd "$dist/lib/native" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" xf "$dist/lib/aws-csi-driver.jar" \
  META-INF/native/libnetty_transport_native_epoll_x86_64.so \
  && mv META-INF/native/libnetty_transport_native_epoll_x86_64.so . && rm -rf META-INF)
[ -s "$dist/lib/native/libnetty_transport_native_epoll_x86_64.so" ] || { echo "no Netty epoll library" >&2; exit 1; }
echo "built $dist"
