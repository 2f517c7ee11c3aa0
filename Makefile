# The two commands of the README:
#   make run    builds the driver and runs it locally on emulated AWS (moto + IMDS emulator + loop devices)
#   make test   runs the whole test suite (unit, integration, csi-sanity for EBS and EFS, lifecycle run, chart)
SHELL := /bin/bash
JAVA_HOME ?= /usr/lib/jvm/temurin-25-jdk-amd64
export JAVA_HOME
export PATH := $(JAVA_HOME)/bin:$(CURDIR)/.tools/bin:$(PATH)
export GOBIN := $(CURDIR)/.tools/bin
export GOFLAGS := -mod=mod
MVN ?= mvn -B -ntp
DIST := dist/aws-csi-driver

IMAGE_REPO ?= localhost/aws-csi
IMAGE_TAG ?=
ARCH ?=
SIDECARS ?=

.PHONY: deps build build-aot image-sizes run test unit test-it sanity test-helm bench bench-controller bench-startup docs-diagnose-table readme-diagnose-table clean \
	cluster-build cluster-up cluster-down test-cluster test-chart-pods test-multinode test-cluster-1.32 soak image images sidecar-images busybox-image test-images

## deps: install what a fresh machine lacks, skipping what is present (`make test` adds the test-only parts)
deps:
	@bash hack/install-deps.sh

## build: a runnable distribution in dist/aws-csi-driver (bin/aws-csi-driver + lib/*.jar)
build:
	@command -v go >/dev/null || bash hack/install-deps.sh
	@rm -rf launcher/target/lib
	$(MVN) -q install -DskipTests
	@bash hack/assemble-dist.sh $(CURDIR)/$(DIST)

## build-aot: the JDK 25 AOT caches (dist/aws-csi-driver/aot/<driver>-<mode>.aot), one training run each; the image builds them too
build-aot: build
	@bash hack/build-aot.sh $(DIST)

## image: the driver images without a container engine, one per driver: .tools/images/aws-csi-driver-ebs.tar and
## aws-csi-driver-efs.tar (docker-archives named $(IMAGE_REPO)/aws-csi-driver-{ebs,efs}:$(IMAGE_TAG), default tag the
## driver's version) for `ctr -n k8s.io images import`, and the emulated test image (both drivers) the local cluster
## runs; each layer is rebuilt only when its inputs change (hack/image/build-driver-image.sh)
## ARCH=arm64 builds the arm64 images (.tools/images/aws-csi-driver-{ebs,efs}-arm64.tar, tag <version>-arm64) under emulation
image: build
	@bash hack/install-deps.sh --images
	@bash hack/image/build-driver-image.sh --repo $(IMAGE_REPO) $(if $(IMAGE_TAG),--tag $(IMAGE_TAG)) \
	  $(if $(ARCH),--arch $(ARCH)) $(DIST)

## image-sizes: each driver image's layers (root fs, jre, jars, AOT caches) as its tarball holds them, gzip -6 and -9,
## and the time `ctr -n k8s.io images import` takes into a containerd of its own (hack/image/image-sizes.sh)
image-sizes: image
	@bash hack/image/image-sizes.sh --import

## sidecar-images: a minimal image per static binary, e.g.
##   make sidecar-images SIDECARS="/path/csi-provisioner=csi-provisioner:v6.4.0 /path/pause=pause:1"
sidecar-images:
	@bash hack/install-deps.sh --images
	@bash hack/image/build-static-image.sh --repo $(IMAGE_REPO) $(SIDECARS)

## busybox-image: Debian's busybox-static as $(IMAGE_REPO)/busybox:<version>
busybox-image:
	@bash hack/install-deps.sh --images
	@bash hack/image/build-static-image.sh --repo $(IMAGE_REPO) --busybox

## images: the driver image, busybox, and the SIDECARS given
images: image busybox-image $(if $(SIDECARS),sidecar-images)

## test-images: each local driver image run in a chroot (hack/image/test-image-run.sh: its host tools, every mode with
## its AOT cache; ARCH=arm64: emulated) and held against the Dockerfile (LocalImageTest, DockerfileToolsTest,
## DockerfilePlatformsTest)
test-images: image
	@bash hack/image/test-image-run.sh $(if $(ARCH),$(ARCH),$(shell dpkg --print-architecture))
	$(MVN) -pl e2e -am test -Dtest='DockerfileToolsTest,DockerfilePlatformsTest,LocalImageTest,ImageArchiveTest' \
	  -Daws-csi.images=$(CURDIR)/.tools/images $(if $(ARCH),-Daws-csi.image-arch=$(ARCH)) \
	  -Dsurefire.failIfNoSpecifiedTests=false

## run: the driver's main job on embedded defaults (EBS and EFS on emulated AWS), then the lifecycle walkthrough
run: deps build
	$(DIST)/bin/aws-csi-driver local $(ARGS)

## test: the whole suite; prints one summary line and fails on any failure
test:
	@bash hack/install-deps.sh --test
	@bash hack/test-all.sh

## cluster-build: the local cluster's binaries (kube v1.37.2, the CSI sidecars) into .tools/kube-local; skipped when current
cluster-build:
	@bash e2e/kube-local/build.sh

## cluster-up / cluster-down: the local single-node Kubernetes with the driver on emulated AWS (e2e/kube-local)
cluster-up: build
	@bash e2e/kube-local/cluster.sh up

cluster-down:
	@bash e2e/kube-local/cluster.sh down

## test-chart-pods: the charts installed as pods (KUBE_LOCAL_DRIVER=chart, e2e/kube-local/driver-chart.sh) from the
##   local images: install, upgrade/rollback/uninstall, metrics, and the cluster cases below against the pods
CHART_PODS_TESTS := io.awscsi.e2e.cluster.ChartPodsTest,io.awscsi.e2e.cluster.ChartUpgradeTest,io.awscsi.e2e.cluster.ChartUpstreamUpgradeTest,io.awscsi.e2e.cluster.ChartUpstreamRealUpgradeTest,io.awscsi.e2e.cluster.EfsSharedVolumeTest,io.awscsi.e2e.cluster.EfsNodePluginRestartTest,io.awscsi.e2e.cluster.NetworkIsolationTest,io.awscsi.e2e.cluster.SoakTest
test-chart-pods: image
	@KUBE_LOCAL_DRIVER=chart CLUSTER_TESTS='$(CHART_PODS_TESTS)' CLUSTER_REPORTS=e2e/target/surefire-reports-pods \
	  CLUSTER_LOG=target-cluster-pods.log bash hack/test-cluster.sh

## test-multinode: three nodes (two in us-east-1a, one in us-east-1b; KUBE_LOCAL_NODES=3, e2e/kube-local README
##   "Many nodes") with the charts as pods: the cases where pods and volumes move between nodes. A named target, not
##   in `make test` (see README "Testing")
MULTINODE_TESTS := io.awscsi.e2e.cluster.NodeDrainTest,io.awscsi.e2e.cluster.MultiNodeTopologyTest,io.awscsi.e2e.cluster.NodeLostTest,io.awscsi.e2e.cluster.EfsSharedVolumeTest,io.awscsi.e2e.cluster.MultiAttachBlockTest,io.awscsi.e2e.cluster.VolumeAttachLimitTest
test-multinode: image
	@KUBE_LOCAL_NODES=3 KUBE_LOCAL_DRIVER=chart CLUSTER_TESTS='$(MULTINODE_TESTS)' \
	  CLUSTER_REPORTS=e2e/target/surefire-reports-multinode CLUSTER_LOG=target-cluster-multinode.log bash hack/test-cluster.sh

## test-cluster-1.32: the cluster suite's pods-mode flows on Kubernetes 1.32, the oldest minor EKS supports (kube
##   v1.32.13 of e2e/kube-local/build-minor.sh, KUBE_LOCAL_KUBE_VERSION=1.32; e2e/kube-local README "The oldest EKS
##   minor"): both charts installed by helm against that API server. A named target, not in `make test` (see README).
##   Not VolumeGroupSnapshotTest: in pods mode the loop backend's group snapshot freezes no file system (the controller
##   pod's mount namespace has none of the node's mounts), so its members are not one instant on any minor
MINOR_TESTS := io.awscsi.e2e.cluster.ChartPodsTest,io.awscsi.e2e.cluster.EbsVolumeTest,io.awscsi.e2e.cluster.SnapshotRestoreTest,io.awscsi.e2e.cluster.VolumeAttributesClassTest,io.awscsi.e2e.cluster.EfsSharedVolumeTest,io.awscsi.e2e.cluster.NetworkIsolationTest,io.awscsi.e2e.cluster.BlockVolumeTest
test-cluster-1.32: image
	@KUBE_LOCAL_KUBE_VERSION=1.32 KUBE_LOCAL_DRIVER=chart CLUSTER_TESTS='$(MINOR_TESTS)' \
	  CLUSTER_REPORTS=e2e/target/surefire-reports-1.32 CLUSTER_LOG=target-cluster-1.32.log bash hack/test-cluster.sh

## soak: the soak under faults on the local cluster with both drivers as pods (SoakTest, issue 29), long:
##   SOAK_MINUTES (default 30), SOAK_SEED (default 29; printed), SOAK_VOLUMES (4), SOAK_OP_SECONDS (2),
##   SOAK_FAULT_SECONDS (30); KUBE_LOCAL_NODES=3 runs it on three nodes (moves go to another node). Not part of
##   make test, which runs the 3-minute version on one node. Prints the ledger's table.
SOAK_MINUTES ?= 30
soak: image
	@SOAK_MINUTES=$(SOAK_MINUTES) KUBE_LOCAL_NODES=$(or $(KUBE_LOCAL_NODES),1) KUBE_LOCAL_DRIVER=chart CLUSTER_TESTS=io.awscsi.e2e.cluster.SoakTest \
	  CLUSTER_REPORTS=e2e/target/surefire-reports-soak CLUSTER_LOG=target-soak.log bash hack/test-cluster.sh
	@grep -h -A12 '^\[soak\] ledger' e2e/target/surefire-reports-soak/io.awscsi.e2e.cluster.SoakTest-output.txt || true

## test-cluster: the cluster part alone: cluster up, the cluster suite, cluster down
test-cluster: build
	@bash hack/test-cluster.sh

unit:
	$(MVN) test

sanity: build
	$(MVN) -q -pl e2e -am test -Dit=true -Dtest='CsiSanity*' -Dsurefire.failIfNoSpecifiedTests=false

test-helm:
	@bash helm/tests/run.sh

## bench-startup: node-mode time to first successful Probe and idle RSS (median of runs)
bench-startup: build-aot
	@bash hack/bench-startup.sh

## bench: node RSS under load, then the controllers at scale (EBS N=200/1,000/3,000 and a fault mix, EFS): one table,
## and a second with N=200 and 1,000 run alternately on the previous release (BENCH_BASELINE, default the newest tag v*
## or hack/bench-baseline) and this build, figures and ratios side by side (BENCH_UPSTREAM=1 adds upstream's EBS
## controller); ~30 min (see docs/benchmarks.md)
bench: build
	@bash hack/bench.sh

## bench-controller: the controller runs alone; RUNS=ebs:200,efs:500 picks them, BENCH_COMPARE the side-by-side ones
## (see hack/bench.sh)
bench-controller: build
	@SKIP_NODE_BENCH=1 bash hack/bench.sh

## docs-diagnose-table: rewrite docs/diagnose.md's "which log for which stage" table from diagnose's Knowledge
docs-diagnose-table:
	$(MVN) -q -pl diagnose -am test -Dtest=StageTableTest -Dsurefire.failIfNoSpecifiedTests=false -Ddiagnose.updateDocs=true

## readme-diagnose-table: the former name of docs-diagnose-table (the table moved from the README to docs/diagnose.md)
readme-diagnose-table: docs-diagnose-table

clean:
	$(MVN) -q clean
	rm -rf dist
