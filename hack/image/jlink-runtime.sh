#!/usr/bin/env bash
# The Java runtime of the driver image, made the same way by both image builds (the Dockerfile's jre stage and
# hack/image/build-driver-image.sh): jlink of only the modules the distribution's jars need (jdeps), plus modules
# reached without a static reference: jdk.unsupported (Netty and protobuf use sun.misc.Unsafe), jdk.naming.dns (JNDI
# DNS lookups), jdk.management (process metrics). lib/diagnose (the diagnose command) is in the image; lib/local
# (the `local` subcommand's emulators) is not.
# Left out although jdeps names it: java.desktop (AWT, fonts, java.beans; 14 MiB of runtime with its native
# libraries), which only Jackson's optional java.beans support refers to (jackson-databind 2's
# com.fasterxml.jackson.databind.ext.Java7SupportImpl, Jackson 3's tools.jackson.databind.ext.beans
# JavaBeansAnnotationsImpl): Jackson loads either by Class.forName in a try that takes the NoClassDefFoundError and
# goes on without @ConstructorProperties / @Transient, which no class of this driver uses; and the EC2 SDK's
# RuleOption$BuilderImpl, through the annotation java.beans.Transient alone (the JVM skips an annotation whose type is
# absent). --modules checks that nothing else refers to a left-out module (jdeps -verbose:class) and keeps it
# otherwise; every mode's start in the image (the AOT training, hack/image/test-image-run.sh) runs on the trimmed
# runtime.
# jlink links the runtime it runs from (Temurin 25 has no jmods), so the runtime is of the JDK's own machine: the
# Dockerfile runs --modules on the build machine and the link in a stage of the target platform.
# Usage: jlink-runtime.sh DIST_DIR OUT_DIR [MODULES]   (MODULES: a list printed by --modules, to skip jdeps; DIST_DIR
#                                                      is then not read: - will do)
#        jlink-runtime.sh --modules DIST_DIR           (prints the module list)
set -euo pipefail
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
extra=jdk.unsupported,jdk.naming.dns,jdk.management
# A module left out; the packages allowed to refer to it (each loads its user of the module guarded) and the classes
# of it anyone may refer to (annotations).
left_out=java.desktop
guarded_referrers="com.fasterxml.jackson.databind.ext tools.jackson.databind.ext.beans"
annotations="java.beans.Transient"
modules() {
  local dist="$1" deps referrers unexpected
  local jars=("$dist"/lib/*.jar "$dist"/lib/controller/*.jar "$dist"/lib/diagnose/*.jar)
  local cp="$dist/lib/*:$dist/lib/controller/*:$dist/lib/diagnose/*"
  deps="$("$jdk/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps --class-path "$cp" "${jars[@]}")"
  if echo "$deps" | tr ',' '\n' | grep -qx "$left_out"; then
    # jdeps -verbose:class lines: "<class> -> <class> <module>"; the references to the left-out module but the
    # allowed ones.
    unexpected="$("$jdk/bin/jdeps" --ignore-missing-deps --multi-release 25 -verbose:class --class-path "$cp" \
      "${jars[@]}" | awk -v m="$left_out" -v pk="$guarded_referrers" -v an="$annotations" '
        BEGIN { split(pk, p, " "); for (i in p) ok[p[i]] = 1; split(an, a, " "); for (i in a) note[a[i]] = 1 }
        $2 == "->" && $4 == m { pkg = $1; sub(/\.[^.]*$/, "", pkg); if (!(pkg in ok) && !($3 in note)) print $1 " -> " $3 }' \
      | sort -u)"
    if [ -n "$unexpected" ]; then
      echo "jlink-runtime.sh: keeping $left_out: referred to by $(echo "$unexpected" | paste -sd' ')" >&2
    else
      deps="$(echo "$deps" | tr ',' '\n' | grep -vx "$left_out" | paste -sd,)"
    fi
  fi
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
