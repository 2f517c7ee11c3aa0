#!/usr/bin/env python3
"""Turns the chart as `helm template` renders it into host processes: the "host" way of running the driver on the
local cluster (e2e/kube-local/driver-host.sh). Nothing about the driver's pods is written a second time here: the
containers, their arguments, environment and service accounts come from the chart; what this adds is only what a
pod would get from the kubelet and a host process must be given:

  - paths: every volume of a pod becomes a directory of the host (emptyDir: a directory of that pod; hostPath: the
    same path with the kubelet's directory moved to the local kubelet's), and container paths in arguments and
    environment values are rewritten to them;
  - identity: each sidecar and plugin talks to the API server with a TokenRequest token of the pod's own service
    account (`--kubeconfig` for a sidecar, KUBECONFIG for the plugin), and the sidecars elect their leader in the
    release namespace (`--leader-election-namespace`, which a pod reads from its service-account mount);
  - the images: the driver image is the distribution under test, a sidecar image is the binary of that name built by
    build.sh; the livenessprobe and node-driver-registrar sidecars are not served by the Go module proxy, so the
    plugin's own health endpoint stands in for the first, the plugin's own kubelet registration
    (--kubelet-registration-path) for the second;
  - emulated AWS: the plugin gets the emulator's endpoints, EBS the loop-device backend, EFS the local stand-in;
  - ports: every listener on 127.0.0.1, each pod on its own port (pods on one host share one loopback).

Writes <out>/objects.yaml (every object except the workloads, to apply) and <out>/pods/<pod>.json (one hostpod spec
per replica, see cmd/hostpod) and prints one line per pod.
"""
import argparse
import json
import os
import re
import sys

import yaml

SIDECARS = {"csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter"}
NOT_SERVED = {"livenessprobe", "csi-node-driver-registrar"}
WORKLOADS = {"Deployment", "DaemonSet"}
# Objects a host process has no use for: they select pods that do not exist here.
SKIPPED = {"Service", "ServiceMonitor", "PodDisruptionBudget"}


def image_name(image):
    return image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]


def flag_value(args, flag):
    """The value of --flag in either form (--flag value, --flag=value); the last one wins, as the driver's parser."""
    value = None
    for i, x in enumerate(args):
        if x == flag and i + 1 < len(args):
            value = args[i + 1]
        elif x.startswith(flag + "="):
            value = x[len(flag) + 1:]
    return value


def without_flag(args, flag):
    out, skip = [], False
    for x in args:
        if skip:
            skip = False
        elif x == flag:
            skip = True
        elif not x.startswith(flag + "="):
            out.append(x)
    return out


def expand(value, env):
    """$(VAR) as the kubelet expands it in args: from the container's env, $$ escapes."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), value)


class Translator:
    def __init__(self, a, config_maps):
        self.a = a
        self.port = a.first_port
        self.config_maps = config_maps

    def next_port(self):
        self.port += 1
        return self.port - 1

    def host_path(self, path):
        if path == self.a.kubelet_path or path.startswith(self.a.kubelet_path.rstrip("/") + "/"):
            return self.a.kubelet_dir + path[len(self.a.kubelet_path.rstrip("/")):]
        if path.startswith("/dev"):
            return path
        # Any other host directory (EFS state, efs-utils configuration) stays inside the cluster's state.
        return os.path.join(self.a.state, "host") + path

    def volumes(self, pod_name, spec):
        dirs = {}
        for v in spec.get("volumes", []):
            if "emptyDir" in v:
                dirs[v["name"]] = os.path.join(self.a.state, "pods", pod_name, v["name"])
            elif "hostPath" in v:
                dirs[v["name"]] = self.host_path(v["hostPath"]["path"]).rstrip("/")
            else:
                raise SystemExit(f"{pod_name}: volume {v['name']} is neither emptyDir nor hostPath")
        return dirs

    def pod(self, kind, workload, replica):
        meta, tspec = workload["metadata"], workload["spec"]["template"]["spec"]
        name = f"{meta['name']}-{replica}" if kind == "Deployment" else f"{meta['name']}-{self.a.node_name}"
        namespace = meta.get("namespace", self.a.namespace)
        account = tspec.get("serviceAccountName", "default")
        kubeconfig = self.a.kubeconfigs[f"{namespace}/{account}"]
        dirs = self.volumes(name, tspec)
        containers, plugin_health, skipped, registrar_socket = [], None, [], None
        # The registrar first: the plugin takes over its registration when it is not served.
        for c in sorted(tspec["containers"], key=lambda c: image_name(c["image"]) != "csi-node-driver-registrar"):
            image = image_name(c["image"])
            if image in NOT_SERVED:
                skipped.append(c["name"])
                if image == "csi-node-driver-registrar":
                    # A host path as the kubelet sees it (the registrar tells the kubelet, it does not open it).
                    plain = {e["name"]: str(e["value"]) for e in c.get("env", []) if "value" in e}
                    socket = flag_value([expand(str(x), plain) for x in c.get("args", [])],
                                        "--kubelet-registration-path")
                    registrar_socket = self.host_path(socket) if socket else None
                continue
            mounts = sorted(((m["mountPath"].rstrip("/"), dirs[m["name"]]) for m in c.get("volumeMounts", [])),
                            key=lambda p: -len(p[0]))

            # One pass over every mount path, longest first, each only where a path starts (not inside another).
            by_path = dict(mounts)
            pattern = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(m) for m, _ in mounts) + r")(?=/|$|\s|,)") \
                if mounts else None

            def remap(value):
                if pattern:
                    value = pattern.sub(lambda m: by_path[m.group(1)], value)
                return value.replace("0.0.0.0:", "127.0.0.1:")

            # plain: the env as the container sees it, for $(VAR) expansion; env: the host process's, remapped.
            # Each value is remapped once, after expansion: a remapped path expanded into another value and
            # remapped again would be mapped twice wherever it starts like a mount path (a checkout below /tmp and
            # the chart's /tmp emptyDir).
            env, plain = {}, {}
            for e in c.get("env", []):
                source = e.get("valueFrom", {})
                if "value" in e:
                    plain[e["name"]] = expand(str(e["value"]), plain)
                    env[e["name"]] = remap(plain[e["name"]])
                elif source.get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
                    env[e["name"]] = plain[e["name"]] = self.a.node_name
                elif "configMapKeyRef" in source:
                    ref = source["configMapKeyRef"]
                    value = self.config_maps.get(ref["name"], {}).get(ref["key"])
                    if value is not None:
                        env[e["name"]] = plain[e["name"]] = value
                    elif not ref.get("optional"):
                        raise SystemExit(f"{name}/{c['name']}: env {e['name']} needs ConfigMap {ref['name']}"
                                         f" key {ref['key']}, which the chart does not render")
                else:
                    raise SystemExit(f"{name}/{c['name']}: env {e['name']} has a source this harness cannot give")
            args = [remap(expand(str(x), plain)) for x in c.get("args", [])]
            proc_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            if c["name"].endswith("-plugin"):
                driver = flag_value(args, "--driver")
                # Every replica on its own port: the chart's fixed port (one per pod network) would collide here.
                plugin_health = self.next_port()
                # The emulated driver (lib/local): loop devices and local directories in place of EC2 and EFS.
                command = [self.a.driver, "emulated"] + without_flag(args, "--http-endpoint") + [
                    "--http-endpoint", f"127.0.0.1:{plugin_health}"]
                if driver == "ebs":
                    command += ["--device-backend", "loop", "--loop-state-dir", self.a.loop_dir]
                else:
                    command += ["--efs-mount-backend", "local", "--efs-local-root", self.a.efs_root]
                if registrar_socket and flag_value(args, "--kubelet-registration-path") is None:
                    # The chart's sidecar layout: node-driver-registrar is not served here, so the plugin registers
                    # itself with the kubelet as the one-container layout (node.kubeletRegistration=builtin) does.
                    command += ["--kubelet-registration-path", registrar_socket,
                                "--plugin-registration-path", os.path.join(self.a.kubelet_dir, "plugins_registry")]
                proc_env.update(self.a.aws_env)
                proc_env["KUBECONFIG"] = kubeconfig
                proc_env["JAVA_HOME"] = os.environ.get("JAVA_HOME", "")
                proc_env["CSI_NODE_NAME"] = self.a.node_name
                # A pod with hostNetwork gets these from the kubelet; here they point at the API server on loopback.
                proc_env["KUBERNETES_SERVICE_HOST"] = "127.0.0.1"
                proc_env["KUBERNETES_SERVICE_PORT"] = str(self.a.api_port)
            elif image in SIDECARS:
                command = [os.path.join(self.a.bin, image)] + args + [
                    f"--kubeconfig={kubeconfig}", f"--leader-election-namespace={namespace}"]
                if not any(x.startswith("--http-endpoint") or x.startswith("--metrics-address") for x in args):
                    command.append(f"--http-endpoint=127.0.0.1:{self.next_port()}")
            else:
                raise SystemExit(f"{name}/{c['name']}: no host binary for image {c['image']}")
            proc_env.update(env)
            containers.append({"name": c["name"], "command": command,
                               "env": [f"{k}={v}" for k, v in proc_env.items()]})
        return {"name": name, "hostname": name, "namespace": namespace, "serviceAccount": account,
                "runDir": os.path.join(self.a.state, "run", "pods", name),
                "logDir": os.path.join(self.a.state, "logs", "pods-host", name),
                "graceSeconds": int(tspec.get("terminationGracePeriodSeconds", 30)),
                "healthPort": plugin_health, "directories": sorted(set(dirs.values())),
                "notServed": skipped, "containers": containers}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rendered", required=True, help="helm template output")
    p.add_argument("--out", required=True)
    p.add_argument("--state")
    p.add_argument("--bin")
    p.add_argument("--driver", help="the distribution's bin/aws-csi-driver")
    p.add_argument("--kubelet-path", default="/var/lib/kubelet", help="the chart's node.kubeletPath")
    p.add_argument("--kubelet-dir")
    p.add_argument("--loop-dir")
    p.add_argument("--efs-root")
    p.add_argument("--node-name")
    p.add_argument("--namespace", default="kube-system")
    p.add_argument("--api-port", type=int, default=6443)
    p.add_argument("--first-port", type=int, default=19800)
    p.add_argument("--aws-env", help="KEY=value file of the AWS emulator")
    p.add_argument("--kubeconfig", action="append", default=[], metavar="NS/SA=PATH")
    p.add_argument("--list-accounts", action="store_true", help="print the workloads' NS/SA and exit")
    a = p.parse_args()
    docs = [d for d in yaml.safe_load_all(open(a.rendered)) if d]
    workloads = [d for d in docs if d["kind"] in WORKLOADS]
    os.makedirs(os.path.join(a.out, "pods"), exist_ok=True)
    with open(os.path.join(a.out, "objects.yaml"), "w") as f:
        yaml.safe_dump_all([d for d in docs if d["kind"] not in WORKLOADS | SKIPPED], f, sort_keys=False)
    if a.list_accounts:
        for account in sorted({f"{w['metadata'].get('namespace', a.namespace)}/"
                               f"{w['spec']['template']['spec']['serviceAccountName']}" for w in workloads}):
            print(account)
        return
    a.kubeconfigs = dict(x.split("=", 1) for x in a.kubeconfig)
    a.aws_env = dict(line.split("=", 1) for line in open(a.aws_env).read().splitlines() if "=" in line)
    t = Translator(a, {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"})
    for w in workloads:
        replicas = w["spec"].get("replicas", 1) if w["kind"] == "Deployment" else 1
        for i in range(replicas):
            pod = t.pod(w["kind"], w, i)
            with open(os.path.join(a.out, "pods", pod["name"] + ".json"), "w") as f:
                json.dump(pod, f, indent=1)
            print(f"{pod['name']} {pod['healthPort']} {','.join(c['name'] for c in pod['containers'])}"
                  f" not-served:{','.join(pod['notServed']) or '-'}")


if __name__ == "__main__":
    sys.exit(main())
