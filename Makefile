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

.PHONY: deps build build-aot run test unit test-it sanity test-helm bench bench-controller bench-startup clean

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

## run: the driver's main job on embedded defaults (EBS and EFS on emulated AWS), then the lifecycle walkthrough
run: deps build
	$(DIST)/bin/aws-csi-driver local $(ARGS)

## test: the whole suite; prints one summary line and fails on any failure
test:
	@bash hack/install-deps.sh --test
	@bash hack/test-all.sh

unit:
	$(MVN) test

sanity: build
	$(MVN) -q -pl e2e -am test -Dit=true -Dtest='CsiSanity*' -Dsurefire.failIfNoSpecifiedTests=false

test-helm:
	@bash helm/tests/run.sh

## bench-startup: node-mode time to first successful Probe and idle RSS (median of runs)
bench-startup: build-aot
	@bash hack/bench-startup.sh

## bench: node RSS under load, then the controllers at scale (EBS N=200/1,000/3,000 and a fault mix, EFS): one table
bench: build
	@bash hack/bench.sh

## bench-controller: the controller runs alone; RUNS=ebs:200,efs:500 picks them (see hack/bench.sh)
bench-controller: build
	@SKIP_NODE_BENCH=1 bash hack/bench.sh

clean:
	$(MVN) -q clean
	rm -rf dist
