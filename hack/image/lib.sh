# Shared by the local image builds, which need no container engine: an OCI image layout under .tools/images/oci
# that umoci manages (blobs, manifests, configs, tags), layers written by GNU tar (umoci 0.4.7's own layer writer can
# leave a layer without its tar trailer), and docker-archive tarballs written by skopeo, which
# `ctr -n k8s.io images import` reads with the image's name. Every step is cached by a key of its inputs: a tag in
# the layout names the key, so an unchanged input is never rebuilt.
# Sourced with $root set to the repository.
images="${AWS_CSI_IMAGES_DIR:-$root/.tools/images}"
layout="$images/oci"
work="$images/work"

say() { echo "image: [$(( $(date +%s) - ${start:-$(date +%s)} )) s] $*"; }
die() { echo "image: $*" >&2; exit 1; }

need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is missing (make deps installs it: hack/install-deps.sh)"
  done
}

# One build at a time per cache directory: the layout and the work directories are shared.
lock_images() {
  mkdir -p "$images" "$work"
  exec 9>"$images/.lock"
  flock -w 3600 9 || die "another image build holds $images/.lock"
  [ -f "$layout/index.json" ] || umoci init --layout "$layout"
  [ -n "$(tags | grep -x empty)" ] || umoci new --image "$layout:empty"
}

key() { sha256sum | cut -c1-20; }
tags() { umoci ls --layout "$layout"; }
has_tag() { tags | grep -x -- "$1" >/dev/null; }

# add_layer FROM_TAG NEW_TAG DIR COMMENT: a layer holding what DIR holds, as the image's root, on top of FROM_TAG.
add_layer() {
  local from="$1" to="$2" dir="$3" comment="$4" tar="$work/layer.tar" entries
  mapfile -t entries < <(cd "$dir" && ls -A)
  [ ${#entries[@]} -gt 0 ] || die "nothing to put in the layer from $dir"
  # Owners by number (the image's /etc/passwd is not the host's), security.capability kept, a stable order.
  tar --create --file "$tar" --directory "$dir" --numeric-owner --sort=name --xattrs \
    --xattrs-include=security.capability -- "${entries[@]}"
  umoci raw add-layer --image "$layout:$from" --tag "$to" --history.created_by "$comment" "$tar"
  rm -f "$tar"
}

# export_archive TAG REF OUT: the docker-archive tarball of TAG, named REF; OUT.ref says which name it carries.
export_archive() {
  local tag="$1" ref="$2" out="$3"
  rm -f "$out.tmp"
  skopeo copy --quiet "oci:$layout:$tag" "docker-archive:$out.tmp:$ref"
  mv "$out.tmp" "$out"
  echo "$ref" >"$out.ref"
}

# forget PATTERN KEEP...: removes the tags PATTERN (an extended regular expression) matches whole but those named,
# then the blobs nothing refers to.
forget() {
  local pattern="$1" tag; shift
  for tag in $(tags | grep -xE "$pattern" || true); do
    printf '%s\n' "$@" | grep -x -- "$tag" >/dev/null || umoci rm --image "$layout:$tag"
  done
  umoci gc --layout "$layout"
}

# The image's size as containerd stores it (compressed layers) and as the tarball carries it (uncompressed).
sizes() {
  local tag="$1" out="$2" compressed
  compressed=$(umoci stat --image "$layout:$tag" --json \
    | python3 -c 'import json,sys; print(sum(h.get("layer",{}).get("size",0) for h in json.load(sys.stdin)["history"] if h.get("layer")))' 2>/dev/null || echo 0)
  echo "$(du -m "$out" | cut -f1) MiB tarball, $((compressed / 1048576)) MiB compressed layers"
}

# Machine architectures, as Debian names them (amd64, arm64; x86_64 and aarch64 are taken too).
debian_arch() {
  case "$1" in
    amd64|x86_64) echo amd64 ;;
    arm64|aarch64) echo arm64 ;;
    *) die "unknown architecture $1 (amd64 or arm64)" ;;
  esac
}
qemu_arch() { case "$1" in amd64) echo x86_64 ;; arm64) echo aarch64 ;; esac; }

# in_emulation ARCH COMMAND...: runs COMMAND where the programs of machine ARCH run under QEMU's user-mode emulation,
# without touching the rest of the machine: in a user namespace of its own (every ID mapped to itself, so root stays
# root and files keep their owners) whose own binfmt_misc instance (Linux 6.7 and later give one to each user
# namespace that mounts it) has Debian's qemu-user-static registration for ARCH. Its F flag opens the emulator at
# registration, so ARCH's programs run in chroots and mount namespaces below too. The machine's binfmt_misc, and so
# every other process, is left as it was.
in_emulation() {
  local arch="$1" qemu conf fifo pid rc
  shift
  qemu="$(qemu_arch "$arch")"
  conf="/usr/lib/binfmt.d/qemu-$qemu.conf"
  need "qemu-$qemu-static" unshare
  [ -r "$conf" ] || die "no $conf: apt-get install qemu-user-static"
  fifo="$(mktemp -u "$work/emulation.XXXXXX")"
  mkfifo "$fifo"
  unshare --user --mount --propagation private --fork bash -c '
    read -r _ <"$0"
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
      || { echo "image: cannot mount binfmt_misc in a user namespace (Linux 6.7 or later needed)" >&2; exit 97; }
    grep -v "^#" "$1" >/proc/sys/fs/binfmt_misc/register || { echo "image: cannot register $1" >&2; exit 98; }
    shift
    exec "$@"' "$fifo" "$conf" "$@" &
  pid=$!
  # the maps are written from outside once the child has its own user namespace
  for _ in $(seq 1 200); do
    [ "$(readlink "/proc/$pid/ns/user" 2>/dev/null)" != "$(readlink /proc/self/ns/user)" ] && break
    sleep 0.01
  done
  echo "0 0 4294967295" >"/proc/$pid/uid_map" && echo "0 0 4294967295" >"/proc/$pid/gid_map" \
    || { kill "$pid"; rm -f "$fifo"; die "cannot map the IDs of the emulation's user namespace"; }
  echo go >"$fifo"
  rm -f "$fifo"
  rc=0; wait "$pid" || rc=$?
  return "$rc"
}

# driver_packages DRIVER [LIST]: the packages of hack/image/runtime-packages.txt that DRIVER's image installs (those
# marked [DRIVER] and the unmarked ones; DRIVER all: every one, the emulated test image's), one a line.
driver_packages() {
  local driver="$1" list="${2:-$root/hack/image/runtime-packages.txt}"
  case "$driver" in ebs|efs|all) ;; *) die "unknown driver $driver (ebs, efs or all)" ;; esac
  local other=none
  [ "$driver" = ebs ] && other=efs
  [ "$driver" = efs ] && other=ebs
  # the Dockerfile's selection, word for word
  sed -e "/\[${other}\]/d" -e 's/#.*//' "$list" | xargs -n1
}

# driver_combos DRIVER: the AOT caches (hack/build-aot.sh's driver-mode[-registration]) of DRIVER's image.
# No controller cache: it costs the controller more idle RSS than the start-up it saves (hack/build-aot.sh).
driver_combos() { echo "$1-node $1-node-registration"; }
