# syntax=docker/dockerfile:1
#
# One image for both drivers (EBS, EFS) and both modes (controller, node); arguments choose. Three stages:
#   efs-utils  builds amazon-efs-utils from source (mount.efs, efs-proxy, the watchdog), as upstream does
#   build      builds the driver with JDK 25, Maven and Go (the proto module downloads the CSI spec with Go),
#              then a jlink-trimmed Java runtime holding only the modules the driver uses
#   runtime    Debian slim with the host tools the node plugin runs (driver-core HostTool lists them; a test in
#              e2e checks that this file installs every one), the runtime, the driver and its AOT cache; tini as
#              PID 1, which reaps the orphaned children of mount.efs (hack/test-dist.sh runs this entrypoint as PID 1)
# Where no container engine runs, hack/image/build-driver-image.sh (`make image`) builds the same image from the same
# package list and scripts; e2e's LocalImageTest says how the two differ (amazon-efs-utils).

ARG DEBIAN_RELEASE=bookworm
ARG GO_VERSION=1.26
ARG EFS_UTILS_VERSION=v3.0.1

FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS go

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
FROM maven:3.9-eclipse-temurin-25 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends make \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 --mount=type=cache,target=/root/go/pkg/mod \
    make build
# The runtime keeps only the modules the jars need (jdeps) and a few reached without a static reference (the script
# says which; the local image build runs the same script). lib/local, the `local` subcommand's emulators, stays out.
RUN bash hack/image/jlink-runtime.sh dist/aws-csi-driver /opt/aws-csi-driver-jre \
 && rm -rf dist/aws-csi-driver/lib/local

# ---------------------------------------------------------------------------------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim AS runtime
# Host tools the node plugin runs (file systems, block devices, NVMe) and the dependencies of amazon-efs-utils: the
# one package list that the local image build (hack/image/build-driver-image.sh, no container engine) installs too.
COPY hack/image/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update \
 && sed -e 's/#.*//' /tmp/runtime-packages.txt | xargs apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt
COPY --from=efs-utils /out/amazon-efs-utils.deb /tmp/amazon-efs-utils.deb
RUN apt-get update \
 && apt-get install -y --no-install-recommends /tmp/amazon-efs-utils.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/amazon-efs-utils.deb \
 && (command -v stunnel >/dev/null || ln -s "$(command -v stunnel4)" /usr/local/bin/stunnel) \
 && mount.efs --version \
 && mv /etc/amazon/efs /etc/amazon/efs-static-files
# efs-utils reads /etc/amazon/efs: the EFS node makes it a link to the host directory the chart mounts
# (/var/amazon/efs), so client keys and config outlive the container, and restores the package's files kept above.

COPY --from=build /opt/aws-csi-driver-jre /opt/aws-csi-driver/jre
COPY --from=build /src/dist/aws-csi-driver/ /opt/aws-csi-driver/
ENV JAVA_HOME=/opt/aws-csi-driver/jre \
    PATH=/opt/aws-csi-driver/jre/bin:/opt/aws-csi-driver/bin:$PATH
# AOT caches (JDK 25), one per driver and mode: a training run of that very process (against a loopback IMDS
# stand-in) records the classes loaded and linked at start; the launcher passes -XX:AOTCache=aot/<driver>-<mode>.aot
# to every later run of that driver and mode, which then starts about twice as fast.
COPY hack/build-aot.sh hack/imds-standin.py /tmp/aot/
RUN bash /tmp/aot/build-aot.sh /opt/aws-csi-driver \
 && test -s /opt/aws-csi-driver/aot/ebs-node.aot \
 && rm -rf /tmp/aot

LABEL org.opencontainers.image.title="aws-csi-driver" \
      org.opencontainers.image.description="Amazon EBS and EFS CSI drivers (ebs.csi.aws.com, efs.csi.aws.com) in Java"
# tini is PID 1 and the driver its child: mount.efs starts an efs-proxy per mount and exits, the proxies and their
# helpers end as orphans of PID 1, and a JVM as PID 1 would never reap them (zombies fill the process table). tini
# reaps every orphan, forwards SIGTERM to the driver and exits with its exit code.
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/aws-csi-driver/bin/aws-csi-driver"]
