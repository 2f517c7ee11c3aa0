#!/usr/bin/env bash
# Node-mode start-up time to the first successful Probe and idle RSS of the built distribution (median of runs),
# with and without the AOT cache. Needs `make build` (and `make build-aot` for the AOT figures).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mvn -q -B -ntp -pl e2e -am test-compile -DskipTests
mvn -q -B -ntp -pl e2e exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=io.awscsi.e2e.bench.StartupBenchmark -Dexec.args="$root/dist/aws-csi-driver ${RUNS:-5}"
