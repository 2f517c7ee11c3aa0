#!/usr/bin/env bash
# Minimal images for statically linked programs (the kubernetes-csi sidecars, the pause process of a pod sandbox) and
# a busybox image, without a container engine, the way the upstream sidecar images are made (a distroless static
# base: the binary at /, ENTRYPOINT it, root as the user): one layer holding the binary, /etc/passwd and /etc/group
# (root, nobody, nonroot 65532), the CA bundle of Debian's ca-certificates and /tmp. Cached like the driver image.
# Usage: build-static-image.sh [--repo REPO] [--tag TAG] BINARY[=NAME:TAG] ...
#          each BINARY becomes REPO/NAME:TAG (default localhost/aws-csi, the binary's name and "local")
#        build-static-image.sh [--repo REPO] --busybox [NAME:TAG]
#          Debian's busybox-static (apt-get download) with its applets linked in /bin, CMD sh
# Writes .tools/images/NAME.tar (docker-archive) and NAME.tar.ref, for `ctr -n k8s.io images import`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
self="$here/build-static-image.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"
repo=localhost/aws-csi tag=local busybox=false args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --busybox) busybox=true; shift ;;
    -*) die "unknown option $1 (usage: build-static-image.sh [--repo REPO] [--tag TAG] BINARY[=NAME:TAG] ...)" ;;
    *) args+=("$1"); shift ;;
  esac
done
$busybox || [ ${#args[@]} -gt 0 ] || die "no binary given (usage: build-static-image.sh BINARY[=NAME:TAG] ...)"
need umoci skopeo tar flock ldd
ca=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca" ] || die "no $ca: apt-get install ca-certificates"
lock_images
start=$(date +%s)

# base_files DIR: what every one of these images holds besides its program.
base_files() {
  local dir="$1"
  mkdir -p "$dir/etc/ssl/certs" "$dir/tmp" "$dir/root" "$dir/home/nonroot"
  chmod 1777 "$dir/tmp"; chmod 700 "$dir/root" "$dir/home/nonroot"; chown 65532:65532 "$dir/home/nonroot"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$dir/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >"$dir/etc/group"
  cp "$ca" "$dir/etc/ssl/certs/ca-certificates.crt"
}

# image NAME REF KEY_INPUT DIR_FILLER CONFIG...: builds REF from a directory that DIR_FILLER fills, unless current.
image() {
  local name="$1" ref="$2" inputs="$3" fill="$4"; shift 4
  local k out="$images/$name.tar" dir="$work/static-$name"
  k="$( { echo "$ref"; echo "$inputs"; cat "$ca" "$self"; } | key)"
  if [ "$(cat "$out.key" 2>/dev/null)" = "$k" ] && [ -s "$out" ]; then
    say "$ref is current ($out)"; return
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  base_files "$dir"
  "$fill" "$dir"
  find "$dir" -exec touch -h -d @946684800 {} +
  add_layer empty "static.$name.$k" "$dir" "hack/image/build-static-image.sh ($name)"
  umoci config --image "$layout:static.$name.$k" "$@" \
    --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --config.label "io.awscsi.image.build=hack/image/build-static-image.sh" \
    --history.created_by "ENV, ENTRYPOINT/CMD"
  export_archive "static.$name.$k" "$ref" "$out"
  echo "$k" >"$out.key"
  rm -rf "$dir"
  forget "static\\.${name//./\\.}\\.[0-9a-f]+" "static.$name.$k"
  say "built $ref -> $out ($(sizes "static.$name.$k" "$out"))"
}

busybox_ref=""
if $busybox; then busybox_ref="${args[0]:-}"; args=(); fi
program=""
put_program() { install -m 0755 -o 0 -g 0 "$program" "$1/$(basename "$program")"; }
for arg in "${args[@]}"; do
  bin="${arg%%=*}"
  [ -f "$bin" ] && [ -x "$bin" ] || die "$bin is not an executable file"
  # A minimal image has no C library: a dynamically linked program would not start in it.
  linked="$(ldd "$bin" 2>&1 || true)"
  if ! grep -q 'not a dynamic executable\|statically linked' <<<"$linked"; then
    die "$bin is dynamically linked; build it statically (Go: CGO_ENABLED=0)"
  fi
  name="$(basename "$bin")"
  if [ "$arg" != "$bin" ]; then ref="${arg#*=}"; else ref="$name:$tag"; fi
  case "$ref" in */*) ;; *) ref="$repo/$ref" ;; esac
  program="$bin"
  image "$name" "$ref" "$(sha256sum <"$bin")" put_program --config.entrypoint "/$name"
done

if $busybox; then
  deb="$(ls "$images"/debs/busybox-static_*.deb 2>/dev/null | tail -n 1 || true)"
  if [ -z "$deb" ]; then
    mkdir -p "$images/debs"
    (cd "$images/debs" && { apt-get download busybox-static >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1; apt-get download busybox-static >/dev/null; }; })
    deb="$(ls "$images"/debs/busybox-static_*.deb | tail -n 1)"
  fi
  version="$(dpkg-deb -f "$deb" Version | sed 's/^[0-9]*://; s/-.*//')"
  ref="${busybox_ref:-busybox:$version}"
  case "$ref" in */*) ;; *) ref="$repo/$ref" ;; esac
  put_busybox() {
    local x="$work/busybox-deb"
    rm -rf "$x"; dpkg-deb -x "$deb" "$x"
    mkdir -p "$1/bin"
    install -m 0755 -o 0 -g 0 "$x/bin/busybox" "$1/bin/busybox"
    rm -rf "$x"
    local applet
    for applet in $("$1/bin/busybox" --list); do
      [ "$applet" = busybox ] || ln -s busybox "$1/bin/$applet"
    done
  }
  image busybox "$ref" "$(sha256sum <"$deb")" put_busybox --config.cmd sh
fi
