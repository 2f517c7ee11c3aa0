#!/usr/bin/env bash
# Benchmarks that print figures (never asserted): node RSS under load with the built distribution, then the EBS
# controller lifecycle benchmark (200 concurrent lifecycles under EC2 throttling, see ebs/README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mvn -q -B -ntp -pl e2e exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=io.awscsi.e2e.bench.NodeLoadBenchmark -Dexec.args="$root/dist/aws-csi-driver ${VOLUMES:-50}"
mvn -q -B -ntp -pl ebs exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=io.awscsi.ebs.bench.ControllerLifecycleBenchmark -Dexec.args="${LIFECYCLES:-200} 10"
