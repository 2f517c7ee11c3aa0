#!/usr/bin/env bash
# Lays out the runnable distribution from the built modules (after `mvn package` or `install`):
#   dist/aws-csi-driver/bin/aws-csi-driver   the launcher script
#   dist/aws-csi-driver/lib/aws-csi-driver.jar  the driver and its dependencies in one jar (launcher's shaded jar):
#                                            the JVM pays for every jar of the class path at start
#   dist/aws-csi-driver/lib/native/          Netty's epoll library of each machine architecture, loaded from there
#                                            (see below)
#   dist/aws-csi-driver/lib/controller/      the EC2 SDK, used by the EBS controller alone: the launcher leaves it off
#                                            a node plugin's class path, so the node never reads its 12,600 entries
#   dist/aws-csi-driver/lib/diagnose/        the diagnose command, on the class path of `aws-csi-driver diagnose` alone
#   dist/aws-csi-driver/lib/local/           `aws-csi-driver local` and `aws-csi-driver emulated` alone (the local
#                                            module, the emulation module's loop-device and local-directory backends,
#                                            the realism layer, the moto and IMDS-emulator helpers): no serving process
#                                            has them on its class path, and the production image leaves them out
# Usage: assemble-dist.sh [--arch "ARCH ..."] [DIST_DIR]
#   ARCH: x86_64 or aarch64 (Docker's amd64 and arm64 name the same); default both, so that the one distribution runs
#   on either machine. An image passes its own (the Dockerfile: --arch "$TARGETARCH") and carries only that library.
# Nothing else in the distribution depends on the machine: the jars are bytecode, the scripts bash, and the only
# native code in the jars is this library (test-dist.sh checks it); protoc runs at build time only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
arches="x86_64 aarch64"
if [ "${1:-}" = --arch ]; then arches="$2"; shift 2; fi
dist="${1:-$root/dist/aws-csi-driver}"
# netty_arch ARCH: Netty's name for the machine (PlatformDependent.normalizedArch of the JVM's os.arch), which is part
# of the library's file name; elf_machine ARCH: the ELF header's e_machine for it.
netty_arch() {
  case "$1" in
    x86_64|amd64) echo x86_64 ;;
    aarch64|arm64) echo aarch_64 ;;
    *) echo "unknown machine architecture $1 (x86_64/amd64 or aarch64/arm64)" >&2; return 1 ;;
  esac
}
elf_machine() { case "$1" in x86_64) echo 62 ;; aarch_64) echo 183 ;; esac; }
libraries=()
for arch in $arches; do libraries+=("libnetty_transport_native_epoll_$(netty_arch "$arch").so"); done
[ ${#libraries[@]} -gt 0 ] || { echo "no architecture given (--arch)" >&2; exit 1; }
rm -rf "$dist"
mkdir -p "$dist/bin" "$dist/lib/controller" "$dist/lib/local" "$dist/lib/diagnose"
cp "$root/launcher/src/dist/bin/aws-csi-driver" "$dist/bin/"
cp "$root"/launcher/target/launcher-*-all.jar "$dist/lib/aws-csi-driver.jar"
cp "$root"/launcher/target/lib/ec2-*.jar "$dist/lib/controller/"
cp "$root"/local/target/local-*.jar "$root"/emulation/target/emulation-*.jar "$root"/aws-realism/target/aws-realism-*.jar \
  "$dist/lib/local/"
cp "$root"/launcher/target/lib/diagnose-*.jar "$dist/lib/diagnose/"
# Netty's epoll library as a file: Netty loads it from java.library.path (the launcher points it at lib/native) before
# it would copy it out of the jar into a temporary file, which costs the node ~25 ms of start (a SecureRandom for the
# file name, the copy) and needs a writable, exec-mounted /tmp. The libraries of several machines sit side by side:
# Netty asks for libnetty_transport_native_epoll_<arch>.so with the arch of the JVM's os.arch, so each JVM picks the
# one built for it, and the launcher needs no choice of its own.
mkdir -p "$dist/lib/native"
for library in "${libraries[@]}"; do
  (cd "$dist/lib/native" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" xf "$dist/lib/aws-csi-driver.jar" \
    "META-INF/native/$library" && mv "META-INF/native/$library" . && rm -rf META-INF)
  [ -s "$dist/lib/native/$library" ] || { echo "no Netty epoll library $library in the application jar" >&2; exit 1; }
  arch="${library#libnetty_transport_native_epoll_}" arch="${arch%.so}"
  machine="$(od -An -t u2 -j 18 -N 2 "$dist/lib/native/$library" | tr -d ' ')"
  [ "$machine" = "$(elf_machine "$arch")" ] \
    || { echo "$library is for ELF machine $machine, not $arch ($(elf_machine "$arch"))" >&2; exit 1; }
done
echo "built $dist"
