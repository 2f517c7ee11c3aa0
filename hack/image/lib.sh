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
