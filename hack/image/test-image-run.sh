#!/usr/bin/env bash
# Runs each local driver image of a machine (make image, make image ARCH=arm64: aws-csi-driver-ebs and
# aws-csi-driver-efs) as its tarball holds it: the layers
# unpacked into a scratch root, the image's own programs run in a chroot (under QEMU's user-mode emulation for another
# machine's image: lib.sh's in_emulation), and checks that the image is made for that machine and that its driver
# runs there: every ELF file is of the machine, its Java is Java 25 for it, lib/native holds the machine's Netty
# library alone, the launcher's fallback runtime is the machine's Temurin package, and the node plugin starts with its AOT cache (AOTMode=on refuses a cache that does not match),
# answers NodeGetInfo from an IMDS stand-in, has mapped that library from lib/native, and stops on SIGTERM.
# Usage: test-image-run.sh [amd64|arm64]   (VERBOSE=1 prints what each check saw). Ends with one line "N passed, N
# failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
host_arch="$(dpkg --print-architecture)"
arch="$(debian_arch "${1:-$host_arch}")"
shift || true
drivers=("$@")
[ ${#drivers[@]} -gt 0 ] || drivers=(ebs efs)
if [ "$arch" = amd64 ]; then sfx=""; machine=62 library=x86_64; else sfx="-$arch"; machine=183 library=aarch_64; fi
client="$root/dist/aws-csi-driver/bin/aws-csi-driver"
[ -x "$client" ] || die "no $client: make build"
foreign=false; [ "$arch" = "$host_arch" ] || foreign=true
for_arch() { if $foreign; then in_emulation "$arch" "$@"; else "$@"; fi; }
mkdir -p "$work"
scratch="$(mktemp -d "$work/run-$arch.XXXXXX")"
m="$scratch/root"
passed=0 failed=0 imds=""
cleanup() { [ -z "$imds" ] || kill "$imds" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT
check() { # check NAME COMMAND...
  if "${@:2}" >"$scratch/check.out" 2>&1; then
    passed=$((passed + 1)); echo "ok   $1"
    [ -z "${VERBOSE:-}" ] || sed 's/^/     /' "$scratch/check.out"
  else
    failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/     /' "$scratch/check.out" | tail -n 20
  fi
}

# unpack TARBALL: the image's file system in $m, its layers in the order of its manifest (they add files; none deletes
# one).
unpack() {
  rm -rf "$m" "$scratch/archive"
  mkdir -p "$m" "$scratch/archive"
  tar -xf "$1" -C "$scratch/archive" manifest.json
  python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))[0]["Layers"]))' \
    "$scratch/archive/manifest.json" >"$scratch/layers"
  while read -r layer; do
    tar -xOf "$1" "$layer" | tar -x --numeric-owner -C "$m"
  done <"$scratch/layers"
}
home=/opt/aws-csi-driver

every_elf_file_is_for_the_images_machine() {
  python3 - "$m" "$machine" <<'PY'
import os, struct, sys
root, want = sys.argv[1], int(sys.argv[2])
count, wrong = 0, []
for top in ("opt", "usr", "lib", "bin", "sbin"):
    for d, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            path = os.path.join(d, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                head = f.read(20)
            if head[:4] != b"\x7fELF":
                continue
            count += 1
            if struct.unpack("<H", head[18:20])[0] != want:
                wrong.append(path[len(root):])
print(f"{count} ELF files, {len(wrong)} of another machine", *wrong[:10], sep="\n")
sys.exit(0 if count > 100 and not wrong else 1)
PY
}
lib_native_holds_the_machines_library_alone() {
  local found; found="$(ls -A "$m$home/lib/native")"; echo "lib/native: $found"
  [ "$found" = "libnetty_transport_native_epoll_$library.so" ]
}

# in_image COMMAND...: COMMAND in the image (chroot, /proc of a PID namespace of its own, the host's /dev nodes).
in_image() {
  for_arch unshare --mount --pid --fork --kill-child --propagation private \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin m="$m" bash -euo pipefail -c '
    mount -t proc proc "$m/proc"
    mount -t tmpfs -o mode=755,nosuid tmpfs "$m/dev"
    for d in null zero full random urandom tty; do touch "$m/dev/$d"; mount --bind "/dev/$d" "$m/dev/$d"; done
    ln -s /proc/self/fd "$m/dev/fd"
    mount -t tmpfs tmpfs "$m/tmp"
    exec "$@"' in_image "$@"
}
# The image's environment (its config: JAVA_HOME, PATH), as a container of it would have it.
image_env=(JAVA_HOME=$home/jre "PATH=$home/jre/bin:$home/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
its_java_is_java_25_for_the_machine() {
  in_image chroot "$m" /usr/bin/env -i "${image_env[@]}" java -XshowSettings:properties -version 2>&1 \
    | tee "$scratch/java.out" | grep -E 'os.arch|java.version =|java.vm.name'
  local want; want="$(qemu_arch "$arch" | sed 's/^x86_64$/amd64/')"
  grep -q "os.arch = $want\$" "$scratch/java.out" && grep -q 'java.version = 25' "$scratch/java.out"
}
# Without a bundled jre or JAVA_HOME, the launcher takes Temurin's Debian package of the machine it runs on (uname -m
# in the image, which emulation answers as the image's machine): a stand-in java at each package's path says which.
the_launcher_falls_back_to_the_machines_temurin_package() {
  local a
  for a in amd64 arm64; do
    mkdir -p "$m/usr/lib/jvm/temurin-25-jdk-$a/bin"
    printf '#!/bin/sh\necho "temurin-25-jdk-%s $*"\n' "$a" >"$m/usr/lib/jvm/temurin-25-jdk-$a/bin/java"
    chmod 755 "$m/usr/lib/jvm/temurin-25-jdk-$a/bin/java"
  done
  mkdir -p "$m/launcher-only/bin" && cp "$m$home/bin/aws-csi-driver" "$m/launcher-only/bin/"
  in_image chroot "$m" /usr/bin/env -i PATH=/usr/bin:/bin /launcher-only/bin/aws-csi-driver --version \
    | tee "$scratch/fallback.out"
  rm -rf "$m/usr/lib/jvm" "$m/launcher-only"
  grep -q "^temurin-25-jdk-$arch .*io.awscsi.launcher.Main --version" "$scratch/fallback.out"
}
# Each mode of the image's driver against an IMDS stand-in on the host's loopback (the chroot shares the network); the
# client is the host's distribution, reaching the socket in the image's /tmp from outside. The EFS node gets the
# scratch efs-utils directories of hack/build-aot.sh's training (the image's own /etc/amazon/efs stays untouched).
start_imds() {
  [ -z "$imds" ] || return 0
  python3 "$root/hack/imds-standin.py" "$scratch/imds-port" & imds=$!
  for _ in $(seq 1 100); do [ -s "$scratch/imds-port" ] && break; sleep 0.05; done
}
mode_runs_with_its_aot_cache() { # DRIVER MODE[-registration]
  start_imds
  in_image bash -c '
    m="$1" home="$2" library="$3" client="$4" imds="$5" driver="$6" mode="$7"; shift 7
    case "$imds" in http://127.0.0.1:[0-9]*) ;; *) echo "no IMDS stand-in: $imds"; exit 1 ;; esac
    flags=() call=ControllerGetCapabilities want=CREATE_DELETE_VOLUME
    case "$mode" in node*) call=NodeGetInfo want="\"nodeId\": \"i-0aaaaaaaaaaaaaaaa\"" ;; esac
    if [ "$mode" = node-registration ]; then
      mode=node flags=(--kubelet-registration-path /tmp/csi.sock --plugin-registration-path /tmp/registry)
    fi
    if [ "$driver-$mode" = efs-node ]; then
      mkdir -p "$m/tmp/efs/config" "$m/tmp/efs/static"
      printf "#!/bin/sh\nexec sleep 600\n" >"$m/tmp/efs/watchdog" && chmod +x "$m/tmp/efs/watchdog"
      flags+=(--efs-utils-config-dir-path /tmp/efs/config --efs-utils-config-legacy-dir-path /tmp/efs/legacy
        --efs-utils-static-files-path /tmp/efs/static --efs-utils-etc-dir-path /tmp/efs/etc
        --efs-state-dir-path /tmp/efs/state --efs-mount-watchdog-path /tmp/efs/watchdog)
    fi
    # The node modes must map their cache (AOTMode=on fails the start without it); the controller ships none
    # (docs/benchmarks.md: the cache cost it ~17 MiB of RSS), so it must start without one.
    aot=-XX:AOTMode=on; [ "$mode" = controller ] && aot=-XX:AOTMode=off
    [ "$mode" != controller ] || [ ! -e "$m$home/aot/$driver-controller.aot" ] || { echo "a controller AOT cache"; exit 1; }
    chroot "$m" /usr/bin/env -i "$@" AWS_EC2_METADATA_SERVICE_ENDPOINT="$imds" JAVA_OPTS=$aot \
      DISABLE_TAINT_WATCHER=true AWS_REGION=us-east-1 \
      "$home/bin/aws-csi-driver" --driver "$driver" --mode "$mode" --endpoint unix:///tmp/csi.sock "${flags[@]}" \
      >"$m/csi.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 1200); do [ -S "$m/tmp/csi.sock" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    [ -S "$m/tmp/csi.sock" ] || { echo "no socket within 120 s"; cat "$m/csi.log"; exit 1; }
    "$client" client --endpoint "unix://$m/tmp/csi.sock" "$call" | tee "$m/answer.json"
    grep -q "$want" "$m/answer.json" || { cat "$m/csi.log"; exit 1; }
    if [ "$mode" = node ]; then
      maps="$(grep -o "[^ ]*netty_transport_native_epoll[^ ]*" "$m/proc/$pid/maps" | sort -u)"
      echo "the node maps: $maps"
      case "$maps" in *"$home/lib/native/libnetty_transport_native_epoll_$library.so") ;; *) exit 1 ;; esac
      [ "$(echo "$maps" | wc -l)" -eq 1 ] || exit 1
    fi
    kill -TERM $pid; rc=0; wait $pid || rc=$?
    echo "exit code $rc"; cat "$m/csi.log"
    { [ "$rc" -eq 0 ] || [ "$rc" -eq 143 ]; } && [ ! -e "$m/tmp/csi.sock" ]
  ' mode "$m" "$home" "$library" "$client" "http://127.0.0.1:$(cat "$scratch/imds-port")" "$1" "$2" "${image_env[@]}"
}
# What the image carries of its own driver and not of the other: AOT caches, the EC2 SDK, the other driver's tools.
carries_its_own_driver_alone() { # DRIVER
  local d="$1" caches; caches="$(cd "$m$home/aot" && ls | sort | paste -sd' ')"; echo "aot: $caches"
  [ "$caches" = "$d-node-registration.aot $d-node.aot" ] || return 1
  local present=() absent=()
  if [ "$d" = ebs ]; then
    present=(usr/sbin/mkfs.xfs usr/sbin/mkfs.ext4 usr/sbin/resize2fs usr/sbin/nvme "opt/aws-csi-driver/lib/controller")
    absent=(usr/bin/python3 usr/bin/stunnel4 usr/sbin/mount.nfs usr/bin/openssl usr/share/perl/5.36 "usr/lib/$(qemu_arch "$arch")-linux-gnu/libicuuc.so.72")
  else
    present=(usr/bin/python3 usr/bin/stunnel4 usr/sbin/mount.nfs)
    absent=(usr/sbin/mkfs.xfs usr/sbin/mkfs.ext4 usr/sbin/nvme "opt/aws-csi-driver/lib/controller" usr/share/perl/5.36)
  fi
  local f ok=0
  for f in "${present[@]}"; do [ -e "$m/$f" ] || [ -L "$m/$f" ] || { echo "missing /$f"; ok=1; }; done
  for f in "${absent[@]}"; do ! [ -e "$m/$f" ] || { echo "has /$f"; ok=1; }; done
  # the jlinked runtime: no desktop modules (jlink-runtime.sh says why they may go)
  ! grep -q 'java.desktop' "$m$home/jre/release" || { echo "the jre has java.desktop"; ok=1; }
  return "$ok"
}

# Every host tool the image's driver runs starts (a version query): what hack/image/runtime-unneeded.txt removed
# took nothing a tool needs.
its_host_tools_run() { # DRIVER
  local tools=() t rc=0
  if [ "$1" = ebs ]; then
    tools=("mkfs.ext4 -V" "mkfs.ext3 -V" "e2fsck -V" "dumpe2fs -V" "mkfs.xfs -V" "xfs_growfs -V" "xfs_info -V"
      "xfs_repair -V" "nvme version" "blkid -V" "lsblk -V" "blockdev -V" "losetup -V" "mount -V" "umount -V"
      "stat --version" "tini --version")
  else
    tools=("mount -V" "umount -V" "mount.nfs -V" "stunnel4 -version" "openssl version" "stat --version"
      "python3 -c import\ botocore,ssl" "tini --version")
  fi
  for t in "${tools[@]}"; do
    if in_image chroot "$m" /usr/bin/env -i "${image_env[@]}" bash -c "$t" >/dev/null 2>&1; then echo "runs: $t"
    else echo "FAILS: $t"; rc=1; fi
  done
  # resize2fs has no version query: its usage answer (exit code 1) says that it loads.
  if [ "$1" = ebs ]; then
    t="$(in_image chroot "$m" /usr/bin/env -i "${image_env[@]}" resize2fs 2>&1 || true)"
    if grep -q '^Usage: resize2fs' <<<"$t"; then echo "runs: resize2fs"; else echo "FAILS: resize2fs: $t"; rc=1; fi
  fi
  return "$rc"
}

for driver in "${drivers[@]}"; do
  tarball="$images/aws-csi-driver-$driver$sfx.tar"
  [ -s "$tarball" ] || die "no $tarball: make image${sfx:+ ARCH=$arch}"
  echo "image: $tarball ($arch$($foreign && echo ", emulated on $host_arch"))"
  unpack "$tarball"
  check "$driver: every ELF file of the image is for $arch" every_elf_file_is_for_the_images_machine
  check "$driver: lib/native holds the $arch Netty library alone" lib_native_holds_the_machines_library_alone
  check "$driver: the image's Java is Java 25 for $arch" its_java_is_java_25_for_the_machine
  check "$driver: without a jre the launcher takes the $arch Temurin package" \
    the_launcher_falls_back_to_the_machines_temurin_package
  check "$driver: the image carries its own driver's tools, jars and AOT caches alone" carries_its_own_driver_alone "$driver"
  check "$driver: every host tool of the driver runs" its_host_tools_run "$driver"
  for mode in node controller node-registration; do
    check "$driver $mode starts $([ "$mode" = controller ] && echo "without an AOT cache" || echo "with its AOT cache") and answers$([ "$mode" = node ] && echo ", mapping lib/native's $library library")" \
      mode_runs_with_its_aot_cache "$driver" "$mode"
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
