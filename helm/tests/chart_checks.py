#!/usr/bin/env python3
"""Checks of the charts: aws-csi-driver (both drivers), aws-ebs-csi-driver and aws-efs-csi-driver (upstream's
values layouts), all three over the aws-csi-lib library.

For every value set in values/ (aws-csi-driver) and upstream/values/ (the chart its "# chart:" line names): render
with helm template, validate the manifests offline with kubeconform (Kubernetes schemas from the kubernetes-validate
package, CRD schemas from schemas/), and assert what matters for a CSI driver: node plugins privileged with
Bidirectional kubelet mounts, leader election on every controller sidecar, lease verbs in RBAC, no privileged
controller, the startup taint tolerated, Fargate and hybrid nodes excluded, host ports that do not clash. Then:
values.schema.json refuses invalid values; every upstream key's effect (upstream_checks.py); the render-level
upgrade test against the upstream-shaped fixtures; the IAM policies.

Prints one line per check and ends with "N passed, N failed"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import yaml

import upstream_checks
import upstream_compare

HERE = Path(__file__).resolve().parent
HELM_DIR = HERE.parent
CHART = HELM_DIR / "aws-csi-driver"
CHARTS = {name: HELM_DIR / name for name in ("aws-csi-driver", "aws-ebs-csi-driver", "aws-efs-csi-driver")}
VALUE_SETS = HERE / "values"
UPSTREAM_VALUE_SETS = HERE / "upstream" / "values"
# The driver's flag table (launcher Usage.SERVE), written by the launcher; its PluginFlagsFileTest keeps it current.
PLUGIN_FLAG_TABLE = HELM_DIR.parent / "docs" / "plugin-flags.json"
LIBRARY_COMMON = HELM_DIR / "aws-csi-lib" / "templates" / "_common.tpl"
CRD_SCHEMAS = HERE / "schemas"
# What `aws-csi-driver diagnose` reads: the rules its ClusterRole must grant, no more.
DIAGNOSE_READS = HELM_DIR.parent / "diagnose" / "src" / "main" / "resources" / "io" / "awscsi" / "diagnose" / \
    "api-reads.txt"
DEFAULT_KUBE_VERSION = "1.34.0"
RELEASE_NAMESPACE = "kube-system"

LEASE_VERBS = {"get", "watch", "list", "delete", "update", "create"}
CONTROLLER_SIDECARS = {"csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter"}


def launcher_flags() -> dict[str, dict]:
    """Every flag the plugin accepts (it refuses any other), by --name: the launcher's table, Usage.SERVE."""
    return {"--" + flag["name"]: flag for flag in json.loads(PLUGIN_FLAG_TABLE.read_text())["flags"]}


def library_flags() -> set[str]:
    """The flags the chart lets through to the plugin (aws-csi-lib awscsi.pluginFlags)."""
    text = LIBRARY_COMMON.read_text()
    block = re.search(r'define "awscsi.pluginFlags".*?toJson \(list (.*?)\)', text, re.S)
    return {"--" + name for name in re.findall(r'"([a-z0-9-]+)"', block.group(1))}


PLUGIN_FLAGS = launcher_flags()


@dataclass
class Results:
    passed: int = 0
    failed: int = 0

    def record(self, name: str, problems: list[str]) -> None:
        if problems:
            self.failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print(f"     {problem}")
        else:
            self.passed += 1
            print(f"PASS {name}")


@dataclass
class ValueSet:
    """A values file plus the helm arguments and Kubernetes version its header comments ask for."""

    path: Path
    kube_version: str = DEFAULT_KUBE_VERSION
    helm_args: list[str] = field(default_factory=list)
    chart: str = "aws-csi-driver"

    @staticmethod
    def load(path: Path) -> "ValueSet":
        value_set = ValueSet(path)
        for line in path.read_text().splitlines():
            if match := re.match(r"#\s*helm-args:\s*(.+)$", line):
                value_set.helm_args += match.group(1).split()
            elif match := re.match(r"#\s*kube-version:\s*(\S+)$", line):
                value_set.kube_version = match.group(1)
            elif match := re.match(r"#\s*chart:\s*(\S+)$", line):
                value_set.chart = match.group(1)
        return value_set

    @property
    def name(self) -> str:
        return self.path.stem if self.chart == "aws-csi-driver" else f"{self.chart}/{self.path.stem}"

    @property
    def values(self) -> dict:
        return yaml.safe_load(self.path.read_text()) or {}


class Tools:
    def __init__(self, helm: str, kubeconform: str):
        self.helm = helm
        self.kubeconform = kubeconform

    def template(self, kube_version: str, *args: str, chart: Path = CHART,
                 release: str | None = None) -> subprocess.CompletedProcess:
        return self.run(self.helm, "template", release or chart.name, str(chart), "--namespace", RELEASE_NAMESPACE,
                        "--kube-version", kube_version, *args)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        result = subprocess.run(list(args), capture_output=True, text=True, check=False)
        # Helm notes the charts/aws-csi-lib symlink on every load; not a problem.
        result.stderr = "\n".join(l for l in result.stderr.splitlines() if "found symbolic link in path" not in l)
        return result


# --- manifests ---------------------------------------------------------------------------------------------------

def objects(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d.get("kind") == kind]


def named(docs: list[dict], kind: str, name: str) -> dict | None:
    return next((d for d in objects(docs, kind) if d["metadata"]["name"] == name), None)


def pod_spec(workload: dict) -> dict:
    return workload["spec"]["template"]["spec"]


def containers(workload: dict) -> list[dict]:
    return pod_spec(workload)["containers"]


def has_plugin(workload: dict) -> bool:
    return any(c["name"] in ("ebs-plugin", "efs-plugin") for c in containers(workload))


def controllers(docs: list[dict]) -> list[dict]:
    return [d for d in objects(docs, "Deployment") if has_plugin(d)]


def node_daemonsets(docs: list[dict]) -> list[dict]:
    return [d for d in objects(docs, "DaemonSet") if has_plugin(d)]


def plugin(workload: dict) -> dict:
    return next(c for c in containers(workload) if c["name"].endswith("-plugin"))


def driver_of(workload: dict) -> str:
    return plugin(workload)["name"].split("-")[0]


def flag_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


# --- assertions on one rendered value set --------------------------------------------------------------------------

def check_drivers_rendered(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for driver in ("ebs", "efs"):
        enabled = values.get(driver, {}).get("enabled", driver == "ebs")
        for kind, name in (("Deployment", f"{driver}-csi-controller"), ("DaemonSet", f"{driver}-csi-node"),
                           ("CSIDriver", f"{driver}.csi.aws.com")):
            present = named(docs, kind, name) is not None
            if present != enabled:
                problems.append(f"{kind} {name}: present={present} but {driver}.enabled={enabled}")
    return problems


def check_node_plugins(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for ds in node_daemonsets(docs):
        name = ds["metadata"]["name"]
        spec = pod_spec(ds)
        container = plugin(ds)
        if not container.get("securityContext", {}).get("privileged"):
            problems.append(f"{name}: plugin container is not privileged")
        volumes = {v["name"]: v for v in spec["volumes"]}
        kubelet_mounts = [m for m in container["volumeMounts"]
                          if volumes.get(m["name"], {}).get("hostPath", {}).get("path", "").rstrip("/").endswith(
                              "kubelet")]
        if not kubelet_mounts:
            problems.append(f"{name}: plugin does not mount the kubelet directory")
        for mount in kubelet_mounts:
            if mount.get("mountPropagation") != "Bidirectional":
                problems.append(f"{name}: kubelet directory mounted with propagation {mount.get('mountPropagation')}")
        for other in containers(ds):
            if other is container:
                continue
            for mount in other.get("volumeMounts", []):
                if mount.get("mountPropagation") == "Bidirectional":
                    problems.append(f"{name}/{other['name']}: Bidirectional propagation outside the plugin")
        host_paths = {v.get("hostPath", {}).get("path") for v in spec["volumes"]}
        if driver_of(ds) == "ebs":
            if "/dev" not in host_paths:
                problems.append(f"{name}: /dev is not mounted")
            if spec.get("hostNetwork") and not values.get("node", {}).get("hostNetwork"):
                problems.append(f"{name}: EBS node in the host network unasked")
            pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
            if pre_stop[-1:] != ["pre-stop-hook"]:
                problems.append(f"{name}: no pre-stop-hook preStop, got {pre_stop}")
        else:
            if not spec.get("hostNetwork"):
                problems.append(f"{name}: EFS node must use the host network")
            if "/var/run/efs" not in host_paths:
                problems.append(f"{name}: efs-utils state dir /var/run/efs is not a hostPath")
        if not any(v.get("hostPath", {}).get("path", "").endswith("/plugins_registry/") for v in spec["volumes"]):
            problems.append(f"{name}: no kubelet plugin registration directory")
    return problems


def check_node_scheduling(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for ds in node_daemonsets(docs):
        name = ds["metadata"]["name"]
        spec = pod_spec(ds)
        taint = f"{driver_of(ds)}.csi.aws.com/agent-not-ready"
        tolerated = any(t.get("operator") == "Exists" and t.get("key") in (None, taint)
                        for t in spec.get("tolerations", []))
        if not tolerated:
            problems.append(f"{name}: the startup taint {taint} is not tolerated")
        terms = (spec.get("affinity", {}).get("nodeAffinity", {})
                 .get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", []))
        excluded = set()
        for term in terms:
            for expr in term.get("matchExpressions", []):
                if expr["key"] == "eks.amazonaws.com/compute-type" and expr["operator"] == "NotIn":
                    excluded.update(expr["values"])
        for compute_type in ("fargate", "hybrid"):
            if compute_type not in excluded:
                problems.append(f"{name}: {compute_type} nodes are not excluded (required affinity)")
        if spec.get("priorityClassName") != "system-node-critical":
            problems.append(f"{name}: priorityClassName {spec.get('priorityClassName')}")
    return problems


def node_ports(ds: dict) -> set[int]:
    ports = set()
    for container in containers(ds):
        ports.update(p["containerPort"] for p in container.get("ports", []))
        for arg in container.get("args", []):
            if match := re.match(r"--(?:health-port|http-endpoint)=(?:.*:)?(\d+)$", arg):
                ports.add(int(match.group(1)))
        if (endpoint := flag_value(container.get("args", []), "--http-endpoint")) is not None:
            ports.add(int(endpoint.rsplit(":", 1)[1]))
    return ports


def check_node_ports(docs: list[dict], values: dict) -> list[str]:
    """Node pods of both drivers run on every node. Those in the host network share the node's ports: no port may be
    used twice among them; within one pod no port twice either."""
    problems = []
    seen: dict[int, tuple[str, str]] = {}
    for ds in node_daemonsets(docs):
        name = ds["metadata"]["name"]
        own: list[int] = []
        for container in containers(ds):
            own += [p["containerPort"] for p in container.get("ports", [])]
        if len(own) != len(set(own)):
            problems.append(f"{name}: a port declared twice in one pod: {sorted(own)}")
        if not pod_spec(ds).get("hostNetwork"):
            continue
        # DaemonSets of one driver (additionalDaemonSets) are for disjoint node groups; the drivers share nodes.
        for port in node_ports(ds):
            if port in seen and seen[port][0] != driver_of(ds):
                problems.append(f"host port {port} used by both {seen[port][1]} and {name}")
            seen[port] = (driver_of(ds), name)
    return problems


def check_leader_election(docs: list[dict], values: dict) -> list[str]:
    """Every controller sidecar elects a leader, unless its values turn it off (upstream's leaderElection.enabled)."""
    problems = []
    sidecar_values = values.get("sidecars", {})
    for deployment in controllers(docs):
        sidecars = [c for c in containers(deployment) if c["name"] in CONTROLLER_SIDECARS]
        if not sidecars:
            problems.append(f"{deployment['metadata']['name']}: no controller sidecars")
        for sidecar in sidecars:
            key = {"csi-provisioner": "provisioner", "csi-attacher": "attacher", "csi-resizer": "resizer",
                   "csi-snapshotter": "snapshotter"}[sidecar["name"]]
            wanted = str(sidecar_values.get(key, {}).get("leaderElection", {}).get("enabled", True)).lower() != "false"
            args = sidecar.get("args", [])
            on = any(a in ("--leader-election", "--leader-election=true") for a in args)
            if on != wanted:
                problems.append(f"{deployment['metadata']['name']}/{sidecar['name']}: leader election {on}, "
                                f"values ask {wanted}")
    return problems


def check_controller_sidecars(docs: list[dict], values: dict, snapshots: bool) -> list[str]:
    problems = []
    for deployment in controllers(docs):
        name = deployment["metadata"]["name"]
        present = {c["name"] for c in containers(deployment)}
        if driver_of(deployment) == "ebs":
            expected = {"ebs-plugin", "csi-provisioner", "csi-attacher", "csi-resizer", "liveness-probe"}
            if snapshots:
                expected.add("csi-snapshotter")
        else:
            expected = {"efs-plugin", "csi-provisioner", "liveness-probe"}
        if present != expected:
            problems.append(f"{name}: containers {sorted(present)}, expected {sorted(expected)}")
        if deployment["spec"]["replicas"] != values.get("controller", {}).get("replicaCount", 2):
            problems.append(f"{name}: replicas {deployment['spec']['replicas']}")
        provisioner = next((c for c in containers(deployment) if c["name"] == "csi-provisioner"), None)
        if provisioner:
            args = provisioner["args"]
            for required in ("--extra-create-metadata", "--timeout=60s", "--worker-threads=100",
                             "--kube-api-qps=20", "--kube-api-burst=100"):
                if required not in args:
                    problems.append(f"{name}/csi-provisioner: missing {required}")
            if not any(a.startswith("--feature-gates=Topology=true") for a in args):
                problems.append(f"{name}/csi-provisioner: Topology feature gate missing")
            if driver_of(deployment) == "ebs" and "--default-fstype=ext4" not in args:
                problems.append(f"{name}/csi-provisioner: --default-fstype=ext4 missing")
        affinity = pod_spec(deployment).get("affinity", {})
        if "podAntiAffinity" not in affinity:
            problems.append(f"{name}: no pod anti-affinity")
        if pod_spec(deployment).get("priorityClassName") != "system-cluster-critical":
            problems.append(f"{name}: priorityClassName {pod_spec(deployment).get('priorityClassName')}")
    return problems


def check_controller_security(docs: list[dict], values: dict) -> list[str]:
    """No privileged controller container; the one exception is the EFS plugin asked to delete access point
    directories, which mounts the file system itself."""
    mount_allowed = values.get("controller", {}).get("deleteAccessPointRootDir", False)
    problems = []
    for deployment in controllers(docs):
        spec = pod_spec(deployment)
        if not spec.get("securityContext", {}).get("runAsNonRoot"):
            problems.append(f"{deployment['metadata']['name']}: pod not runAsNonRoot")
        for container in containers(deployment):
            where = f"{deployment['metadata']['name']}/{container['name']}"
            context = container.get("securityContext", {})
            exempt = mount_allowed and container["name"] == "efs-plugin"
            if context.get("privileged") and not exempt:
                problems.append(f"{where}: privileged")
            if exempt:
                continue
            if not context.get("readOnlyRootFilesystem"):
                problems.append(f"{where}: root file system is writable")
            if context.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{where}: privilege escalation allowed")
    if mount_allowed:
        efs = named(docs, "Deployment", "efs-csi-controller")
        if efs and not plugin(efs).get("securityContext", {}).get("privileged"):
            problems.append("efs-csi-controller: deleteAccessPointRootDir needs a privileged plugin")
    return problems


def check_controller_probes(docs: list[dict], values: dict) -> list[str]:
    """Liveness is the livenessprobe sidecar's /healthz (the CSI Probe: the process serves); readiness is the
    plugin's own /readyz on its --http-endpoint port (AWS answered its recent calls). A controller cut off from AWS
    turns unready and is not restarted. An operator's own probe (upstream's controller.*Probe values) wins."""
    overridden = values.get("controller", {})
    problems = []
    for deployment in controllers(docs):
        name = deployment["metadata"]["name"]
        p = plugin(deployment)
        endpoint = flag_value(p.get("args", []), "--http-endpoint")
        if not endpoint:
            problems.append(f"{name}: plugin has no --http-endpoint, so /readyz is not served")
            continue
        port = int(endpoint.rsplit(":", 1)[1])
        ready = p.get("readinessProbe", {}).get("httpGet", {})
        if not overridden.get("readinessProbe") and (ready.get("path") != "/readyz" or ready.get("port") != port):
            problems.append(f"{name}: readiness probe {ready} is not /readyz on the plugin's port {port}")
        live = p.get("livenessProbe", {}).get("httpGet", {})
        if not overridden.get("livenessProbe") and (live.get("path") != "/healthz" or live.get("port") != "healthz"):
            problems.append(f"{name}: liveness probe {live} is not the livenessprobe sidecar's /healthz")
    return problems


def role_bound_to(docs: list[dict], kind: str, role_kind: str, subject: str) -> list[dict]:
    roles = []
    for binding in objects(docs, kind):
        if any(s.get("name") == subject for s in binding.get("subjects", [])):
            role = named(docs, role_kind, binding["roleRef"]["name"])
            if role:
                roles.append(role)
    return roles


def check_lease_rbac(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for deployment in controllers(docs):
        account = pod_spec(deployment)["serviceAccountName"]
        roles = role_bound_to(docs, "RoleBinding", "Role", account)
        verbs = set()
        for role in roles:
            for rule in role["rules"]:
                if "coordination.k8s.io" in rule["apiGroups"] and "leases" in rule["resources"]:
                    verbs.update(rule["verbs"])
        if missing := LEASE_VERBS - verbs:
            problems.append(f"{account}: lease verbs missing {sorted(missing)}")
    return problems


def granted(docs: list[dict], account: str) -> set[tuple[str, str, str]]:
    """(apiGroup, resource, verb) triples granted by ClusterRoles bound to a service account."""
    triples = set()
    for role in role_bound_to(docs, "ClusterRoleBinding", "ClusterRole", account):
        for rule in role["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        triples.add((group, resource, verb))
    return triples


def check_rbac(docs: list[dict], values: dict) -> list[str]:
    problems = []
    accounts = {sa["metadata"]["name"] for sa in objects(docs, "ServiceAccount")}
    for binding in objects(docs, "ClusterRoleBinding") + objects(docs, "RoleBinding"):
        role_kind = binding["roleRef"]["kind"]
        if not named(docs, role_kind, binding["roleRef"]["name"]):
            problems.append(f"{binding['metadata']['name']}: {role_kind} {binding['roleRef']['name']} not rendered")
        for subject in binding["subjects"]:
            if subject.get("kind", "ServiceAccount") != "ServiceAccount" or \
                    subject.get("namespace", RELEASE_NAMESPACE) != RELEASE_NAMESPACE:
                continue  # users, groups, accounts elsewhere (the diagnose role's subjects) are not the chart's
            if subject["name"] not in accounts and values.get("controller", {}).get("serviceAccount", {}).get(
                    "create", True) and values.get("node", {}).get("serviceAccount", {}).get("create", True):
                problems.append(f"{binding['metadata']['name']}: service account {subject['name']} not rendered")
    needs = {
        ("ebs", "controller"): [("", "persistentvolumes", "create"), ("", "persistentvolumeclaims", "update"),
                                ("storage.k8s.io", "volumeattachments", "patch"),
                                ("storage.k8s.io", "volumeattachments/status", "patch"),
                                ("", "persistentvolumeclaims/status", "patch"), ("", "events", "create"),
                                ("", "nodes", "get"), ("storage.k8s.io", "csinodes", "get")],
        ("efs", "controller"): [("", "persistentvolumes", "create"), ("", "persistentvolumes", "delete"),
                                ("", "events", "create"), ("storage.k8s.io", "csinodes", "get")],
        ("ebs", "node"): [("", "nodes", "get"), ("storage.k8s.io", "volumeattachments", "list")],
        ("efs", "node"): [("", "nodes", "get")],
    }
    # controller.fileSystemIdRefs.enabled (combined and EFS chart): the EFS controller reads the ConfigMap or Secret a
    # StorageClass's fileSystemIdConfigRef / fileSystemIdSecretRef names, in any namespace: get, and only get.
    refs = str(values.get("controller", {}).get("fileSystemIdRefs", {}).get("enabled", False)).lower() == "true"
    for workload in controllers(docs) + node_daemonsets(docs):
        component = "controller" if workload["kind"] == "Deployment" else "node"
        account = pod_spec(workload)["serviceAccountName"]
        required = list(needs[(driver_of(workload), component)])
        env = {e["name"] for e in plugin(workload).get("env", [])}
        if component == "node" and "DISABLE_TAINT_WATCHER" not in env:
            required.append(("", "nodes", "patch"))
        id_refs = refs and (driver_of(workload), component) == ("efs", "controller")
        if id_refs:
            required += [("", "configmaps", "get"), ("", "secrets", "get")]
        have = granted(docs, account)
        for triple in required:
            if triple not in have:
                problems.append(f"{account}: not granted {triple}")
        if component == "node" and "DISABLE_TAINT_WATCHER" in env and ("", "nodes", "patch") in have:
            problems.append(f"{account}: may patch nodes although the taint watcher is off")
        for group, resource, verb in have:
            if (resource == "secrets" and not (id_refs and verb == "get")) or verb == "*" or resource == "*":
                problems.append(f"{account}: broader than needed: {verb} {resource}")
    if not refs and named(docs, "ClusterRole", "efs-csi-filesystem-id-reader-role"):
        problems.append("efs-csi-filesystem-id-reader-role rendered without controller.fileSystemIdRefs.enabled")
    # Grants on secrets: EFS cross-account provisioning, by name, through a RoleBinding in one namespace; and, with
    # fileSystemIdRefs, get on any Secret for the EFS controller.
    for role in objects(docs, "ClusterRole") + objects(docs, "Role"):
        for rule in role["rules"]:
            if "secrets" in rule.get("resources", []) or "*" in rule.get("resources", []):
                name = role["metadata"]["name"]
                if name == "efs-csi-filesystem-id-reader-role" and refs:
                    if set(rule["verbs"]) != {"get"} or "*" in rule["resources"]:
                        problems.append(f"{name}: more than get on ConfigMaps and Secrets: {rule}")
                elif name != "efs-csi-external-provisioner-role-describe-secrets":
                    problems.append(f"{role['kind']} {name}: grants secrets")
                elif not rule.get("resourceNames") or set(rule["verbs"]) - {"get", "watch", "list"}:
                    problems.append(f"{name}: secrets not limited to named secrets, read only")
    for binding in objects(docs, "ClusterRoleBinding"):
        if binding["roleRef"]["name"] == "efs-csi-external-provisioner-role-describe-secrets":
            problems.append(f"{binding['metadata']['name']}: the secrets role bound cluster-wide")
    return problems


def diagnose_reads() -> set[tuple[str, str, str]]:
    """(apiGroup, resource, verb) of every read of `aws-csi-driver diagnose` (its api-reads.txt)."""
    triples = set()
    for line in DIAGNOSE_READS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        group, resource, verbs = line.split()
        for verb in verbs.split(","):
            triples.add(("" if group == '""' else group, resource, verb))
    return triples


def check_diagnose_role(docs: list[dict], values: dict) -> list[str]:
    """The diagnose ClusterRole: absent unless diagnose.clusterRole.create; then exactly the command's reads, bound to
    the subjects given (no binding without them)."""
    wanted = (values.get("diagnose") or {}).get("clusterRole") or {}
    name = wanted.get("name") or None
    roles = [r for r in objects(docs, "ClusterRole")
             if r["metadata"]["name"] == name or (not name and r["metadata"]["name"].endswith("-diagnose"))]
    if not wanted.get("create"):
        return [f"ClusterRole {r['metadata']['name']} rendered, but diagnose.clusterRole.create is off" for r in roles]
    if len(roles) != 1:
        return [f"one diagnose ClusterRole expected, got {[r['metadata']['name'] for r in roles]}"]
    role = roles[0]
    have = {(g, res, v) for rule in role["rules"] for g in rule["apiGroups"] for res in rule["resources"]
            for v in rule["verbs"]}
    problems = []
    if missing := diagnose_reads() - have:
        problems.append(f"{role['metadata']['name']}: diagnose reads, but is not granted {sorted(missing)}")
    if extra := have - diagnose_reads():
        problems.append(f"{role['metadata']['name']}: grants what diagnose never reads {sorted(extra)}")
    if writes := {v for _, _, v in have} - {"get", "list", "watch"}:
        problems.append(f"{role['metadata']['name']}: not read-only: {sorted(writes)}")
    bindings = [b for b in objects(docs, "ClusterRoleBinding") if b["roleRef"]["name"] == role["metadata"]["name"]]
    subjects = wanted.get("subjects") or []
    if subjects and (len(bindings) != 1 or bindings[0]["subjects"] != subjects):
        problems.append(f"bound as {[b['subjects'] for b in bindings]}, asked for {subjects}")
    if not subjects and bindings:
        problems.append(f"bound to {bindings[0]['subjects']} although no subjects were given")
    return problems


def check_service_accounts(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for driver in ("ebs", "efs"):
        for component in ("controller", "node"):
            settings = values.get(driver, {}).get(component, {}).get("serviceAccount", {})
            name = settings.get("name", f"{driver}-csi-{component}-sa")
            account = named(docs, "ServiceAccount", name)
            if account is None:
                continue
            annotation = account["metadata"].get("annotations", {}).get("eks.amazonaws.com/role-arn")
            if annotation != (settings.get("roleArn") or None):
                problems.append(f"{name}: role-arn annotation {annotation!r}, roleArn {settings.get('roleArn')!r}")
    return problems


BOOLEAN_VALUES = {"true", "false", "1", "0", "yes", "no"}


def flag_shape_problems(args: list[str]) -> list[str]:
    """Each --flag of a plugin's args against the launcher's table, read as its parser (Flags.parse) reads them:
    known, a value where the flag takes one (--name=value or the next argument), none or true/false where it takes
    none, and one of its choices where it names them."""
    problems = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("--"):
            continue
        name, eq, value = arg.partition("=")
        flag = PLUGIN_FLAGS.get(name)
        if flag is None:
            problems.append(f"flag {arg} is not in the driver's command line")
            continue
        if not flag["takesValue"]:
            if eq and value.lower() not in BOOLEAN_VALUES:
                problems.append(f"flag {arg} takes true or false")
            continue
        if not eq:
            if i >= len(args):
                problems.append(f"flag {arg} needs a value ({flag['value']})")
                continue
            value = args[i]
            i += 1
        if flag["choices"] and value not in flag["choices"]:
            problems.append(f"flag {name} {value!r} is not one of {flag['choices']}")
    return problems


def check_plugin_args(docs: list[dict], values: dict) -> list[str]:
    problems = []
    for workload in controllers(docs) + node_daemonsets(docs):
        container = plugin(workload)
        args = container["args"]
        where = workload["metadata"]["name"]
        problems += [f"{where}: {problem}" for problem in flag_shape_problems(args)]
        if flag_value(args, "--driver") != driver_of(workload):
            problems.append(f"{where}: --driver {flag_value(args, '--driver')}")
        mode = "controller" if workload["kind"] == "Deployment" else "node"
        if flag_value(args, "--mode") != mode:
            problems.append(f"{where}: --mode {flag_value(args, '--mode')}")
        env = {e["name"]: e for e in container.get("env", [])}
        if "CSI_ENDPOINT" not in env:
            problems.append(f"{where}: CSI_ENDPOINT not set")
        if mode == "node" and "CSI_NODE_NAME" not in env:
            problems.append(f"{where}: CSI_NODE_NAME not set")
        resources = container.get("resources", {})
        # EBS: upstream's chart sets a request and a limit; EFS: upstream's sets none (efs-proxy runs one process per
        # mount in the node plugin: an OOM kill would stall every mount on the node).
        if driver_of(workload) == "ebs" and (not resources.get("requests", {}).get("memory") or
                                             not resources.get("limits", {}).get("memory")):
            problems.append(f"{where}: plugin memory request/limit missing")
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        if "/tmp" not in mounts:
            problems.append(f"{where}: no writable /tmp for the JVM")
    node_values = values.get("node", {})
    for efs_node in [d for d in node_daemonsets(docs) if driver_of(d) == "efs"]:
        args = plugin(efs_node)["args"]
        where = efs_node["metadata"]["name"]
        # The driver counts --max-inflight-mount-calls only with the opt-in, as upstream.
        # (upstream's EFS chart: only with node.maxInflightMountCallsOptIn; the combined chart: the limit opts in)
        limit = node_values.get("maxInflightMountCalls")
        opt_in = node_values.get("maxInflightMountCallsOptIn", limit is not None)
        if opt_in and ("--max-inflight-mount-calls-opt-in" not in args or
                       (limit is not None and flag_value(args, "--max-inflight-mount-calls") != str(limit))):
            problems.append(f"{where}: maxInflightMountCalls {limit}, args {args}")
        if node_values.get("maxInflightMountCallsOptIn") is False and "--max-inflight-mount-calls-opt-in" in args:
            problems.append(f"{where}: opted in although maxInflightMountCallsOptIn is false")
        if (flag_value(args, "--efs-utils-conf-overrides") or "") != node_values.get("efsUtilsConfOverrides", ""):
            problems.append(f"{where}: --efs-utils-conf-overrides {flag_value(args, '--efs-utils-conf-overrides')}")
    tags = values.get("controller", {}).get("extraVolumeTags")
    ebs = named(docs, "Deployment", "ebs-csi-controller")
    if tags and ebs:
        expected = ",".join(f"{k}={v}" for k, v in sorted(tags.items()))
        if flag_value(plugin(ebs)["args"], "--extra-tags") != expected:
            problems.append(f"ebs-csi-controller: --extra-tags {flag_value(plugin(ebs)['args'], '--extra-tags')}")
    return problems


def check_csi_drivers(docs: list[dict], values: dict) -> list[str]:
    problems = []
    expectations = {
        "ebs.csi.aws.com": {"attachRequired": True, "podInfoOnMount": False,
                            "fsGroupPolicy": None if values.get("useOldCSIDriver") else "File"},
        "efs.csi.aws.com": {"attachRequired": False, "fsGroupPolicy": None},
    }
    for name, expected in expectations.items():
        driver = named(docs, "CSIDriver", name)
        if driver is None:
            continue
        for key, value in expected.items():
            if driver["spec"].get(key) != value:
                problems.append(f"{name}: {key}={driver['spec'].get(key)!r}, expected {value!r}")
    return problems


EFS_PARAMETERS = {"provisioningMode", "fileSystemId", "directoryPerms", "gidRangeStart", "gidRangeEnd", "basePath",
                  "subPathPattern", "ensureUniqueDirectory", "reuseAccessPoint", "uid", "gid", "az"}


def expected_class_driver(entry: dict, values: dict) -> str:
    if entry.get("driver"):
        return entry["driver"]
    if entry.get("provisioner"):
        return entry["provisioner"].split(".")[0]
    if set(entry.get("parameters", {})) & EFS_PARAMETERS:
        return "efs"
    return "ebs"


def check_classes(docs: list[dict], values: dict, snapshots: bool) -> list[str]:
    """Classes of aws-csi-driver: none by default (as upstream), gp3 / ebs-vsc / efs-sc when asked, and each
    storageClasses entry for the driver it names or its parameters belong to, never silently the other one."""
    problems = []
    ebs_enabled = values.get("ebs", {}).get("enabled", True)
    efs_enabled = values.get("efs", {}).get("enabled", False)
    default_sc = values.get("defaultStorageClass", {})
    name = default_sc.get("name", "ebs-csi-default-sc")
    gp3 = named(docs, "StorageClass", name)
    if ebs_enabled and default_sc.get("enabled"):
        if gp3 is None:
            problems.append(f"defaultStorageClass.enabled but no {name} StorageClass")
        else:
            if gp3.get("provisioner") != "ebs.csi.aws.com" or \
                    gp3.get("parameters", {}) != {k: str(v) for k, v in (default_sc.get("parameters") or {}).items()}:
                problems.append(f"{name}: provisioner {gp3.get('provisioner')} parameters {gp3.get('parameters')}")
            if gp3.get("allowVolumeExpansion") is not True:
                problems.append(f"{name}: allowVolumeExpansion is not true")
            if gp3.get("volumeBindingMode") != "WaitForFirstConsumer":
                problems.append(f"{name}: volumeBindingMode {gp3.get('volumeBindingMode')}")
            if gp3["metadata"].get("annotations", {}).get("storageclass.kubernetes.io/is-default-class") != "true":
                problems.append(f"{name}: not marked as the default class")
    elif gp3 is not None and name == "ebs-csi-default-sc":
        problems.append(f"{name} rendered although defaultStorageClass.enabled is false (upstream renders no class)")
    file_system = values.get("efsStorageClass", {}).get("fileSystemId")
    efs_class = named(docs, "StorageClass", "efs-sc")
    if efs_enabled and file_system:
        if efs_class is None:
            problems.append("EFS StorageClass efs-sc missing")
        elif efs_class["parameters"].get("fileSystemId") != file_system or \
                efs_class["parameters"].get("provisioningMode") != "efs-ap":
            problems.append(f"efs-sc: parameters {efs_class['parameters']}")
    elif efs_class is not None:
        problems.append("efs-sc rendered without efs.enabled and a fileSystemId")
    for entry in values.get("storageClasses", []):
        rendered = named(docs, "StorageClass", entry["name"])
        driver = expected_class_driver(entry, values)
        if not (ebs_enabled if driver == "ebs" else efs_enabled):
            if rendered is not None:
                problems.append(f"StorageClass {entry['name']} rendered for {driver}, which is not enabled")
            continue
        if rendered is None:
            problems.append(f"StorageClass {entry['name']} missing")
            continue
        if rendered["provisioner"] != f"{driver}.csi.aws.com":
            problems.append(f"{entry['name']}: provisioner {rendered['provisioner']}, expected {driver}.csi.aws.com")
        binding = entry.get("volumeBindingMode", "WaitForFirstConsumer" if driver == "ebs" else "Immediate")
        if rendered["volumeBindingMode"] != binding:
            problems.append(f"{entry['name']}: volumeBindingMode {rendered['volumeBindingMode']}, expected {binding}")
        if driver == "efs" and "allowVolumeExpansion" in rendered and "allowVolumeExpansion" not in entry:
            problems.append(f"{entry['name']}: EFS class with allowVolumeExpansion nobody asked for")
    snapshot_classes = objects(docs, "VolumeSnapshotClass")
    if ebs_enabled and snapshots:
        names = {c["metadata"]["name"] for c in snapshot_classes}
        expected_names = {c["name"] for c in values.get("volumeSnapshotClasses", [])}
        if values.get("defaultVolumeSnapshotClass", {}).get("enabled"):
            expected_names.add("ebs-vsc")
        if names != expected_names:
            problems.append(f"VolumeSnapshotClasses {sorted(names)}, expected {sorted(expected_names)}")
        for snapshot_class in snapshot_classes:
            if snapshot_class.get("driver") != "ebs.csi.aws.com":
                problems.append(f"{snapshot_class['metadata']['name']}: driver {snapshot_class.get('driver')}")
    elif snapshot_classes:
        problems.append("VolumeSnapshotClass rendered although the snapshot API is neither served nor forced")
    return problems


def check_disruption_budgets(docs: list[dict], values: dict) -> list[str]:
    problems = []
    pdb = values.get("controller", {}).get("podDisruptionBudget", {})
    if not pdb.get("enabled", True):
        return problems
    budgets = objects(docs, "PodDisruptionBudget")
    for deployment in controllers(docs):
        # upstream's EFS chart (and this one's) makes none unless asked
        if driver_of(deployment) == "efs" and "enabled" not in pdb and not budgets:
            continue
        labels = deployment["spec"]["selector"]["matchLabels"]
        if not any(b["spec"]["selector"]["matchLabels"] == labels for b in budgets):
            problems.append(f"{deployment['metadata']['name']}: no PodDisruptionBudget selects it")
    return problems


def check_metrics(docs: list[dict], values: dict) -> list[str]:
    """Metrics Services select a workload and name ports it declares; a ServiceMonitor selects a Service that has
    the ports it scrapes."""
    problems = []
    services = objects(docs, "Service")
    for monitor in objects(docs, "ServiceMonitor"):
        labels = monitor["spec"]["selector"]["matchLabels"]
        selected = [s for s in services if all(s["metadata"].get("labels", {}).get(k) == v for k, v in labels.items())]
        if not selected:
            problems.append(f"ServiceMonitor {monitor['metadata']['name']}: selects no Service")
        ports = {p["name"] for s in selected for p in s["spec"]["ports"]} | \
            {p.get("targetPort") for s in selected for p in s["spec"]["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            # upstream EBS names the target port (a number), upstream EFS the Service port
            port = endpoint.get("port", endpoint.get("targetPort"))
            if port not in ports:
                problems.append(f"{monitor['metadata']['name']}: endpoint port {port} has no Service port")
    for service in services:
        selector = service["spec"]["selector"]
        targets = [w for w in controllers(docs) + node_daemonsets(docs)
                   if all(w["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in selector.items())]
        if not targets:
            problems.append(f"Service {service['metadata']['name']}: selects no workload")
        for port in service["spec"]["ports"]:
            names = {p["name"] for w in targets for c in containers(w) for p in c.get("ports", [])} | \
                {p["containerPort"] for w in targets for c in containers(w) for p in c.get("ports", [])}
            if port["targetPort"] not in names:
                problems.append(f"Service {service['metadata']['name']}: targetPort {port['targetPort']} not declared")
        annotations = service["metadata"].get("annotations", {})
        if annotations.get("prometheus.io/scrape") == "true" and \
                int(annotations.get("prometheus.io/port", 0)) not in {p["port"] for p in service["spec"]["ports"]}:
            problems.append(f"Service {service['metadata']['name']}: prometheus.io/port is none of its ports")
    return problems


def check_service_monitor_wanted(docs: list[dict], values: dict) -> list[str]:
    monitors = objects(docs, "ServiceMonitor")
    wanted = values.get("serviceMonitor", {}).get("enabled", False) and (
        values.get("controller", {}).get("enableMetrics") or values.get("node", {}).get("enableMetrics"))
    return [] if bool(wanted) == bool(monitors) else [
        f"ServiceMonitor rendered={bool(monitors)}, serviceMonitor.enabled and metrics={bool(wanted)}"]


PINNED = {"csi-provisioner": "v6.4.0", "csi-attacher": "v4.13.0", "csi-resizer": "v2.3.0", "csi-snapshotter": "v8.7.0"}
# The upstream-layout charts default to upstream's own images (issue 26 item 1), read from upstream's values.yaml.
PINNED_UPSTREAM = {
    "aws-ebs-csi-driver": {"csi-provisioner": "public.ecr.aws/csi-components/csi-provisioner:v6.3.0-eksbuild.4",
                           "csi-attacher": "public.ecr.aws/csi-components/csi-attacher:v4.12.0-eksbuild.5",
                           "csi-resizer": "public.ecr.aws/csi-components/csi-resizer:v2.2.1-eksbuild.3",
                           "csi-snapshotter": "public.ecr.aws/csi-components/csi-snapshotter:v8.6.0-eksbuild.5",
                           "liveness-probe": "public.ecr.aws/csi-components/livenessprobe:v2.19.0-eksbuild.5"},
    "aws-efs-csi-driver": {"csi-provisioner": "public.ecr.aws/csi-components/csi-provisioner:v6.3.0-eksbuild.2",
                           "liveness-probe": "public.ecr.aws/csi-components/livenessprobe:v2.19.0-eksbuild.3"},
}


def check_pinned_images(tools: "Tools", chart: Path) -> list[str]:
    """The sidecar versions the local cluster suite runs (issue 15 item 8), in every chart's defaults."""
    result = tools.template(DEFAULT_KUBE_VERSION, "--set", "sidecars.snapshotter.forceEnable=true", chart=chart)
    problems = [] if result.returncode == 0 else [result.stderr]
    seen = set()
    for workload in controllers(parse(result.stdout)) if not problems else []:
        for c in containers(workload):
            if chart.name in PINNED_UPSTREAM:
                if c["name"] in PINNED_UPSTREAM[chart.name]:
                    seen.add(c["name"])
                    if c["image"] != PINNED_UPSTREAM[chart.name][c["name"]]:
                        problems.append(f"{workload['metadata']['name']}/{c['name']}: {c['image']}")
            elif c["name"] in PINNED:
                seen.add(c["name"])
                if not c["image"].endswith(":" + PINNED[c["name"]]):
                    problems.append(f"{workload['metadata']['name']}/{c['name']}: {c['image']}")
    expected = set(PINNED_UPSTREAM.get(chart.name, PINNED))
    return problems + ([f"sidecars not rendered: {sorted(expected - seen)}"] if expected - seen else [])


def check_driver_images(tools: "Tools", chart: Path, *extra: str, registry: str = "") -> list[str]:
    """Each driver's plugin containers run that driver's own image by default (issue 30 item 4): aws-csi-driver-ebs
    for the EBS workloads, aws-csi-driver-efs for the EFS ones (the combined chart too, prefixed by
    image.containerRegistry when set)."""
    result = tools.template(DEFAULT_KUBE_VERSION, *extra, chart=chart)
    if result.returncode != 0:
        return [result.stderr]
    problems, seen = [], set()
    for workload in controllers(parse(result.stdout)):
        driver = workload["metadata"]["name"][:3]
        for c in containers(workload):
            if "aws-csi-driver" in c["image"]:
                seen.add(driver)
                if not c["image"].startswith(f"{registry}aws-csi-driver-{driver}:"):
                    problems.append(f"{workload['metadata']['name']}/{c['name']}: {c['image']}")
    expected = {"ebs", "efs"} if chart.name == "aws-csi-driver" else {chart.name[4:7]}
    return problems + ([f"no driver image rendered for {sorted(expected - seen)}"] if expected - seen else [])


def registers_itself(ds: dict) -> bool:
    """The node plugin serves the kubelet registration itself (node.kubeletRegistration builtin)."""
    return flag_value(plugin(ds)["args"], "--kubelet-registration-path") is not None


def check_kubelet_registration(docs: list[dict], values: dict) -> list[str]:
    """sidecar: node-driver-registrar and livenessprobe beside the plugin. builtin: the plugin alone registers itself
    on the kubelet's plugins_registry with the CSI socket path the kubelet sees, and its probes reach the plugin's own
    /healthz (liveness) and /readyz (ready once the kubelet registered it)."""
    problems = []
    node = values.get("node", {})
    builtin = node.get("kubeletRegistration", "sidecar") == "builtin"
    kubelet = node.get("kubeletPath", "/var/lib/kubelet").rstrip("/")
    for ds in node_daemonsets(docs):
        name = ds["metadata"]["name"]
        spec = pod_spec(ds)
        container = plugin(ds)
        args = container["args"]
        names = [c["name"] for c in containers(ds)]
        if not builtin:
            if len(names) < 3 or not any("registrar" in n for n in names) or "liveness-probe" not in names:
                problems.append(f"{name}: sidecar registration without its sidecars: {names}")
            if registers_itself(ds):
                problems.append(f"{name}: the plugin registers itself although the registrar does")
            continue
        if names != [container["name"]]:
            problems.append(f"{name}: builtin registration should be one container, got {names}")
        expected = f"{kubelet}/plugins/{driver_of(ds)}.csi.aws.com/csi.sock"
        if flag_value(args, "--kubelet-registration-path") != expected:
            problems.append(f"{name}: --kubelet-registration-path {flag_value(args, '--kubelet-registration-path')},"
                            f" expected {expected}")
        volumes = {v["name"]: v for v in spec["volumes"]}
        registry_mounts = {m["mountPath"] for m in container["volumeMounts"]
                           if volumes.get(m["name"], {}).get("hostPath", {}).get("path", "").rstrip("/")
                           == f"{kubelet}/plugins_registry"}
        if flag_value(args, "--plugin-registration-path") not in registry_mounts:
            problems.append(f"{name}: --plugin-registration-path {flag_value(args, '--plugin-registration-path')}"
                            f" is not where plugins_registry is mounted ({sorted(registry_mounts)})")
        ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
        endpoint = flag_value(args, "--http-endpoint")
        for kind, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            probe = container.get(kind, {}).get("httpGet", {})
            if probe.get("path") != path:
                problems.append(f"{name}: {kind} path {probe.get('path')}, expected {path}")
            if endpoint is None or ports.get(probe.get("port")) != int(endpoint.rsplit(":", 1)[1]):
                problems.append(f"{name}: {kind} port {probe.get('port')} ({ports.get(probe.get('port'))}) is not"
                                f" the plugin's --http-endpoint {endpoint}")
        if "probe-dir" in volumes:
            problems.append(f"{name}: the registrar's probe-dir is left without the registrar")
    return problems


def check_sidecars_as_upstream(docs: list[dict], values: dict) -> list[str]:
    """Issue 15 item 8: ENABLE_VAC_FALLBACK on the EBS provisioner and resizer; node-driver-registrar with
    --http-endpoint and an httpGet probe on that port; livenessprobe serving /healthz (and /metrics) through
    --http-endpoint on the port the plugin's probes use."""
    problems = []
    for workload in controllers(docs) + node_daemonsets(docs):
        where = workload["metadata"]["name"]
        by_name = {c["name"]: c for c in containers(workload)}
        if driver_of(workload) == "ebs" and workload["kind"] == "Deployment":
            for sidecar in ("csi-provisioner", "csi-resizer"):
                env = {e["name"]: e.get("value") for e in by_name[sidecar].get("env", [])}
                if env.get("ENABLE_VAC_FALLBACK") != "true":
                    problems.append(f"{where}/{sidecar}: ENABLE_VAC_FALLBACK is not true")
        probe = by_name.get("liveness-probe")
        if probe is not None and not any(re.match(r"--?(health-port|metrics-address)", a) for a in probe["args"]):
            endpoint = flag_value(probe["args"], "--http-endpoint")
            health = next(p["containerPort"] for p in plugin(workload)["ports"] if p["name"] == "healthz")
            if endpoint is None or int(endpoint.rsplit(":", 1)[1]) != health:
                problems.append(f"{where}/liveness-probe: --http-endpoint {endpoint}, the plugin's healthz is {health}")
        registrar = by_name.get("node-driver-registrar") or by_name.get("csi-driver-registrar")
        if workload["kind"] == "DaemonSet" and not registers_itself(workload):
            if registrar is None:
                problems.append(f"{where}: no node-driver-registrar")
                continue
            endpoint = flag_value(registrar["args"], "--http-endpoint")
            http = registrar.get("livenessProbe", {}).get("httpGet")
            if endpoint is None or http is None:
                problems.append(f"{where}/{registrar['name']}: --http-endpoint {endpoint}, probe {registrar.get('livenessProbe')}")
                continue
            port = int(endpoint.rsplit(":", 1)[1])
            named_ports = {p["name"]: p["containerPort"] for p in registrar.get("ports", [])}
            probed = named_ports.get(http["port"], http["port"])
            if probed != port or http.get("path") != "/healthz":
                problems.append(f"{where}/{registrar['name']}: probe {http} does not reach --http-endpoint {endpoint}")
    return problems


# --- offline schemas ----------------------------------------------------------------------------------------------

def kubernetes_schema_dir(kube_version: str) -> Path:
    import kubernetes_validate  # installed by run.sh into the project-local venv

    base = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    wanted = base / f"v{kube_version}-local-strict"
    if not wanted.is_dir():
        raise SystemExit(f"kubernetes-validate has no schemas for Kubernetes {kube_version} under {base}")
    return wanted


def standalone_schemas(source: Path, out: Path, files: Iterable[str]) -> None:
    """kubernetes-validate's schemas point into a shared _definitions.json by absolute path; kubeconform reads
    each schema on its own, so copy into each schema the definitions it reaches."""
    definitions = json.loads((source / "_definitions.json").read_text())["$defs"]
    out.mkdir(parents=True, exist_ok=True)
    for file_name in files:
        path = source / file_name
        if not path.exists():
            continue
        text = path.read_text().replace('"/api/_definitions.json#/$defs/', '"#/$defs/')
        schema = json.loads(text)
        reached: dict[str, dict] = {}
        pending = re.findall(r'"#/\$defs/([^"]+)"', text)
        while pending:
            name = pending.pop()
            if name in reached:
                continue
            reached[name] = definitions[name]
            pending += re.findall(r'"#/\$defs/([^"]+)"', json.dumps(definitions[name]))
        schema["$defs"] = reached
        (out / file_name).write_text(json.dumps(schema))


def schema_file_name(doc: dict) -> str:
    """kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json."""
    group_version = doc["apiVersion"].split("/")
    suffix = "-" + group_version[0].split(".")[0].lower()
    if len(group_version) > 1:
        suffix += "-" + group_version[1].lower()
    return f"{doc['kind'].lower()}{suffix}.json"


def validate_offline(tools: Tools, manifest: str, docs: list[dict], kube_version: str, cache: Path) -> list[str]:
    schemas = cache / f"v{kube_version}"
    standalone_schemas(kubernetes_schema_dir(kube_version), schemas, {schema_file_name(d) for d in docs})
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, dir=cache) as rendered:
        rendered.write(manifest)
    try:
        result = tools.run(tools.kubeconform, "-strict", "-summary", "-output", "text",
                           "-kubernetes-version", kube_version,
                           "-schema-location", str(schemas) + "/{{ .ResourceKind }}{{ .KindSuffix }}.json",
                           "-schema-location", str(CRD_SCHEMAS) + "/{{ .ResourceKind }}{{ .KindSuffix }}.json",
                           rendered.name)
    finally:
        Path(rendered.name).unlink()
    if result.returncode != 0:
        return [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    if not re.search(r"Valid: [1-9]", result.stdout):
        return [f"kubeconform validated nothing: {result.stdout.strip()}"]
    return []


# --- schema refusals ----------------------------------------------------------------------------------------------

INVALID_VALUES = [
    # upstream's schema: tag keys 1-128 characters, values strings of at most 256
    ("a tag key longer than upstream allows", ["--set", "controller.extraVolumeTags." + "k" * 129 + "=v"],
     "invalid propertyName"),
    ("a tag value longer than upstream allows", ["--set", "controller.extraVolumeTags.team=" + "v" * 257],
     "extraVolumeTags"),
    ("replicaCount as a word", ["--set-string", "controller.replicaCount=two"], "replicaCount"),
    ("zero replicas", ["--set", "controller.replicaCount=0"], "replicaCount"),
    ("unknown top-level key", ["--set", "controler.replicaCount=2"], "controler"),
    ("unknown log level", ["--set", "controller.logLevel=verbose"], "logLevel"),
    ("EFS secret access without names", ["--set", "efs.controller.provisionerSecretAccess.secretNames[0]="],
     "secretNames"),
    ("attach limit and reserved attachments together",
     ["--set", "node.volumeAttachLimit=20", "--set", "node.reservedVolumeAttachments=2"], "reservedVolumeAttachments"),
    ("EFS file system id malformed", ["--set", "efs.enabled=true", "--set", "efsStorageClass.fileSystemId=vol-1"],
     "fileSystemId"),
    ("snapshot class without deletionPolicy", ["--set", "volumeSnapshotClasses[0].name=x"], "deletionPolicy"),
    ("group snapshot class with an unknown crashConsistency",
     ["--set", "volumeGroupSnapshotClasses[0].name=x", "--set", "volumeGroupSnapshotClasses[0].deletionPolicy=Delete",
      "--set", "volumeGroupSnapshotClasses[0].parameters.crashConsistency=sometimes"], "crashConsistency"),
    ("a diagnose role subject of an unknown kind",
     ["--set", "diagnose.clusterRole.subjects[0].kind=Robot", "--set", "diagnose.clusterRole.subjects[0].name=r2"],
     "kind"),
    ("storage class for an unknown driver",
     ["--set", "storageClasses[0].name=x", "--set", "storageClasses[0].driver=fsx"], "driver"),
    ("IRSA role that is not a role ARN", ["--set", "ebs.controller.serviceAccount.roleArn=my-role"], "roleArn"),
    ("unknown kubelet registration mode", ["--set", "node.kubeletRegistration=plugin"], "kubeletRegistration"),
    ("efs-utils.conf override without a section", ["--set-string", "node.efsUtilsConfOverrides=retry=60"],
     "efsUtilsConfOverrides"),
]


def check_refused(tools: Tools, args: list[str], field_name: str) -> list[str]:
    result = tools.template(DEFAULT_KUBE_VERSION, *args)
    if result.returncode == 0:
        return [f"helm template accepted {' '.join(args)}"]
    if field_name not in result.stderr:
        return [f"refused, but the error does not name {field_name}: {result.stderr.strip()[:300]}"]
    return []


# --- IAM policies ---------------------------------------------------------------------------------------------------

IAM = HERE.parent / "iam"
# Mutating actions that may go without a tag condition, with the only resources they may name that way: the
# snapshot a volume is restored from, and the instance a volume is attached to.
UNCONDITIONED = {
    ("ec2:CreateVolume", "arn:aws:ec2:*:*:snapshot/*"),
    ("ec2:AttachVolume", "arn:aws:ec2:*:*:instance/*"),
    ("ec2:DetachVolume", "arn:aws:ec2:*:*:instance/*"),
}
# The tags each policy may condition on: tags the driver sets itself (kubernetes.io/created-for/pvc/name also marks
# the volumes the in-tree provisioner made, which CSI migration hands to this driver; KubernetesCluster and
# ebs.csi.aws.com/cluster-name come with --k8s-tag-cluster-id), and for the cross-account policy the tag the operator
# puts on the other account's role.
DRIVER_TAGS = {
    "ebs-policy-hardened.json": {"ebs.csi.aws.com/cluster", "CSIVolumeName", "CSIVolumeSnapshotName",
                                 "kubernetes.io/created-for/pvc/name"},
    "ebs-policy-cluster-scoped.json": {"ebs.csi.aws.com/cluster-name", "KubernetesCluster",
                                       "kubernetes.io/created-for/pvc/name"},
    # The addition for VolumeGroupSnapshot (off by default; upstream has none): CreateSnapshots only for the driver's
    # groups, whose every snapshot carries the group id tag.
    "ebs-policy-group-snapshots.json": {"CSIVolumeGroupSnapshotId"},
    "efs-policy.json": {"efs.csi.aws.com/cluster"},
    "efs-cross-account-policy.json": {"efs.csi.aws.com/cross-account"},
}


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


# What upstream's documented policy (kubernetes-sigs/aws-ebs-csi-driver docs/example-iam-policy.json) grants with no
# condition, per action and resource, limited to the actions this driver calls (DescribeTags and DescribeVolumeStatus
# it does not). The default ebs-policy.json must grant each of these unconditioned too: a static PV on an untagged
# volume (an AWS Backup restore, a Terraform volume) must attach, expand and snapshot after the switch as before.
UPSTREAM_UNCONDITIONED = {
    ("ec2:CreateSnapshot", "arn:aws:ec2:*:*:volume/*"), ("ec2:ModifyVolume", "arn:aws:ec2:*:*:volume/*"),
    ("ec2:CopyVolumes", "arn:aws:ec2:*:*:volume/*"),
    ("ec2:AttachVolume", "arn:aws:ec2:*:*:volume/*"), ("ec2:DetachVolume", "arn:aws:ec2:*:*:volume/*"),
    ("ec2:AttachVolume", "arn:aws:ec2:*:*:instance/*"), ("ec2:DetachVolume", "arn:aws:ec2:*:*:instance/*"),
    ("ec2:CreateVolume", "arn:aws:ec2:*:*:snapshot/*"), ("ec2:EnableFastSnapshotRestores", "arn:aws:ec2:*:*:snapshot/*"),
}
# What upstream grants at all (any condition), per action and resource: no variant may grant more (LockSnapshot, which
# upstream documents as an addition for snapshot locking, only on the cluster's own snapshots).
UPSTREAM_GRANTS = UPSTREAM_UNCONDITIONED | {
    ("ec2:CreateVolume", "arn:aws:ec2:*:*:volume/*"), ("ec2:DeleteVolume", "arn:aws:ec2:*:*:volume/*"),
    ("ec2:CreateSnapshot", "arn:aws:ec2:*:*:snapshot/*"), ("ec2:DeleteSnapshot", "arn:aws:ec2:*:*:snapshot/*"),
    ("ec2:CreateTags", "arn:aws:ec2:*:*:volume/*"), ("ec2:CreateTags", "arn:aws:ec2:*:*:snapshot/*"),
    ("ec2:DeleteTags", "arn:aws:ec2:*:*:volume/*"), ("ec2:DeleteTags", "arn:aws:ec2:*:*:snapshot/*"),
    ("ec2:LockSnapshot", "arn:aws:ec2:*:*:snapshot/*"),
}
# The VolumeGroupSnapshot addition (helm/iam/ebs-policy-group-snapshots.json): upstream has no group snapshots, so
# this is all it may grant, and only for the driver's groups; the three EBS policies above never grant it.
GROUP_SNAPSHOT_GRANTS = {
    ("ec2:CreateSnapshots", "arn:aws:ec2:*:*:instance/*"), ("ec2:CreateSnapshots", "arn:aws:ec2:*:*:volume/*"),
    ("ec2:CreateSnapshots", "arn:aws:ec2:*:*:snapshot/*"), ("ec2:CreateTags", "arn:aws:ec2:*:*:snapshot/*"),
    ("ec2:DeleteSnapshot", "arn:aws:ec2:*:*:snapshot/*"),
}


def check_iam_default_as_upstream() -> list[str]:
    """ebs-policy.json breaks nothing upstream's documented policy allows, and no EBS variant grants more."""
    problems = []
    for file_name in ("ebs-policy.json", "ebs-policy-hardened.json", "ebs-policy-cluster-scoped.json"):
        policy = json.loads((IAM / file_name).read_text())
        unconditioned = set()
        for statement in policy["Statement"]:
            for action in as_list(statement["Action"]):
                for resource in as_list(statement["Resource"]):
                    if action.split(":", 1)[1].startswith("Describe"):
                        continue
                    if (action, resource) not in UPSTREAM_GRANTS:
                        problems.append(f"{file_name}/{statement.get('Sid')}: {action} on {resource} is more than "
                                        "upstream's policy grants")
                    if not statement.get("Condition"):
                        unconditioned.add((action, resource))
        if file_name == "ebs-policy.json":
            for action, resource in sorted(UPSTREAM_UNCONDITIONED - unconditioned):
                problems.append(f"{file_name}: {action} on {resource} is bound to a tag; upstream's is not (static PVs "
                                "on untagged volumes would stop working)")
    addition = json.loads((IAM / "ebs-policy-group-snapshots.json").read_text())
    granted = {(action, resource) for statement in addition["Statement"]
               for action in as_list(statement["Action"]) for resource in as_list(statement["Resource"])}
    if granted != GROUP_SNAPSHOT_GRANTS:
        problems.append(f"ebs-policy-group-snapshots.json grants {sorted(granted)}, not {sorted(GROUP_SNAPSHOT_GRANTS)}")
    return problems


def check_iam_policy(file_name: str) -> list[str]:
    """Least privilege: read-only Describe calls on *, every other action bound to a tag the driver sets."""
    policy = json.loads((IAM / file_name).read_text())
    problems = []
    if policy.get("Version") != "2012-10-17":
        problems.append(f"{file_name}: Version {policy.get('Version')}")
    tags_used = set()
    for statement in policy["Statement"]:
        sid = statement.get("Sid", "?")
        if statement.get("Effect") != "Allow" or "NotAction" in statement or "NotResource" in statement:
            problems.append(f"{file_name}/{sid}: only plain Allow statements are expected")
        actions = as_list(statement["Action"])
        resources = as_list(statement["Resource"])
        condition = statement.get("Condition", {})
        for keys in condition.values():
            for key in keys:
                if match := re.match(r"^(?:aws|ec2):(?:Resource|Request)Tag/(.+)$", key):
                    tags_used.add(match.group(1))
        for action in actions:
            if "*" in action:
                problems.append(f"{file_name}/{sid}: wildcard action {action}")
            read_only = action.split(":", 1)[1].startswith("Describe")
            tagged = any(re.match(r"^(?:aws|ec2):(?:Resource|Request)Tag/", key) or key == "ec2:CreateAction"
                         for keys in condition.values() for key in keys)
            if read_only or tagged:
                continue
            for resource in resources:
                if (action, resource) not in UNCONDITIONED:
                    problems.append(f"{file_name}/{sid}: {action} on {resource} is not bound to a driver tag")
        if "ec2:DeleteTags" in actions and condition.get("Null", {}).get("aws:TagKeys") != "false":
            problems.append(f"{file_name}/{sid}: DeleteTags without the Null aws:TagKeys=false guard (a request "
                            "naming no key deletes every tag)")
        if file_name.startswith("ebs-policy-cluster-scoped"):
            values = [v for c in condition.values() for k, v in c.items() if "cluster-name" in k or
                      "KubernetesCluster" in k]
            if any(v != "${aws:PrincipalTag/eks-cluster-name}" for v in values):
                problems.append(f"{file_name}/{sid}: cluster tag not compared with the session's eks-cluster-name")
    if file_name == "ebs-policy-hardened.json" and not any(
            "ec2:ResourceTag/kubernetes.io/created-for/pvc/name" in c for st in policy["Statement"]
            for c in st.get("Condition", {}).values()):
        problems.append(f"{file_name}: no statement for the in-tree provisioner's volumes (CSI migration)")
    if missing := DRIVER_TAGS[file_name] - tags_used:
        problems.append(f"{file_name}: never conditioned on {sorted(missing)}")
    if unknown := tags_used - DRIVER_TAGS[file_name]:
        problems.append(f"{file_name}: conditioned on tags the driver does not set: {sorted(unknown)}")
    return problems


# --- main ---------------------------------------------------------------------------------------------------------

def parse(manifest: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(manifest) if d]


def check_group_snapshot_classes(tools: "Tools", chart_name: str) -> list[str]:
    """volumeGroupSnapshotClasses (this project's own key, issue 31): a VolumeGroupSnapshotClass of ebs.csi.aws.com with
    its parameters where the group snapshot API is served, none where it is not (the release would be refused)."""
    problems = []
    entry = ["--set", "volumeGroupSnapshotClasses[0].name=ebs-vgsc",
             "--set", "volumeGroupSnapshotClasses[0].deletionPolicy=Retain",
             "--set", "volumeGroupSnapshotClasses[0].parameters.crashConsistency=bestEffort"]
    if chart_name == "aws-csi-driver":
        entry += ["--set", "efs.enabled=true"]
    served = ["--api-versions", "snapshot.storage.k8s.io/v1", "--api-versions", "groupsnapshot.storage.k8s.io/v1"]
    for api, expected in ((served, 1), (["--api-versions", "snapshot.storage.k8s.io/v1"], 0)):
        rendered = tools.template(DEFAULT_KUBE_VERSION, *entry, *api, chart=CHARTS[chart_name])
        if rendered.returncode != 0:
            return [rendered.stderr.strip()]
        classes = objects(parse(rendered.stdout), "VolumeGroupSnapshotClass")
        if len(classes) != expected:
            problems.append(f"{len(classes)} VolumeGroupSnapshotClasses with {' '.join(api)}, expected {expected}")
            continue
        for group_class in classes:
            if group_class.get("apiVersion") != "groupsnapshot.storage.k8s.io/v1" or \
                    group_class.get("driver") != "ebs.csi.aws.com" or group_class.get("deletionPolicy") != "Retain" or \
                    group_class.get("parameters") != {"crashConsistency": "bestEffort"} or \
                    group_class["metadata"]["name"] != "ebs-vgsc":
                problems.append(f"rendered {group_class}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm", required=True)
    parser.add_argument("--kubeconform", required=True)
    parser.add_argument("--cache", required=True, type=Path, help="directory for the generated schemas")
    arguments = parser.parse_args()
    tools = Tools(arguments.helm, arguments.kubeconform)
    arguments.cache.mkdir(parents=True, exist_ok=True)
    results = Results()

    for chart_name, chart in CHARTS.items():
        lint = tools.run(tools.helm, "lint", "--strict", str(chart), "--kube-version", DEFAULT_KUBE_VERSION)
        results.record(f"{chart_name}: helm lint --strict (default values)",
                       [] if lint.returncode == 0 else lint.stdout.splitlines())
        default = tools.template(DEFAULT_KUBE_VERSION, chart=chart)
        results.record(f"{chart_name}: helm template (default values)",
                       [] if default.returncode == 0 else [default.stderr])
        if default.returncode == 0:
            docs = parse(default.stdout)
            results.record(f"{chart_name}: default values, kubeconform -strict",
                           validate_offline(tools, default.stdout, docs, DEFAULT_KUBE_VERSION, arguments.cache))
            results.record(f"{chart_name}: default sidecar images pinned (upstream-layout charts: upstream's "
                           "public.ecr.aws/csi-components -eksbuild images; combined chart: provisioner v6.4.0, "
                           "attacher v4.13.0, resizer v2.3.0, snapshotter v8.7.0)", check_pinned_images(tools, chart))
            both = ("--set", "efs.enabled=true") if chart_name == "aws-csi-driver" else ()
            results.record(f"{chart_name}: each driver's workloads run its own image by default (aws-csi-driver-ebs, "
                           "aws-csi-driver-efs)", check_driver_images(tools, chart, *both))
            if chart_name == "aws-csi-driver":
                results.record(f"{chart_name}: image.containerRegistry prefixes each driver's own image",
                               check_driver_images(tools, chart, *both, "--set", "image.containerRegistry=r.example/",
                                                   registry="r.example/"))

    value_sets = [ValueSet.load(p) for p in VALUE_SETS.glob("*.yaml")] + \
        [ValueSet.load(p) for p in UPSTREAM_VALUE_SETS.glob("*.yaml")]
    rendered_sets: dict[str, tuple[ValueSet, list[dict]]] = {}
    for value_set in sorted(value_sets, key=lambda v: v.name):
        label = value_set.name
        chart = CHARTS[value_set.chart]
        lint = tools.run(tools.helm, "lint", "--strict", str(chart), "-f", str(value_set.path),
                         "--kube-version", value_set.kube_version)
        results.record(f"{label}: helm lint", [] if lint.returncode == 0 else lint.stdout.splitlines())
        rendered = tools.template(value_set.kube_version, "-f", str(value_set.path), *value_set.helm_args,
                                  chart=chart)
        if rendered.returncode != 0:
            results.record(f"{label}: helm template", [rendered.stderr.strip()])
            continue
        docs = parse(rendered.stdout)
        values = value_set.values
        rendered_sets[label] = (value_set, docs)
        snapshots = bool(values.get("sidecars", {}).get("snapshotter", {}).get("forceEnable")) or \
            "snapshot.storage.k8s.io/v1" in value_set.helm_args
        results.record(f"{label}: kubeconform -strict (offline, Kubernetes {value_set.kube_version})",
                       validate_offline(tools, rendered.stdout, docs, value_set.kube_version, arguments.cache))
        checks: list[tuple[str, Callable[[], list[str]]]] = [
            ("node plugins privileged, kubelet dir Bidirectional", lambda: check_node_plugins(docs, values)),
            ("host ports do not clash", lambda: check_node_ports(docs, values)),
            ("leader election on every controller sidecar", lambda: check_leader_election(docs, values)),
            ("no privileged controller; non-root, read-only", lambda: check_controller_security(docs, values)),
            ("controller liveness on Probe, readiness on /readyz", lambda: check_controller_probes(docs, values)),
            ("lease verbs in RBAC", lambda: check_lease_rbac(docs, values)),
            ("RBAC complete and no broader than needed", lambda: check_rbac(docs, values)),
            ("plugin arguments within the driver's command line", lambda: check_plugin_args(docs, values)),
            ("CSIDriver objects", lambda: check_csi_drivers(docs, values)),
            ("controller PodDisruptionBudgets", lambda: check_disruption_budgets(docs, values)),
            ("metrics Services and ServiceMonitors", lambda: check_metrics(docs, values)),
            ("sidecars as upstream (VAC fallback, registrar and livenessprobe health)",
             lambda: check_sidecars_as_upstream(docs, values)),
            ("kubelet registration: sidecars, or one container", lambda: check_kubelet_registration(docs, values)),
            ("diagnose ClusterRole only when asked, exactly the command's reads",
             lambda: check_diagnose_role(docs, values)),
        ]
        if value_set.chart == "aws-csi-driver":
            checks += [
                ("drivers rendered as enabled", lambda: check_drivers_rendered(docs, values)),
                ("node startup taint tolerated, Fargate/hybrid excluded", lambda: check_node_scheduling(docs, values)),
                ("controller sidecars and arguments", lambda: check_controller_sidecars(docs, values, snapshots)),
                ("service accounts annotated for IRSA", lambda: check_service_accounts(docs, values)),
                ("storage and snapshot classes", lambda: check_classes(docs, values, snapshots)),
                ("ServiceMonitors as asked", lambda: check_service_monitor_wanted(docs, values)),
            ]
        for name, check in checks:
            results.record(f"{label}: {name}", check())

    results.record("the chart passes the plugin exactly the launcher's flags (awscsi.pluginFlags = Usage.SERVE)",
                   [] if library_flags() == set(PLUGIN_FLAGS) else
                   [f"only in the chart: {sorted(library_flags() - set(PLUGIN_FLAGS))}",
                    f"only in the launcher: {sorted(set(PLUGIN_FLAGS) - library_flags())}"])
    upstream_checks.run_all(tools, results, rendered_sets, arguments.cache, CHARTS, validate_offline)
    # Proof (a) of issue 26: upstream's real charts and these, rendered with the same values, object by object.
    upstream_compare.run_all(tools.helm, results.record)
    import derive_schema
    results.record("aws-ebs-csi-driver values.schema.json: upstream's schema unchanged plus this chart's own keys",
                   derive_schema.check())

    for chart_name in ("aws-csi-driver", "aws-ebs-csi-driver"):
        results.record(f"{chart_name}: volumeGroupSnapshotClasses rendered as VolumeGroupSnapshotClasses of "
                       "ebs.csi.aws.com only where the group snapshot API is served",
                       check_group_snapshot_classes(tools, chart_name))
    for name, args, field_name in INVALID_VALUES:
        results.record(f"values.schema.json refuses {name}", check_refused(tools, args, field_name))

    results.record("IAM ebs-policy.json allows what upstream's documented policy allows; no EBS variant allows more",
                   check_iam_default_as_upstream())
    for file_name in sorted(DRIVER_TAGS):
        results.record(f"IAM {file_name}: least privilege, scoped by the driver's tags", check_iam_policy(file_name))

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
