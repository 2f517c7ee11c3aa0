#!/usr/bin/env bash
# The Java runtime of the driver image, made the same way by both image builds (the Dockerfile's jre stage and
# hack/image/build-driver-image.sh): jlink of only the modules the distribution's jars need (jdeps), plus modules
# reached without a static reference: jdk.unsupported (Netty and protobuf use sun.misc.Unsafe), jdk.naming.dns (JNDI
# DNS lookups), jdk.management (process metrics). lib/diagnose (the diagnose command) is in the image; lib/local
# (the `local` subcommand's emulators) is not.
# jlink links the runtime it runs from (Temurin 25 has no jmods), so the runtime is of the JDK's own machine: the
# Dockerfile runs --modules on the build machine and the link in a stage of the target platform.
# Usage: jlink-runtime.sh DIST_DIR OUT_DIR [MODULES]   (MODULES: a list printed by --modules, to skip jdeps; DIST_DIR
#                                                      is then not read: - will do)
#        jlink-runtime.sh --modules DIST_DIR           (prints the module list)
set -euo pipefail
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
extra=jdk.unsupported,jdk.naming.dns,jdk.management
modules() {
  local dist="$1" deps
  deps="$("$jdk/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps \
    --class-path "$dist/lib/*:$dist/lib/controller/*:$dist/lib/diagnose/*" "$dist"/lib/*.jar "$dist"/lib/controller/*.jar \
    "$dist"/lib/diagnose/*.jar)"
  echo "$deps,$extra" | tr ',' '\n' | sort -u | paste -sd,
}
if [ "${1:-}" = --modules ]; then
  modules "$2"
  exit 0
fi
dist="$1" out="$2"
mods="${3:-$(modules "$dist")}"
rm -rf "$out"
"$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-header-files --no-man-pages --compress=zip-6 --output "$out"
