#!/usr/bin/env bash
# The driver image without a container engine: the image the Dockerfile builds, made from the same inputs where no
# Docker engine runs and no registry serves base images (only Debian's archive is reached).
#   base  a Debian root file system made by mmdebstrap (--variant=minbase, the variant debian:*-slim is made from,
#         with slim's dpkg path excludes) holding hack/image/runtime-packages.txt, the list the Dockerfile installs
#   jre   the jlink runtime at /opt/aws-csi-driver/jre (hack/image/jlink-runtime.sh, as the Dockerfile runs it)
#   dist  the distribution at /opt/aws-csi-driver (bin, lib; without lib/local, as the Dockerfile leaves it out)
#   aot   the AOT caches, trained by hack/build-aot.sh inside this very file system (an overlay of the three layers
#         above, chrooted in private mount and PID namespaces), so each cache matches the image's JVM and paths;
#         each is then checked by a start with -XX:AOTMode=on, which refuses a cache that does not match
# Each layer is cached by a key of its inputs (.tools/images, see lib.sh) and rebuilt only when they change.
# Why these tools: mmdebstrap rather than debootstrap because it resolves the package list with apt itself (as the
# Dockerfile's apt-get does, Recommends left out), runs in an unshared user and mount namespace that leaves no mount
# behind, and takes the already fetched .debs back (sync-in/out), so a changed list downloads only what is new.
# umoci keeps the layers in an OCI layout whose tags are the cache; skopeo writes the docker-archive that ctr
# imports under the image's full name (ctr gives an OCI archive's bare ref.name a prefix of its own). Jib puts Java
# application layers on a base image from a registry, and here the base itself is what must be made; buildah needs
# a containers storage (and its state) of its own.
# amazon-efs-utils, which the Dockerfile builds from its GitHub source, cannot be built here: this image has no
# mount.efs and serves EFS with --efs-mount-backend local (e2e's LocalImageTest states that difference).
# Usage: build-driver-image.sh [--tag TAG] [--repo REPO] [DIST_DIR]
#   writes .tools/images/aws-csi-driver.tar (docker-archive, REPO/aws-csi-driver:TAG; default localhost/aws-csi and
#   the driver's version), for `ctr -n k8s.io images import .tools/images/aws-csi-driver.tar`
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
self="$here/build-driver-image.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"
tag="" repo=localhost/aws-csi dist="$root/dist/aws-csi-driver"
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --repo) repo="$2"; shift 2 ;;
    -*) die "unknown option $1 (usage: build-driver-image.sh [--tag TAG] [--repo REPO] [DIST_DIR])" ;;
    *) dist="$1"; shift ;;
  esac
done
dist="$(cd "$dist" && pwd)"
[ -s "$dist/lib/aws-csi-driver.jar" ] || die "no distribution at $dist: run make build first"
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$jdk/bin/jlink" ] || die "no JDK at $jdk (JAVA_HOME)"
[ -n "$tag" ] || tag="$(unzip -p "$dist/lib/aws-csi-driver.jar" io/awscsi/launcher/version.properties \
  | sed -n 's/^version=//p')"
ref="$repo/aws-csi-driver:$tag"
out="$images/aws-csi-driver.tar"
need mmdebstrap umoci skopeo unshare tar flock
lock_images
start=$(date +%s)

# The release the Dockerfile's runtime stage starts from (ARG DEBIAN_RELEASE), and its archive.
release="$(sed -n 's/^ARG DEBIAN_RELEASE=//p' "$root/Dockerfile")"
[ -n "$release" ] || die "no ARG DEBIAN_RELEASE in the Dockerfile"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
packages="$(sed -e 's/#.*//' "$here/runtime-packages.txt" | xargs | tr ' ' ,)"
# What debian:*-slim leaves out of every package (documentation, manuals, translations), the copyrights kept.
slim=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*'
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
  --dpkgopt='path-exclude=/usr/share/linda/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-include=/usr/share/locale/locale.alias')
# Every file the image adds on top of Debian gets one modification time: a layer's digest depends on the contents
# only, not on when `make build` copied the jars (with reproducible jars, an unchanged tree gives the same layers).
epoch=946684800

# --- base: the Debian root file system ----------------------------------------------------------------------------
base_key="$( { echo "$release $mirror $security"; printf '%s\n' "${slim[@]}"; echo "$packages"; mmdebstrap --version
  sed -n '/^# --- base/,/^# --- jre/p' "$self"; } | key)"
rootfs="$work/rootfs"
if [ "$(cat "$rootfs.key" 2>/dev/null)" != "$base_key" ] || ! has_tag "driver-base-$base_key"; then
  say "base: Debian $release (minbase) with $(echo "$packages" | tr ',' ' ') (mmdebstrap)"
  rm -rf "$rootfs" "$rootfs.key"
  mkdir -p "$images/debs"
  # The packages fetched before are handed to apt again (sync-in/sync-out), so a changed list downloads only what is new.
  mmdebstrap --mode=unshare --variant=minbase --include="$packages" "${slim[@]}" --skip=essential/unlink \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
    --setup-hook="sync-in $images/debs /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $images/debs" \
    --quiet "$release" "$rootfs" \
    "deb $mirror $release main" "deb $mirror $release-updates main" "deb $security $release-security main" \
    </dev/null
  add_layer empty "driver-base-$base_key" "$rootfs" "mmdebstrap --variant=minbase $release +runtime-packages.txt"
  echo "$base_key" >"$rootfs.key"
fi

# --- jre: the jlink runtime ---------------------------------------------------------------------------------------
jars_key="$(cat "$dist"/lib/*.jar "$dist"/lib/controller/*.jar "$dist"/lib/diagnose/*.jar | key)"
if [ "$(cut -d' ' -f1 "$work/modules" 2>/dev/null)" != "$jars_key" ]; then
  echo "$jars_key $(bash "$here/jlink-runtime.sh" --modules "$dist")" >"$work/modules"
fi
modules="$(cut -d' ' -f2 "$work/modules")"
jre_key="$( { echo "$base_key $modules"; cat "$jdk/release" "$here/jlink-runtime.sh"
  sed -n '/^# --- jre/,/^# --- dist/p' "$self"; } | key)"
jre="$work/layer-jre"
if [ "$(cat "$jre.key" 2>/dev/null)" != "$jre_key" ] || ! has_tag "driver-jre-$jre_key"; then
  say "jre: jlink $modules"
  rm -rf "$jre" "$jre.key"
  mkdir -p "$jre/opt/aws-csi-driver"
  JAVA_HOME="$jdk" bash "$here/jlink-runtime.sh" "$dist" "$jre/opt/aws-csi-driver/jre" "$modules"
  find "$jre" -exec touch -h -d "@$epoch" {} +
  add_layer "driver-base-$base_key" "driver-jre-$jre_key" "$jre" "jlink-runtime.sh ($modules)"
  echo "$jre_key" >"$jre.key"
fi

# --- dist: the distribution ---------------------------------------------------------------------------------------
dist_key="$( { echo "$jre_key"; cd "$dist" && find . \( -path ./lib/local -o -path ./aot \) -prune -o -type f -print \
  | LC_ALL=C sort | while read -r f; do echo "$(stat -c %a "$f") $(sha256sum <"$f" | cut -c1-64) $f"; done
  sed -n '/^# --- dist/,/^# --- aot/p' "$self"; } | key)"
layer_dist="$work/layer-dist"
if [ "$(cat "$layer_dist.key" 2>/dev/null)" != "$dist_key" ] || ! has_tag "driver-dist-$dist_key"; then
  say "dist: $dist (without lib/local)"
  rm -rf "$layer_dist" "$layer_dist.key"
  mkdir -p "$layer_dist/opt/aws-csi-driver"
  cp -a "$dist/." "$layer_dist/opt/aws-csi-driver/"
  rm -rf "$layer_dist/opt/aws-csi-driver/lib/local" "$layer_dist/opt/aws-csi-driver/aot" \
    "$layer_dist/opt/aws-csi-driver/app.aot"
  chown -R 0:0 "$layer_dist"
  find "$layer_dist" -exec touch -h -d "@$epoch" {} +
  add_layer "driver-jre-$jre_key" "driver-dist-$dist_key" "$layer_dist" "the distribution (hack/assemble-dist.sh)"
  echo "$dist_key" >"$layer_dist.key"
fi

# --- aot: the AOT caches, trained inside the image's file system ------------------------------------------------
aot_key="$( { echo "$dist_key"; cat "$root/hack/build-aot.sh" "$root/hack/imds-standin.py"
  sed -n '/^# --- aot/,/^# --- config/p' "$self"; } | key)"
layer_aot="$work/layer-aot"
image_path="PATH=/opt/aws-csi-driver/jre/bin:/opt/aws-csi-driver/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
image_java_home="JAVA_HOME=/opt/aws-csi-driver/jre"
if [ "$(cat "$layer_aot.key" 2>/dev/null)" != "$aot_key" ] || ! has_tag "driver-aot-$aot_key"; then
  say "aot: training hack/build-aot.sh inside the image's file system"
  rm -rf "$layer_aot" "$layer_aot.key" "$work/aot-upper" "$work/aot-ovl" "$work/aot-root"
  mkdir -p "$work/aot-upper" "$work/aot-ovl" "$work/aot-root"
  # The mounts live in a mount namespace of their own and end with it; the PID namespace ends every process the
  # training started (the drivers, the IMDS stand-in) when it returns, whatever happened.
  unshare --mount --pid --fork --kill-child --propagation private \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin m="$work/aot-root" lower="$layer_dist:$jre:$rootfs" \
      upper="$work/aot-upper" ovl="$work/aot-ovl" aot_scripts="$root/hack" image_path="$image_path" \
      image_java_home="$image_java_home" bash -euo pipefail -c '
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$ovl" "$m"
    mount -t proc proc "$m/proc"
    mount -t tmpfs -o mode=755,nosuid tmpfs "$m/dev"
    for d in null zero full random urandom tty; do touch "$m/dev/$d"; mount --bind "/dev/$d" "$m/dev/$d"; done
    ln -s /proc/self/fd "$m/dev/fd"
    mkdir -p "$m/tmp/aot"
    cp "$aot_scripts/build-aot.sh" "$aot_scripts/imds-standin.py" "$m/tmp/aot/"
    in_image() { chroot "$m" /usr/bin/env -i "$image_path" "$image_java_home" HOME=/root "$@"; }
    # the Dockerfile step, as its RUN runs it
    in_image bash /tmp/aot/build-aot.sh /opt/aws-csi-driver
    for cache in "$m"/opt/aws-csi-driver/aot/*.aot; do
      combo="$(basename "$cache" .aot)" variant=""
      # <driver>-<mode>[-registration]: the registration variant is picked by --kubelet-registration-path.
      case "$combo" in *-registration) combo="${combo%-registration}"
        variant="--kubelet-registration-path=/var/lib/kubelet/plugins/x/csi.sock" ;; esac
      in_image JAVA_OPTS="-XX:AOTMode=on" /opt/aws-csi-driver/bin/aws-csi-driver \
        --driver "${combo%-*}" --mode "${combo#*-}" $variant --version >/dev/null \
        || { echo "the AOT cache $combo does not match the image JVM" >&2; exit 1; }
    done
    rm -rf "$m/tmp/aot"'
  unexpected="$(cd "$work/aot-upper" && find opt -mindepth 2 -maxdepth 2 ! -path opt/aws-csi-driver/aot)"
  [ -z "$unexpected" ] || die "the AOT training changed more than aot/: $unexpected"
  mkdir -p "$layer_aot/opt/aws-csi-driver"
  cp -a "$work/aot-upper/opt/aws-csi-driver/aot" "$layer_aot/opt/aws-csi-driver/"
  find "$layer_aot" -exec touch -h -d "@$epoch" {} +
  rm -rf "$work/aot-upper" "$work/aot-ovl" "$work/aot-root"
  add_layer "driver-dist-$dist_key" "driver-aot-$aot_key" "$layer_aot" "hack/build-aot.sh (in the image)"
  echo "$aot_key" >"$layer_aot.key"
fi

# --- config: what the Dockerfile's runtime stage declares --------------------------------------------------------
final="driver-$aot_key"
if ! has_tag "$final"; then
  umoci config --image "$layout:driver-aot-$aot_key" --tag "$final" \
    --config.env "$image_path" --config.env "$image_java_home" \
    --config.entrypoint=/usr/bin/tini --config.entrypoint=-- \
    --config.entrypoint=/opt/aws-csi-driver/bin/aws-csi-driver \
    --config.label "org.opencontainers.image.title=aws-csi-driver" \
    --config.label "org.opencontainers.image.description=Amazon EBS and EFS CSI drivers (ebs.csi.aws.com, efs.csi.aws.com) in Java" \
    --config.label "io.awscsi.image.build=hack/image/build-driver-image.sh" \
    --config.label "io.awscsi.image.without=amazon-efs-utils" \
    --history.created_by "the Dockerfile's ENV, ENTRYPOINT and LABEL"
fi
if [ "$(cat "$out.key" 2>/dev/null)" != "$aot_key $ref" ] || [ ! -s "$out" ]; then
  export_archive "$final" "$ref" "$out"
  echo "$aot_key $ref" >"$out.key"
  forget 'driver-([a-z]+-)?[0-9a-f]+' "driver-base-$base_key" "driver-jre-$jre_key" "driver-dist-$dist_key" "driver-aot-$aot_key" "$final"
  say "built $ref -> $out ($(sizes "$final" "$out")) in $(( $(date +%s) - start )) s"
else
  say "$ref is current ($out)"
fi
