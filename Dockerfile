# syntax=docker/dockerfile:1
#
# One image per driver, each with what its own modes (controller, node) run and nothing else: DRIVER=ebs (the default;
# the file-system and NVMe tools, the EC2 SDK, the EBS AOT caches) and DRIVER=efs (amazon-efs-utils and what it runs,
# no EC2 SDK, the EFS AOT caches): `docker buildx build --build-arg DRIVER=efs -t aws-csi-driver-efs .`. DRIVER=all
# makes one image with both drivers. For linux/amd64 and linux/arm64 (Graviton):
# `docker buildx build --platform linux/amd64,linux/arm64 .` builds one image index. Stages:
#   efs-utils  builds amazon-efs-utils from source (mount.efs, efs-proxy, the watchdog), as upstream does
#   build      builds the driver with JDK 25, Maven and Go (the proto module downloads the CSI spec with Go) once, on
#              the build machine ($BUILDPLATFORM): jars are bytecode and protoc runs at build time only, so both
#              platforms get the same jars; then lays out the distribution of the target machine (its Netty library)
#   jre        a jlink-trimmed Java runtime holding only the modules the driver uses, made by the target's JDK
#   runtime    Debian slim with the host tools the driver's node plugin runs (driver-core HostTool lists them; a test
#              in e2e checks that this file installs every one), the runtime, the driver and its AOT caches; tini as
#              PID 1, which reaps the orphaned children of mount.efs (hack/test-dist.sh runs this entrypoint as PID 1)
# Every stage but build runs on the target platform: its base image is the target's variant, and what it runs is the
# target's code. Building for a platform that is not the build machine's (arm64 on an amd64 machine) runs those
# stages under emulation (QEMU user mode, which `docker run --privileged tonistiigi/binfmt --install arm64` registers
# with binfmt_misc): efs-utils' Rust build, jlink and the AOT training run several times slower than natively, or
# use a native arm64 builder (`docker buildx create --append` a node of that platform).
# Where no container engine runs, hack/image/build-driver-image.sh (`make image`, `make image ARCH=arm64`) builds the
# same image from the same package list and scripts; e2e's LocalImageTest says how the two differ (amazon-efs-utils).

ARG DEBIAN_RELEASE=bookworm
ARG GO_VERSION=1.26
ARG EFS_UTILS_VERSION=v3.0.1

# Go of the target machine (efs-utils' AWS-LC build runs it in the target's stage) and of the build machine (the
# build stage runs it there): a toolchain is copied only into a stage of its own platform.
FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS go
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS build-go

# ---------------------------------------------------------------------------------------------------------------
FROM rust:1-${DEBIAN_RELEASE} AS efs-utils
ARG EFS_UTILS_VERSION
# efs-proxy links AWS-LC, whose build wants cmake, perl and Go; build-deb.sh uses envsubst.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake gettext-base perl pkg-config libssl-dev binutils git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH
RUN git clone --depth 1 --branch "${EFS_UTILS_VERSION}" https://github.com/aws/efs-utils /src/efs-utils
WORKDIR /src/efs-utils
RUN ./build-deb.sh \
 && mkdir -p /out \
 && cp build/amazon-efs-utils*.deb /out/amazon-efs-utils.deb

# ---------------------------------------------------------------------------------------------------------------
FROM --platform=$BUILDPLATFORM maven:3.9-eclipse-temurin-25 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends make \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build-go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 --mount=type=cache,target=/root/go/pkg/mod \
    make build
# The modules the runtime keeps: those the jars need (jdeps reads bytecode, the same for every platform) and a few
# reached without a static reference (the script says which; the local image build runs the same script).
RUN bash hack/image/jlink-runtime.sh --modules dist/aws-csi-driver >/opt/jre-modules
# The distribution of the target machine: its Netty library alone in lib/native (BuildKit sets TARGETARCH, amd64 or
# arm64, per platform; the steps above do not read it, so both platforms share them). lib/local, the emulators of
# the `local` and `emulated` subcommands (the loop-device and local-directory backends among them), stays out.
# The EFS image leaves out lib/controller (the EC2 SDK: the EBS controller's alone).
ARG TARGETARCH
ARG DRIVER=ebs
RUN bash hack/assemble-dist.sh --arch "${TARGETARCH}" dist/aws-csi-driver \
 && rm -rf dist/aws-csi-driver/lib/local \
 && if [ "${DRIVER}" = efs ]; then rm -rf dist/aws-csi-driver/lib/controller; fi

# ---------------------------------------------------------------------------------------------------------------
# jlink links the runtime it runs from (Temurin 25 ships no jmods: JEP 493), so only the target's JDK can make the
# target's runtime: this stage is the target platform's JDK image, under emulation when that is not the build machine.
FROM eclipse-temurin:25-jdk AS jre
COPY hack/image/jlink-runtime.sh /tmp/jlink-runtime.sh
COPY --from=build /opt/jre-modules /tmp/jre-modules
RUN JAVA_HOME=/opt/java/openjdk bash /tmp/jlink-runtime.sh - /opt/aws-csi-driver-jre "$(cat /tmp/jre-modules)" \
 && /opt/aws-csi-driver-jre/bin/java -version

# ---------------------------------------------------------------------------------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim AS runtime
ARG DRIVER=ebs
# Host tools the driver's node plugin runs (EBS: file systems, block devices, NVMe) and the dependencies of
# amazon-efs-utils (EFS): the one package list that the local image build (hack/image/build-driver-image.sh, no
# container engine) installs too; a package marked [ebs] or [efs] there is for that driver's image alone.
# What those pull in that nothing of the driver runs (hack/image/runtime-unneeded.txt says why) goes in the same step.
COPY hack/image/runtime-packages.txt /tmp/runtime-packages.txt
COPY hack/image/runtime-unneeded.txt /tmp/runtime-unneeded.txt
RUN apt-get update \
 && other="$(case "${DRIVER}" in ebs) echo efs ;; efs) echo ebs ;; *) echo none ;; esac)" \
 && sed -e "/\[${other}\]/d" -e 's/#.*//' /tmp/runtime-packages.txt | xargs apt-get install -y --no-install-recommends \
 && if [ "${DRIVER}" != all ]; then awk -v other="[${other}]" '{ if (index($0, "#") && index(substr($0, index($0, "#")), other)) next; \
      sub(/#.*/, ""); if (NF) print $1 }' /tmp/runtime-unneeded.txt | xargs -r dpkg --purge --force-depends; fi \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt /tmp/runtime-unneeded.txt
# amazon-efs-utils for the EFS image (DRIVER=efs or all); the EBS image removes the copied .deb unused.
COPY --from=efs-utils /out/amazon-efs-utils.deb /tmp/amazon-efs-utils.deb
RUN if [ "${DRIVER}" != ebs ]; then apt-get update \
 && apt-get install -y --no-install-recommends /tmp/amazon-efs-utils.deb \
 && rm -rf /var/lib/apt/lists/* \
 && (command -v stunnel >/dev/null || ln -s "$(command -v stunnel4)" /usr/local/bin/stunnel) \
 && mount.efs --version \
 && mv /etc/amazon/efs /etc/amazon/efs-static-files; fi \
 && rm -f /tmp/amazon-efs-utils.deb
# efs-utils reads /etc/amazon/efs: the EFS node makes it a link to the host directory the chart mounts
# (/var/amazon/efs), so client keys and config outlive the container, and restores the package's files kept above.

COPY --from=jre /opt/aws-csi-driver-jre /opt/aws-csi-driver/jre
COPY --from=build /src/dist/aws-csi-driver/ /opt/aws-csi-driver/
ENV JAVA_HOME=/opt/aws-csi-driver/jre \
    PATH=/opt/aws-csi-driver/jre/bin:/opt/aws-csi-driver/bin:$PATH
# AOT caches (JDK 25), one per driver and mode: a training run of that very process (against a loopback IMDS
# stand-in) records the classes loaded and linked at start; the launcher passes -XX:AOTCache=aot/<driver>-<mode>.aot
# to every later run of that driver and mode, which then starts about twice as fast. A cache is only valid for the
# JVM that made it (same build, same machine architecture, same class path), so each platform's runtime stage trains
# its own with its own JVM (emulated for a foreign platform: the cache holds classes and profiles, no machine code,
# and its JVM is the one real arm64 machines run).
# Only the driver's own node caches (node, node-registration): a controller runs without one (hack/build-aot.sh says
# why, measured). The training's IMDS stand-in is Python: the EBS image has none, so it gets python3 for this step
# alone, removed in the same step.
COPY hack/build-aot.sh hack/imds-standin.py /tmp/aot/
RUN combos="$(case "${DRIVER}" in all) echo ;; *) echo "${DRIVER}-node ${DRIVER}-node-registration" ;; esac)" \
 && if ! command -v python3 >/dev/null; then apt-get update && apt-get install -y --no-install-recommends python3 \
      && trap 'apt-get purge -y --auto-remove python3 && rm -rf /var/lib/apt/lists/*' EXIT; fi \
 && bash /tmp/aot/build-aot.sh /opt/aws-csi-driver ${combos} \
 && test -s "/opt/aws-csi-driver/aot/$(case "${DRIVER}" in all) echo ebs ;; *) echo "${DRIVER}" ;; esac)-node.aot" \
 && rm -rf /tmp/aot

LABEL org.opencontainers.image.title="aws-csi-driver-${DRIVER}" \
      org.opencontainers.image.description="Amazon ${DRIVER} CSI driver in Java (DRIVER=${DRIVER})" \
      io.awscsi.image.driver="${DRIVER}"
# tini is PID 1 and the driver its child: mount.efs starts an efs-proxy per mount and exits, the proxies and their
# helpers end as orphans of PID 1, and a JVM as PID 1 would never reap them (zombies fill the process table). tini
# reaps every orphan, forwards SIGTERM to the driver and exits with its exit code.
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/aws-csi-driver/bin/aws-csi-driver"]
