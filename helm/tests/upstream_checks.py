"""Checks of the upstream-layout charts (aws-ebs-csi-driver, aws-efs-csi-driver) and of the drop-in behaviour of all
three charts (issue 15):

- every upstream key (upstream/chart-keys.txt) is set in a values file of upstream/values/ and its effect is asserted
  on the render (or, where this driver cannot apply it, on the NOTES.txt line that says so);
- NOTES.txt reports keys neither chart knows and plugin flags this driver lacks, and nothing for the defaults;
- render-level upgrade test: the upstream-shaped fixtures (upstream/shaped/) and this repository's chart of the same
  name, rendered with the same release name and values, agree on every immutable field of every object both render,
  and every object upstream renders is still there (or is meant to go);
- upstream value types accepted by every chart; defaults as upstream (no classes, tolerations); EFS classes of the
  combined chart never render for EBS.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

import yaml

HERE = Path(__file__).resolve().parent
KEYS_FILE = HERE / "upstream" / "chart-keys.txt"
SHAPED = HERE / "upstream" / "shaped"
UPGRADE_VALUES = HERE / "upstream" / "upgrade"
HELM_DIR = HERE.parent
KUBE = "1.34.0"


# --- accessors ------------------------------------------------------------------------------------------------------

def find(docs, kind, name=None, namespace=None):
    for d in docs:
        if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name) and \
                (namespace is None or d["metadata"].get("namespace") == namespace):
            return d
    return None


def all_of(docs, kind):
    return [d for d in docs if d.get("kind") == kind]


def pod(workload):
    return workload["spec"]["template"]["spec"] if workload else {}


def container(workload, name):
    for c in pod(workload).get("containers", []):
        if c["name"] == name:
            return c
    return {}


def args(c):
    return c.get("args", [])


def env(c):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in c.get("env", [])}


def need(condition, message):
    return [] if condition else [message]


def contains(actual, wanted) -> bool:
    """wanted is within actual: Helm merges a values map with the chart's default map, as upstream's chart does."""
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in wanted.items())
    return actual == wanted


class Render:
    """One rendered values file: its objects, its NOTES.txt and the values it was given."""

    def __init__(self, docs, notes, values):
        self.docs = docs
        self.notes = notes
        self.values = values

    def dep(self, name):
        return find(self.docs, "Deployment", name)

    def ds(self, name):
        return find(self.docs, "DaemonSet", name)

    def noted(self, *words):
        lines = [l for l in self.notes.splitlines() if l.strip().startswith("- ")]
        return need(any(all(w in l for w in words) for l in lines), f"NOTES.txt has no line with {words}")

    def applied(self, *words):
        """No NOTES.txt line reports the key as not applied."""
        lines = [l for l in self.notes.splitlines() if l.strip().startswith("- ")]
        return need(not any(all(w in l for w in words) for l in lines), f"NOTES.txt reports {words} as not applied")


def notes_of(tools, chart: Path, values_file: Path | None, extra_args=()) -> str:
    """NOTES.txt as Helm would print it: helm template does not render NOTES.txt, so a copy of the chart (symlinks
    resolved) renders it into a ConfigMap."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / chart.name
        shutil.copytree(chart, copy, symlinks=False)
        (copy / "NOTES.txt.rendered").write_text((chart / "templates" / "NOTES.txt").read_text())
        (copy / "templates" / "zz-notes.yaml").write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rendered-notes\ndata:\n"
            "  notes: {{ tpl (.Files.Get \"NOTES.txt.rendered\") . | quote }}\n")
        command = ["--show-only", "templates/zz-notes.yaml", *extra_args]
        if values_file:
            command += ["-f", str(values_file)]
        result = tools.template(KUBE, *command, chart=copy, release=chart.name)
        if result.returncode != 0:
            return "RENDER FAILED: " + result.stderr
        return yaml.safe_load(result.stdout)["data"]["notes"]


# --- every upstream key's effect ------------------------------------------------------------------------------------

def sidecar_effects(r: Render, workload, cname, key):
    """The common sidecar keys: image, pullPolicy, env, logLevel, additionalArgs, resources, securityContext."""
    v = r.values["sidecars"][key]
    c = container(workload, cname)
    problems = need(c, f"{cname} not rendered")
    if not c:
        return problems
    image = v["image"]
    problems += need(c["image"] == f"{image['repository']}:{image['tag']}", f"{cname}: image {c['image']}")
    if image.get("pullPolicy"):
        problems += need(c["imagePullPolicy"] == image["pullPolicy"], f"{cname}: pullPolicy {c['imagePullPolicy']}")
    for e in v.get("env", []):
        problems += need(env(c).get(e["name"]) == e["value"], f"{cname}: env {e['name']} missing")
    if "logLevel" in v:
        problems += need(f"--v={v['logLevel']}" in args(c), f"{cname}: no --v={v['logLevel']} in {args(c)}")
    for a in v.get("additionalArgs", []):
        flag = a.split("=")[0]
        problems += need(a in args(c) and sum(x.split("=")[0] == flag for x in args(c)) == 1,
                         f"{cname}: additionalArgs {a} not replacing the default: {args(c)}")
    if v.get("resources"):
        problems += need(c.get("resources", {}).get("requests") == v["resources"]["requests"],
                         f"{cname}: resources {c.get('resources')}")
    if v.get("securityContext"):
        problems += need(contains(c.get("securityContext"), v["securityContext"]), f"{cname}: securityContext")
    return problems


def leader_election_effects(r, workload, cname, key):
    le = r.values["sidecars"][key]["leaderElection"]
    a = args(container(workload, cname))
    on = str(le.get("enabled")).lower() != "false"
    problems = need(f"--leader-election={'true' if on else 'false'}" in a, f"{cname}: leader election not {on}: {a}")
    for field, flag in (("leaseDuration", "lease-duration"), ("renewDeadline", "renew-deadline"),
                        ("retryPeriod", "retry-period")):
        if le.get(field):
            problems += need(f"--leader-election-{flag}={le[field]}" in a, f"{cname}: no --leader-election-{flag}")
    return problems


def ebs_effects() -> dict[str, Callable[[dict[str, Render]], list[str]]]:
    """Effect of each upstream EBS key, asserted on the render of ebs-all-keys (A) or ebs-node-only (N)."""
    def A(r):
        return r["ebs-all-keys"]

    def N(r):
        return r["ebs-node-only"]

    ctl = lambda r: A(r).dep("ebs-csi-controller")
    node = lambda r: A(r).ds("ebs-csi-node")
    plug = lambda r: container(ctl(r), "ebs-plugin")
    nplug = lambda r: container(node(r), "ebs-plugin")
    V = lambda r: A(r).values
    cv = lambda r: V(r)["controller"]
    nv = lambda r: V(r)["node"]

    def sa(r, name, ns):
        return find(A(r).docs, "ServiceAccount", name, ns)

    e: dict[str, Callable] = {
        "image.repository": lambda r: need(plug(r)["image"].startswith(V(r)["image"]["repository"] + ":") and
                                           nplug(r)["image"].startswith(V(r)["image"]["repository"] + ":"),
                                           f"plugin image {plug(r).get('image')}"),
        "image.tag": lambda r: need(plug(r)["image"].endswith(":" + V(r)["image"]["tag"]), "image tag"),
        "image.pullPolicy": lambda r: need(plug(r)["imagePullPolicy"] == V(r)["image"]["pullPolicy"], "pullPolicy"),
        "customLabels": lambda r: need(all(d["metadata"]["labels"].get("team") == "storage" for d in A(r).docs) and
                                       pod(ctl(r)) and ctl(r)["spec"]["template"]["metadata"]["labels"]["team"] ==
                                       "storage", "customLabels not on every object and pod"),
        "fips": lambda r: need(env(plug(r)).get("AWS_USE_FIPS_ENDPOINT") == "true" and
                               env(nplug(r)).get("AWS_USE_FIPS_ENDPOINT") == "true", "AWS_USE_FIPS_ENDPOINT")
        + A(r).noted("fips", "FIPS"),
        "sidecars.provisioner": lambda r: sidecar_effects(A(r), ctl(r), "csi-provisioner", "provisioner")
        + leader_election_effects(A(r), ctl(r), "csi-provisioner", "provisioner")
        + need(any("configmaps" in rule["resources"] for rule in
                   find(A(r).docs, "ClusterRole", "ebs-external-provisioner-role")["rules"]),
               "additionalClusterRoleRules not in ebs-external-provisioner-role"),
        "sidecars.attacher": lambda r: sidecar_effects(A(r), ctl(r), "csi-attacher", "attacher")
        + leader_election_effects(A(r), ctl(r), "csi-attacher", "attacher"),
        "sidecars.snapshotter": lambda r: sidecar_effects(A(r), ctl(r), "csi-snapshotter", "snapshotter")
        + leader_election_effects(A(r), ctl(r), "csi-snapshotter", "snapshotter"),
        "sidecars.metadataLabeler": lambda r: A(r).noted("metadataLabeler"),
        "sidecars.livenessProbe": lambda r: sidecar_effects(A(r), ctl(r), "liveness-probe", "livenessProbe")
        + sidecar_effects(A(r), node(r), "liveness-probe", "livenessProbe"),
        "sidecars.resizer": lambda r: sidecar_effects(A(r), ctl(r), "csi-resizer", "resizer")
        + leader_election_effects(A(r), ctl(r), "csi-resizer", "resizer"),
        "sidecars.nodeDriverRegistrar": lambda r: sidecar_effects(A(r), node(r), "node-driver-registrar",
                                                                  "nodeDriverRegistrar")
        + need("--http-endpoint=0.0.0.0:9819" in args(container(node(r), "node-driver-registrar")), "registrar healthPort")
        + need(container(node(r), "node-driver-registrar").get("livenessProbe", {}).get("periodSeconds") == 60,
               "registrar livenessProbe"),
        "sidecars.volumemodifier": lambda r: A(r).noted("volumemodifier"),
        "proxy.http_proxy": lambda r: need(all(env(c).get("HTTP_PROXY") == V(r)["proxy"]["http_proxy"] and
                                               env(c).get("HTTPS_PROXY") == V(r)["proxy"]["http_proxy"]
                                               for w in (ctl(r), node(r)) for c in pod(w)["containers"]),
                                           "HTTP(S)_PROXY not on every container"),
        "proxy.no_proxy": lambda r: need(env(plug(r)).get("NO_PROXY") == V(r)["proxy"]["no_proxy"], "NO_PROXY"),
        "imagePullSecrets": lambda r: need(pod(ctl(r)).get("imagePullSecrets") == [{"name": "ecr-pull"}] and
                                           pod(node(r)).get("imagePullSecrets") == [{"name": "ecr-pull"}],
                                           "imagePullSecrets"),
        "nameOverride": lambda r: need(ctl(r)["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] ==
                                       "ebs-csi", "nameOverride not in the selector"),
        "fullnameOverride": lambda r: A(r).noted("fullnameOverride"),
        "awsAccessSecret.name": lambda r: need(env(plug(r))["AWS_ACCESS_KEY_ID"]["secretKeyRef"]["name"] ==
                                               "ebs-keys", "awsAccessSecret.name"),
        "awsAccessSecret.keyId": lambda r: need(env(plug(r))["AWS_ACCESS_KEY_ID"]["secretKeyRef"]["key"] == "id",
                                                "awsAccessSecret.keyId"),
        "awsAccessSecret.accessKey": lambda r: need(
            env(plug(r))["AWS_SECRET_ACCESS_KEY"]["secretKeyRef"]["key"] == "secret", "awsAccessSecret.accessKey"),
        "controller.batching": lambda r: A(r).noted("controller.batching"),
        "controller.volumeModificationFeature": lambda r: A(r).noted("volumeModificationFeature"),
        "controller.enableNodeLocalVolumes": lambda r: A(r).noted("enableNodeLocalVolumes"),
        # Upstream's flags the launcher takes (UpstreamFlags) pass through as given.
        "controller.additionalArgs": lambda r: need("--log-level=debug" in args(plug(r)) and
                                                    "--batching=true" in args(plug(r)) and
                                                    "--warn-on-invalid-tag" in args(plug(r)),
                                                    f"additionalArgs: {args(plug(r))}"),
        "controller.sdkDebugLog": lambda r: A(r).noted("sdkDebugLog"),
        "controller.loggingFormat": lambda r: need("--log-format=json" in args(plug(r)), "--log-format=json"),
        "controller.affinity": lambda r: need(contains(pod(ctl(r))["affinity"], cv(r)["affinity"]), "affinity"),
        "controller.defaultFsType": lambda r: need("--default-fstype=xfs" in
                                                   args(container(ctl(r), "csi-provisioner")), "defaultFsType"),
        "controller.env": lambda r: need(env(plug(r)).get("CONTROLLER_ENV") == "1", "controller.env"),
        "controller.envFrom": lambda r: need(all(c.get("envFrom") == cv(r)["envFrom"] for c in pod(ctl(r))[
            "containers"] if c["name"] != "liveness-probe"), "controller.envFrom not on the plugin and sidecars"),
        "controller.extraCreateMetadata": lambda r: need(
            not any("--extra-create-metadata" in args(c) for c in pod(ctl(r))["containers"]), "extraCreateMetadata"),
        "controller.extraVolumeTags": lambda r: need("--extra-tags=env=test,team=storage" in args(plug(r)),
                                                     "extraVolumeTags"),
        "controller.httpEndpoint": lambda r: need("--http-endpoint=0.0.0.0:3391" in args(plug(r)), "httpEndpoint"),
        "controller.enableMetrics": lambda r: need(find(A(r).docs, "Service", "ebs-csi-controller") and all(
            any(a.startswith("--http-endpoint=") for a in args(container(ctl(r), n)))
            for n in ("csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter")), "enableMetrics"),
        "controller.enablePrometheusAnnotations": lambda r: need(
            find(A(r).docs, "Service", "ebs-csi-controller")["metadata"]["annotations"]["prometheus.io/scrape"] ==
            "true" and all(find(A(r).docs, "Service", f"ebs-csi-controller-{s}") for s in
                           ("provisioner", "attacher", "resizer", "snapshotter")), "enablePrometheusAnnotations"),
        "controller.serviceMonitor": lambda r: need(
            (m := find(A(r).docs, "ServiceMonitor", "ebs-csi-controller")) is not None and
            m["metadata"]["labels"].get("release") == "prometheus" and
            all(ep["interval"] == "30s" and ep.get("relabelings") for ep in m["spec"]["endpoints"]),
            "ServiceMonitor ebs-csi-controller"),
        "controller.k8sTagClusterId": lambda r: need("--k8s-tag-cluster-id=test-cluster" in args(plug(r)),
                                                     "k8sTagClusterId"),
        "controller.logLevel": lambda r: need("--log-level=debug" in args(plug(r)), "logLevel 5 -> debug"),
        "controller.userAgentExtra": lambda r: need("--user-agent-extra=test-agent" in args(plug(r)),
                                                    "userAgentExtra"),
        "controller.nodeSelector": lambda r: need(pod(ctl(r))["nodeSelector"] == {"kubernetes.io/os": "linux",
                                                                                  "node-role": "system"},
                                                  "nodeSelector"),
        "controller.deploymentAnnotations": lambda r: need(ctl(r)["metadata"].get("annotations") ==
                                                           cv(r)["deploymentAnnotations"], "deploymentAnnotations"),
        "controller.podAnnotations": lambda r: need(ctl(r)["spec"]["template"]["metadata"].get("annotations") ==
                                                    cv(r)["podAnnotations"], "podAnnotations"),
        "controller.podLabels": lambda r: need(ctl(r)["spec"]["template"]["metadata"]["labels"].get("tier") ==
                                               "storage", "podLabels"),
        "controller.podDisruptionBudget": lambda r: need(
            (b := find(A(r).docs, "PodDisruptionBudget", "ebs-csi-controller")) is not None and
            b["spec"].get("unhealthyPodEvictionPolicy") == "AlwaysAllow" and b["spec"].get("minAvailable") == 2,
            "PodDisruptionBudget (3 replicas: minAvailable 2, AlwaysAllow)"),
        "controller.priorityClassName": lambda r: need(pod(ctl(r))["priorityClassName"] == "storage-critical",
                                                       "priorityClassName"),
        "controller.region": lambda r: need(env(plug(r)).get("AWS_REGION") == "eu-west-1", "region"),
        "controller.replicaCount": lambda r: need(ctl(r)["spec"]["replicas"] == 3, "replicaCount"),
        "controller.revisionHistoryLimit": lambda r: need(ctl(r)["spec"]["revisionHistoryLimit"] == 4,
                                                          "revisionHistoryLimit"),
        "controller.socketDirVolume": lambda r: need({"name": "socket-dir", "emptyDir": {"medium": "Memory"}} in
                                                     pod(ctl(r))["volumes"], "socketDirVolume"),
        "controller.updateStrategy": lambda r: need(contains(ctl(r)["spec"]["strategy"], cv(r)["updateStrategy"]),
                                                    "updateStrategy"),
        "controller.resources": lambda r: need(contains(plug(r)["resources"], cv(r)["resources"]), "resources"),
        "controller.serviceAccount": lambda r: need(
            (s := sa(r, "ebs-controller-custom", "kube-system")) is not None and
            s["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].endswith("role/ebs-csi-driver") and
            pod(ctl(r))["serviceAccountName"] == "ebs-controller-custom" and
            find(A(r).docs, "ClusterRoleBinding", "ebs-csi-provisioner-binding")["subjects"][0]["name"] ==
            "ebs-controller-custom", "controller.serviceAccount (IRSA annotation, pod, bindings)"),
        "controller.tolerations": lambda r: need(pod(ctl(r))["tolerations"] == cv(r)["tolerations"], "tolerations"),
        "controller.topologySpreadConstraints": lambda r: need(
            pod(ctl(r))["topologySpreadConstraints"][0]["labelSelector"] == {"matchLabels": {"app":
                                                                                              "ebs-csi-controller"}},
            "topologySpreadConstraints without the injected labelSelector"),
        "controller.securityContext": lambda r: need(contains(pod(ctl(r))["securityContext"], cv(r)["securityContext"]),
                                                     "pod securityContext"),
        "controller.volumes": lambda r: need(cv(r)["volumes"][0] in pod(ctl(r))["volumes"], "volumes"),
        "controller.volumeMounts": lambda r: need(cv(r)["volumeMounts"][0] in plug(r)["volumeMounts"],
                                                  "volumeMounts"),
        "controller.containerSecurityContext": lambda r: need(contains(plug(r)["securityContext"], cv(r)["containerSecurityContext"]),
                                                              "containerSecurityContext"),
        "controller.initContainers": lambda r: need(pod(ctl(r)).get("initContainers") == cv(r)["initContainers"],
                                                    "initContainers"),
        "controller.otelTracing": lambda r: A(r).noted("controller.otelTracing"),
        "controller.dnsConfig": lambda r: need(pod(ctl(r)).get("dnsConfig") == cv(r)["dnsConfig"], "dnsConfig"),
        "node.selinux": lambda r: need(find(A(r).docs, "CSIDriver")["spec"].get("seLinuxMount") is True and
                                       any(m["mountPath"] == "/sys/fs/selinux" for m in nplug(r)["volumeMounts"]),
                                       "selinux"),
        "node.env": lambda r: need(env(nplug(r)).get("NODE_ENV") == "1", "node.env"),
        "node.envFrom": lambda r: need(nplug(r).get("envFrom") == nv(r)["envFrom"], "node.envFrom"),
        "node.kubeletPath": lambda r: need(
            {"name": "kubelet-dir", "hostPath": {"path": "/var/lib/k0s/kubelet", "type": "Directory"}} in
            pod(node(r))["volumes"] and env(container(node(r), "node-driver-registrar"))["DRIVER_REG_SOCK_PATH"] ==
            "/var/lib/k0s/kubelet/plugins/ebs.csi.aws.com/csi.sock", "kubeletPath"),
        "node.loggingFormat": lambda r: need("--log-format=json" in args(nplug(r)), "node.loggingFormat"),
        "node.logLevel": lambda r: need("--log-level=debug" in args(nplug(r)), "node.logLevel 4 -> debug"),
        "node.enableMetrics": lambda r: need(find(A(r).docs, "Service", "ebs-csi-node") is not None and
                                             "--http-endpoint=0.0.0.0:3302" in args(nplug(r)), "node.enableMetrics"),
        "node.enablePrometheusAnnotations": lambda r: need(
            find(A(r).docs, "Service", "ebs-csi-node")["metadata"]["annotations"]["prometheus.io/port"] == "3302",
            "node.enablePrometheusAnnotations"),
        "node.serviceMonitor": lambda r: need(
            (m := find(A(r).docs, "ServiceMonitor", "ebs-csi-node")) is not None and
            m["spec"]["endpoints"][0]["interval"] == "45s", "ServiceMonitor ebs-csi-node"),
        "node.priorityClassName": lambda r: need(pod(node(r))["priorityClassName"] == "node-storage-critical",
                                                 "node.priorityClassName"),
        "node.additionalArgs": lambda r: need(args(nplug(r)).count("--legacy-xfs") == 1 and
                                              any(a.startswith("--csi-mount-point-prefix=") for a in args(nplug(r))),
                                              f"node.additionalArgs: {args(nplug(r))}"),
        "node.affinity": lambda r: need(contains(pod(node(r))["affinity"], nv(r)["affinity"]), "node.affinity"),
        "node.nodeSelector": lambda r: need(pod(node(r))["nodeSelector"].get("storage") == "true",
                                            "node.nodeSelector"),
        "node.daemonSetAnnotations": lambda r: need(node(r)["metadata"].get("annotations") ==
                                                    nv(r)["daemonSetAnnotations"], "daemonSetAnnotations"),
        "node.podAnnotations": lambda r: need(node(r)["spec"]["template"]["metadata"].get("annotations") ==
                                              nv(r)["podAnnotations"], "node.podAnnotations"),
        "node.podLabels": lambda r: need(node(r)["spec"]["template"]["metadata"]["labels"].get("tier") ==
                                         "storage-node", "node.podLabels"),
        "node.terminationGracePeriodSeconds": lambda r: need(pod(node(r))["terminationGracePeriodSeconds"] == 45,
                                                             "terminationGracePeriodSeconds"),
        "node.tolerateAllTaints": lambda r: need(
            {t.get("key") for t in pod(node(r))["tolerations"]} >= {
                "ebs.csi.aws.com/agent-not-ready", "ToBeDeletedByClusterAutoscaler", "karpenter.sh/disrupted",
                "karpenter.sh/disruption"} and {"operator": "Exists"} not in pod(node(r))["tolerations"],
            "tolerateAllTaints false: upstream's default tolerations"),
        "node.tolerations": lambda r: need(nv(r)["tolerations"][0] in pod(node(r))["tolerations"],
                                           "node.tolerations"),
        "node.resources": lambda r: need(contains(nplug(r)["resources"], nv(r)["resources"]), "node.resources"),
        "node.revisionHistoryLimit": lambda r: need(node(r)["spec"]["revisionHistoryLimit"] == 6,
                                                    "node.revisionHistoryLimit"),
        "node.probeDirVolume": lambda r: need({"name": "probe-dir", "emptyDir": {"medium": "Memory"}} in
                                              pod(node(r))["volumes"], "probeDirVolume"),
        "node.serviceAccount": lambda r: need(
            sa(r, "ebs-node-custom", "storage-nodes") is not None and
            pod(node(r))["serviceAccountName"] == "ebs-node-custom" and
            env(nplug(r)).get("DISABLE_TAINT_WATCHER") == "true" and
            "patch" not in find(A(r).docs, "ClusterRole", "ebs-csi-node-role")["rules"][0]["verbs"],
            "node.serviceAccount (name, namespace, disableMutation)"),
        "node.enableLinux": lambda r: need(node(r) is not None and N(r).ds("ebs-csi-node") is None,
                                           "enableLinux: the default DaemonSet"),
        "node.enableWindows": lambda r: need("WARNING: node.enableWindows" in A(r).notes, "enableWindows warning"),
        "node.metadataSources": lambda r: need(env(nplug(r)).get("AWS_EC2_METADATA_DISABLED") == "true",
                                               "metadataSources without imds") + need(
            "--metadata-sources=kubernetes" in args(nplug(r)), "--metadata-sources without metadata-labeler")
        + A(r).noted("metadata-labeler"),
        "node.legacyXFS": lambda r: need("--legacy-xfs" in args(nplug(r)), "legacyXFS"),
        "node.reservedVolumeAttachments": lambda r: need("--reserved-volume-attachments=2" in args(nplug(r)),
                                                         "reservedVolumeAttachments"),
        "node.volumeAttachLimit": lambda r: need(
            "--volume-attach-limit=16" in args(container(N(r).ds("ebs-csi-node-big"), "ebs-plugin")) and
            "--volume-attach-limit=8" in args(container(N(r).ds("ebs-csi-node-small"), "ebs-plugin")),
            "volumeAttachLimit (node's, and an additional DaemonSet's own)"),
        "node.updateStrategy": lambda r: need(contains(node(r)["spec"]["updateStrategy"], nv(r)["updateStrategy"]),
                                              "node.updateStrategy"),
        "node.hostNetwork": lambda r: need(pod(node(r))["hostNetwork"] is True, "node.hostNetwork"),
        "node.securityContext": lambda r: need(contains(pod(node(r))["securityContext"], nv(r)["securityContext"]),
                                               "node.securityContext"),
        "node.namespaceOverride": lambda r: need(node(r)["metadata"]["namespace"] == "storage-nodes" and
                                                 find(A(r).docs, "Service", "ebs-csi-node")["metadata"]["namespace"]
                                                 == "storage-nodes", "namespaceOverride"),
        "node.volumes": lambda r: need(nv(r)["volumes"][0] in pod(node(r))["volumes"], "node.volumes"),
        "node.volumeMounts": lambda r: need(nv(r)["volumeMounts"][0] in nplug(r)["volumeMounts"],
                                            "node.volumeMounts"),
        "node.containerSecurityContext": lambda r: need(contains(nplug(r)["securityContext"], nv(r)["containerSecurityContext"]),
                                                        "node.containerSecurityContext"),
        "node.initContainers": lambda r: need(pod(node(r)).get("initContainers") == nv(r)["initContainers"],
                                              "node.initContainers"),
        "node.otelTracing": lambda r: A(r).noted("node.otelTracing"),
        "node.dnsConfig": lambda r: need(pod(node(r)).get("dnsConfig") == nv(r)["dnsConfig"], "node.dnsConfig"),
        "additionalDaemonSets": lambda r: need(
            (big := A(r).ds("ebs-csi-node-big")) is not None and
            pod(big)["nodeSelector"].get("node.kubernetes.io/instance-type") == "m7i.48xlarge" and
            "--reserved-volume-attachments=4" in args(container(big, "ebs-plugin")) and
            big["spec"]["selector"]["matchLabels"]["app"] == "ebs-csi-node-big", "additionalDaemonSets"),
        "storageClasses": lambda r: need(
            (sc := find(A(r).docs, "StorageClass", "io2-fast")) is not None and sc["provisioner"] ==
            "ebs.csi.aws.com" and sc["volumeBindingMode"] == "Immediate" and sc["reclaimPolicy"] == "Retain" and
            sc["allowVolumeExpansion"] is False and sc["parameters"] == {"type": "io2", "iops": "10000",
                                                                         "encrypted": "true"} and
            sc["mountOptions"] == ["noatime"] and sc["allowedTopologies"] and
            sc["metadata"]["labels"]["tier"] == "fast", "storageClasses entry"),
        "defaultStorageClass.enabled": lambda r: need(
            (sc := find(A(r).docs, "StorageClass", "ebs-csi-default-sc")) is not None and
            "parameters" not in sc and
            sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true",
            "ebs-csi-default-sc"),
        "volumeSnapshotClasses": lambda r: need(
            (c := find(A(r).docs, "VolumeSnapshotClass", "ebs-vsc")) is not None and c["deletionPolicy"] ==
            "Retain" and c["parameters"] == {"fastSnapshotRestoreAvailabilityZones": "us-east-1a"},
            "volumeSnapshotClasses"),
        "useOldCSIDriver": lambda r: need("fsGroupPolicy" not in find(A(r).docs, "CSIDriver")["spec"],
                                          "useOldCSIDriver: fsGroupPolicy rendered"),
        "nodeAllocatableUpdatePeriodSeconds": lambda r: need(
            find(A(r).docs, "CSIDriver")["spec"]["nodeAllocatableUpdatePeriodSeconds"] == 30,
            "nodeAllocatableUpdatePeriodSeconds"),
        "nodeComponentOnly": lambda r: need(not all_of(N(r).docs, "Deployment") and
                                            find(N(r).docs, "ClusterRole", "ebs-external-provisioner-role") is None
                                            and all_of(N(r).docs, "DaemonSet"), "nodeComponentOnly"),
        "debugLogs": lambda r: need(all("--log-level=debug" in args(container(d, "ebs-plugin")) and
                                        "--v=7" in args(container(d, "node-driver-registrar"))
                                        for d in all_of(N(r).docs, "DaemonSet")), "debugLogs"),
        "helmTester.enabled": lambda r: A(r).noted("helmTester"),
        "helmTester.image": lambda r: A(r).noted("helmTester"),
    }
    return e


def efs_effects() -> dict[str, Callable[[dict[str, Render]], list[str]]]:
    """Effect of each upstream EFS key, asserted on the render of efs-all-keys (A) or efs-no-controller (N)."""
    def A(r):
        return r["efs-all-keys"]

    def N(r):
        return r["efs-no-controller"]

    def D(r):
        return r["efs-root-dir-deletion"]

    ctl = lambda r: A(r).dep("efs-controller")
    node = lambda r: A(r).ds("efs-csi-node")
    plug = lambda r: container(ctl(r), "efs-plugin")
    nplug = lambda r: container(node(r), "efs-plugin")
    prov = lambda r: container(ctl(r), "csi-provisioner")
    V = lambda r: A(r).values
    cv = lambda r: V(r)["controller"]
    nv = lambda r: V(r)["node"]

    def probe(c, kind, field, value):
        return need(c.get(kind, {}).get(field) == value, f"{c.get('name')}: {kind}.{field} != {value}")

    e: dict[str, Callable] = {
        "nameOverride": lambda r: need(ctl(r)["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] ==
                                       "efs-csi", "nameOverride not in the selector"),
        "fullnameOverride": lambda r: A(r).noted("fullnameOverride"),
        "useFIPS": lambda r: need(env(plug(r)).get("AWS_USE_FIPS_ENDPOINT") == "true", "useFIPS")
        + A(r).noted("useFIPS"),
        "portRangeUpperBound": lambda r: need(env(nplug(r)).get("PORT_RANGE_UPPER_BOUND") == "21500",
                                              "portRangeUpperBound: PORT_RANGE_UPPER_BOUND on the node plugin")
        + need("PORT_RANGE_UPPER_BOUND" not in env(plug(r)), "portRangeUpperBound: set on the controller")
        + A(r).applied("portRangeUpperBound"),
        "debugLogs": lambda r: need("--log-level=debug" in args(container(N(r).ds("efs-csi-node"), "efs-plugin")),
                                    "debugLogs"),
        "image.repository": lambda r: need(plug(r)["image"].startswith(V(r)["image"]["repository"] + ":"),
                                           "image.repository"),
        "image.tag": lambda r: need(nplug(r)["image"].endswith(":" + V(r)["image"]["tag"]), "image.tag"),
        "image.pullPolicy": lambda r: need(plug(r)["imagePullPolicy"] == "Always", "image.pullPolicy"),
        "sidecars.livenessProbe": lambda r: sidecar_effects(A(r), ctl(r), "liveness-probe", "livenessProbe")
        + sidecar_effects(A(r), node(r), "liveness-probe", "livenessProbe"),
        "sidecars.nodeDriverRegistrar": lambda r: sidecar_effects(
            Render(A(r).docs, "", {"sidecars": {"nodeDriverRegistrar": {
                k: v for k, v in V(r)["sidecars"]["nodeDriverRegistrar"].items()}}}), node(r), "csi-driver-registrar",
            "nodeDriverRegistrar"),
        "sidecars.csiProvisioner": lambda r: sidecar_effects(
            Render(A(r).docs, "", {"sidecars": {"p": V(r)["sidecars"]["csiProvisioner"]}}), ctl(r), "csi-provisioner",
            "p"),
        "imagePullSecrets": lambda r: need(pod(ctl(r)).get("imagePullSecrets") == [{"name": "ecr-pull"}],
                                           "imagePullSecrets"),
        "controller.create": lambda r: need(not all_of(N(r).docs, "Deployment") and ctl(r) is not None,
                                            "controller.create"),
        # upstream's real chart: controller.name is the Deployment's name and its app label (selector)
        "controller.name": lambda r: need(ctl(r) is not None and
                                          ctl(r)["spec"]["selector"]["matchLabels"]["app"] == cv(r)["name"],
                                          "controller.name: the Deployment's name, upstream's selector"),
        "controller.replicaCount": lambda r: need(ctl(r)["spec"]["replicas"] == 3, "replicaCount"),
        "controller.enableMetrics": lambda r: need(
            (s := find(A(r).docs, "Service", "efs-csi-controller")) is not None and
            [p["name"] for p in s["spec"]["ports"]] == ["metrics", "metrics-prov"] and
            any(a.startswith("--http-endpoint=") for a in args(prov(r))), "enableMetrics (ports metrics, metrics-prov)"),
        # upstream EFS: prometheus.io annotations on the controller pod (enableMetrics and this, default true)
        "controller.enablePrometheusAnnotations": lambda r: need(
            ctl(r)["spec"]["template"]["metadata"]["annotations"].get("prometheus.io/port") == "3301",
            "enablePrometheusAnnotations"),
        "controller.serviceMonitor": lambda r: need(
            (m := find(A(r).docs, "ServiceMonitor", "efs-csi-controller")) is not None and
            [ep["port"] for ep in m["spec"]["endpoints"]] == ["metrics", "metrics-prov"] and
            m["metadata"]["labels"]["release"] == "prometheus", "ServiceMonitor efs-csi-controller"),
        "controller.logLevel": lambda r: need("--log-level=debug" in args(plug(r)) and "--v=5" in args(prov(r)),
                                              "logLevel (plugin and provisioner)"),
        "controller.extraCreateMetadata": lambda r: need("--extra-create-metadata" not in args(prov(r)),
                                                         "extraCreateMetadata"),
        "controller.tags": lambda r: need("--tags=env:test team:storage" in args(plug(r)), "tags"),
        "controller.deleteAccessPointRootDir": lambda r: need(
            "--delete-access-point-root-dir" in args(container(D(r).dep("efs-csi-controller"), "efs-plugin")) and
            container(D(r).dep("efs-csi-controller"), "efs-plugin")["securityContext"]["privileged"] is True and
            "--delete-access-point-root-dir" not in args(plug(r)), "deleteAccessPointRootDir"),
        "controller.podAnnotations": lambda r: need(contains(ctl(r)["spec"]["template"]["metadata"].get("annotations"),
                                                             cv(r)["podAnnotations"]), "podAnnotations"),
        "controller.podLabels": lambda r: need(ctl(r)["spec"]["template"]["metadata"]["labels"]["tier"] ==
                                               "storage", "podLabels"),
        "controller.hostNetwork": lambda r: need(pod(ctl(r)).get("hostNetwork") is True, "hostNetwork"),
        "controller.priorityClassName": lambda r: need(pod(ctl(r))["priorityClassName"] == "storage-critical",
                                                       "priorityClassName"),
        "controller.dnsPolicy": lambda r: need(pod(ctl(r)).get("dnsPolicy") == "ClusterFirstWithHostNet",
                                               "dnsPolicy"),
        "controller.dnsConfig": lambda r: need(pod(ctl(r)).get("dnsConfig") == cv(r)["dnsConfig"], "dnsConfig"),
        "controller.additionalLabels": lambda r: need(ctl(r)["metadata"]["labels"].get("owner") == "storage-team",
                                                      "additionalLabels"),
        "controller.resources": lambda r: need(contains(plug(r)["resources"], cv(r)["resources"]), "resources"),
        "controller.revisionHistoryLimit": lambda r: need(ctl(r)["spec"]["revisionHistoryLimit"] == 4,
                                                          "revisionHistoryLimit"),
        "controller.nodeSelector": lambda r: need(pod(ctl(r))["nodeSelector"]["node-role"] == "system",
                                                  "nodeSelector"),
        "controller.tolerations": lambda r: need(pod(ctl(r))["tolerations"] == cv(r)["tolerations"], "tolerations"),
        "controller.affinity": lambda r: need(contains(pod(ctl(r))["affinity"], cv(r)["affinity"]), "affinity"),
        "controller.env": lambda r: need(env(plug(r)).get("CONTROLLER_ENV") == "1", "env"),
        "controller.volumes": lambda r: need(cv(r)["volumes"][0] in pod(ctl(r))["volumes"], "volumes"),
        "controller.volumeMounts": lambda r: need(cv(r)["volumeMounts"][0] in plug(r)["volumeMounts"],
                                                  "volumeMounts"),
        "controller.socketDirVolume": lambda r: need({"name": "socket-dir", "emptyDir": {"medium": "Memory"}} in
                                                     pod(ctl(r))["volumes"], "socketDirVolume"),
        "controller.serviceAccount": lambda r: need(
            (s := find(A(r).docs, "ServiceAccount", "efs-controller-custom")) is not None and
            "eks.amazonaws.com/role-arn" in s["metadata"]["annotations"] and
            pod(ctl(r))["serviceAccountName"] == "efs-controller-custom", "controller.serviceAccount"),
        "controller.healthPort": lambda r: need(
            {"name": "healthz", "containerPort": 9919, "protocol": "TCP"} in plug(r)["ports"] and
            "--http-endpoint=0.0.0.0:9919" in args(container(ctl(r), "liveness-probe")), "controller.healthPort"),
        "controller.regionalStsEndpoints": lambda r: need(env(plug(r)).get("AWS_STS_REGIONAL_ENDPOINTS") ==
                                                          "regional", "regionalStsEndpoints"),
        "controller.livenessProbe": lambda r: probe(plug(r), "livenessProbe", "periodSeconds", 20),
        "controller.readinessProbe": lambda r: probe(plug(r), "readinessProbe", "periodSeconds", 25),
        "controller.startupProbe": lambda r: probe(plug(r), "startupProbe", "failureThreshold", 30),
        "controller.podDisruptionBudget": lambda r: need(
            (b := find(A(r).docs, "PodDisruptionBudget", cv(r)["name"])) is not None and
            b["spec"]["maxUnavailable"] == 2 and b["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow",
            "podDisruptionBudget"),
        "controller.securityContext": lambda r: need(contains(pod(ctl(r))["securityContext"], cv(r)["securityContext"]),
                                                     "securityContext"),
        "controller.containerSecurityContext": lambda r: need(contains(plug(r)["securityContext"], cv(r)["containerSecurityContext"]),
                                                              "containerSecurityContext"),
        "controller.leaderElectionRenewDeadline": lambda r: need("--leader-election-renew-deadline=12s" in
                                                                 args(prov(r)), "leaderElectionRenewDeadline"),
        "controller.leaderElectionLeaseDuration": lambda r: need("--leader-election-lease-duration=18s" in
                                                                 args(prov(r)), "leaderElectionLeaseDuration"),
        "controller.timeout": lambda r: need("--timeout=45s" in args(prov(r)), "timeout"),
        "controller.workerThreads": lambda r: need("--worker-threads=40" in args(prov(r)), "workerThreads"),
        "controller.topologySpreadConstraints": lambda r: need(
            pod(ctl(r))["topologySpreadConstraints"][0]["labelSelector"] == {"matchLabels": {"app": cv(r)["name"]}},
            "topologySpreadConstraints"),
        "controller.fileSystemIdRefs": lambda r: file_system_id_refs(A(r), "efs-controller-custom")
        + need(find(D(r).docs, "ClusterRole", "efs-csi-filesystem-id-reader-role") is None,
               "fileSystemIdRefs: the ClusterRole rendered although not enabled")
        + A(r).applied("fileSystemIdRefs"),
        "controller.rollingUpdate": lambda r: need(ctl(r)["spec"]["strategy"] == {
            "type": "RollingUpdate", "rollingUpdate": cv(r)["rollingUpdate"]}, "rollingUpdate"),
        "node.logLevel": lambda r: need("--log-level=debug" in args(nplug(r)) and
                                        "--v=4" in args(container(node(r), "csi-driver-registrar")), "node.logLevel"),
        "node.volMetricsOptIn": lambda r: need("--vol-metrics-opt-in" in args(nplug(r)), "volMetricsOptIn"),
        "node.volMetricsRefreshPeriod": lambda r: need("--vol-metrics-refresh-period=120m" in args(nplug(r)),
                                                       "volMetricsRefreshPeriod (minutes)"),
        "node.volMetricsFsRateLimit": lambda r: need("--vol-metrics-fs-rate-limit=3" in args(nplug(r)),
                                                     "volMetricsFsRateLimit"),
        "node.hostAliases": lambda r: need(pod(node(r)).get("hostAliases") == [
            {"ip": "10.10.2.2", "hostnames": ["fs-0123abcd.efs.us-east-2.amazonaws.com"]}], "hostAliases"),
        "node.priorityClassName": lambda r: need(pod(node(r))["priorityClassName"] == "node-storage-critical",
                                                 "node.priorityClassName"),
        "node.dnsPolicy": lambda r: need(pod(node(r)).get("dnsPolicy") == "Default", "node.dnsPolicy"),
        "node.dnsConfig": lambda r: need(pod(node(r)).get("dnsConfig") == nv(r)["dnsConfig"], "node.dnsConfig"),
        "node.podLabels": lambda r: need(node(r)["spec"]["template"]["metadata"]["labels"]["tier"] ==
                                         "storage-node", "node.podLabels"),
        "node.podAnnotations": lambda r: need(node(r)["spec"]["template"]["metadata"].get("annotations") ==
                                              nv(r)["podAnnotations"], "node.podAnnotations"),
        "node.additionalLabels": lambda r: need(node(r)["metadata"]["labels"].get("owner") == "storage-team",
                                                "node.additionalLabels"),
        "node.resources": lambda r: need(contains(nplug(r)["resources"], nv(r)["resources"]), "node.resources"),
        "node.revisionHistoryLimit": lambda r: need(node(r)["spec"]["revisionHistoryLimit"] == 6,
                                                    "node.revisionHistoryLimit"),
        "node.nodeSelector": lambda r: need(pod(node(r))["nodeSelector"]["storage"] == "true", "node.nodeSelector"),
        "node.tolerations": lambda r: need(nv(r)["tolerations"][0] in pod(node(r))["tolerations"] or
                                           {"operator": "Exists"} in pod(node(r))["tolerations"], "node.tolerations"),
        "node.affinity": lambda r: need(contains(pod(node(r))["affinity"], nv(r)["affinity"]), "node.affinity"),
        "node.serviceAccount": lambda r: need(
            find(A(r).docs, "ServiceAccount", "efs-node-custom") is not None and
            pod(node(r))["serviceAccountName"] == "efs-node-custom" and
            env(nplug(r)).get("DISABLE_TAINT_WATCHER") == "true", "node.serviceAccount (disableMutation)"),
        "node.healthPort": lambda r: need(
            {"name": "healthz", "containerPort": 9829, "protocol": "TCP"} in nplug(r)["ports"] and
            "--http-endpoint=0.0.0.0:9829" in args(container(node(r), "liveness-probe")), "node.healthPort"),
        "node.livenessProbe": lambda r: probe(nplug(r), "livenessProbe", "periodSeconds", 2),
        "node.readinessProbe": lambda r: probe(nplug(r), "readinessProbe", "periodSeconds", 15),
        "node.startupProbe": lambda r: probe(nplug(r), "startupProbe", "failureThreshold", 20),
        "node.securityContext": lambda r: need(contains(pod(node(r))["securityContext"], nv(r)["securityContext"]),
                                               "node.securityContext"),
        "node.env": lambda r: need(env(nplug(r)).get("NODE_ENV") == "1", "node.env"),
        "node.volumes": lambda r: need(nv(r)["volumes"][0] in pod(node(r))["volumes"], "node.volumes"),
        "node.volumeMounts": lambda r: need(nv(r)["volumeMounts"][0] in nplug(r)["volumeMounts"],
                                            "node.volumeMounts"),
        "node.kubeletPath": lambda r: need(env(container(node(r), "csi-driver-registrar"))["DRIVER_REG_SOCK_PATH"]
                                           == "/var/lib/k0s/kubelet/plugins/efs.csi.aws.com/csi.sock",
                                           "kubeletPath"),
        "node.rollingUpdate": lambda r: need(node(r)["spec"]["updateStrategy"] == {
            "type": "RollingUpdate", "rollingUpdate": nv(r)["rollingUpdate"]}, "node.rollingUpdate"),
        "node.efsUtilsConfOverrides": lambda r: need(
            "--efs-utils-conf-overrides=mount:fips_mode_enabled=true" in args(nplug(r)) and
            not any(a.startswith("--efs-utils-conf-overrides") for a in args(plug(r)) +
                    args(container(D(r).ds("efs-csi-node"), "efs-plugin"))),
            "efsUtilsConfOverrides: --efs-utils-conf-overrides on the node plugin (only when set)")
        + A(r).applied("efsUtilsConfOverrides"),
        "node.s3filesUtilsConfOverrides": lambda r: A(r).noted("s3filesUtilsConfOverrides"),
        "storageClasses": lambda r: need(
            (sc := find(A(r).docs, "StorageClass", "efs-sc")) is not None and sc["provisioner"] == "efs.csi.aws.com"
            and sc["volumeBindingMode"] == "WaitForFirstConsumer" and sc["reclaimPolicy"] == "Retain" and
            "allowVolumeExpansion" not in sc and sc["mountOptions"] == ["tls"] and
            sc["parameters"]["basePath"] == "/dynamic_provisioning", "storageClasses entry"),
        "useHelmHooksForCSIDriver": lambda r: need(
            find(A(r).docs, "CSIDriver")["metadata"]["annotations"]["helm.sh/hook"] == "pre-install, pre-upgrade" and
            "helm.sh/hook" not in find(N(r).docs, "CSIDriver")["metadata"].get("annotations", {}),
            "useHelmHooksForCSIDriver: a hook when true, an object of the release when false"),
    }
    return e


def file_system_id_refs(r: Render, account: str) -> list[str]:
    """controller.fileSystemIdRefs.enabled: get, and only get, on ConfigMaps and Secrets, bound cluster-wide to the
    EFS controller's service account (a StorageClass's reference may name any namespace)."""
    role = find(r.docs, "ClusterRole", "efs-csi-filesystem-id-reader-role")
    binding = find(r.docs, "ClusterRoleBinding", "efs-csi-filesystem-id-reader-role-binding")
    problems = need(role is not None and binding is not None, "fileSystemIdRefs: ClusterRole or binding not rendered")
    if role and binding:
        problems += need(role["rules"] == [{"apiGroups": [""], "resources": ["configmaps", "secrets"],
                                            "verbs": ["get"]}], f"fileSystemIdRefs: rules {role['rules']}")
        problems += need(binding["roleRef"]["name"] == role["metadata"]["name"] and
                         [s["name"] for s in binding["subjects"]] == [account],
                         f"fileSystemIdRefs: bound to {binding['subjects']}")
    return problems


def has_path(values: dict, dotted: str) -> bool:
    node = values
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def check_key_effects(renders: dict[str, Render], driver: str) -> list[tuple[str, list[str]]]:
    """One result per upstream key of the driver: set in one of the driver's upstream values files, and its effect."""
    effects = ebs_effects() if driver == "EBS" else efs_effects()
    keys = [line.split()[1] for line in KEYS_FILE.read_text().splitlines()
            if line.strip() and not line.startswith("#") and line.split()[0] == driver]
    results = []
    for key in keys:
        problems = []
        if not any(has_path(r.values, key) for r in renders.values()):
            problems.append(f"{key} is set in no upstream values file of {driver}")
        if key not in effects:
            problems.append(f"no assertion of {key}'s effect")
        else:
            try:
                problems += effects[key](renders)
            except (KeyError, TypeError, IndexError, AttributeError) as failure:
                problems.append(f"{key}: expected object or field missing ({type(failure).__name__}: {failure})")
        results.append((key, problems))
    for extra in sorted(set(effects) - set(keys)):
        results.append((extra, [f"asserted, but not an upstream key in {KEYS_FILE.name}"]))
    return results


# --- render-level upgrade test ------------------------------------------------------------------------------------

def immutable_view(doc: dict) -> dict:
    """The fields an in-place upgrade cannot change, with the API server's defaults filled in."""
    kind = doc["kind"]
    spec = doc.get("spec", {})
    if kind in ("Deployment", "DaemonSet"):
        return {"selector": spec["selector"]}
    if kind in ("ClusterRoleBinding", "RoleBinding"):
        return {"roleRef": doc["roleRef"]}
    if kind == "Service":
        return {"type": spec.get("type", "ClusterIP"), "headless": spec.get("clusterIP") == "None"}
    if kind == "StorageClass":
        return {"provisioner": doc["provisioner"],
                "parameters": {k: str(v) for k, v in (doc.get("parameters") or {}).items()},
                "reclaimPolicy": doc.get("reclaimPolicy", "Delete"),
                "volumeBindingMode": doc.get("volumeBindingMode", "Immediate")}
    if kind == "CSIDriver":
        return {"attachRequired": spec.get("attachRequired", True), "podInfoOnMount": spec.get("podInfoOnMount", False),
                "fsGroupPolicy": spec.get("fsGroupPolicy", "ReadWriteOnceWithFSType"),
                "volumeLifecycleModes": spec.get("volumeLifecycleModes", ["Persistent"]),
                "helmHook": doc["metadata"].get("annotations", {}).get("helm.sh/hook")}
    if kind == "VolumeSnapshotClass":
        return {"driver": doc["driver"], "parameters": {k: str(v) for k, v in (doc.get("parameters") or {}).items()}}
    return {}


# Objects upstream renders that this chart leaves out on purpose (helm upgrade deletes them).
MAY_GO: set[tuple[str, str]] = set()


def check_upgrade(upstream_docs: list[dict], our_docs: list[dict]) -> list[str]:
    problems = []
    key = lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"])
    ours = {key(d): d for d in our_docs}
    for theirs in upstream_docs:
        k = key(theirs)
        mine = ours.get(k)
        if mine is None:
            if (k[0], k[2]) not in MAY_GO:
                problems.append(f"{k[0]} {k[2]} (upstream) is not rendered: helm upgrade would delete it")
            continue
        if immutable_view(theirs) != immutable_view(mine):
            problems.append(f"{k[0]} {k[2]}: immutable fields differ: upstream {immutable_view(theirs)}, "
                            f"this chart {immutable_view(mine)}")
        if k[0] in ("Deployment", "DaemonSet"):
            their_labels = {a: b for a, b in theirs["spec"]["template"]["metadata"]["labels"].items()
                            if a not in ("helm.sh/chart", "app.kubernetes.io/version")}
            my_labels = mine["spec"]["template"]["metadata"]["labels"]
            if any(my_labels.get(a) != b for a, b in their_labels.items()):
                problems.append(f"{k[0]} {k[2]}: pods lose upstream labels {their_labels} (have {my_labels})")
    # A hook made by upstream is no object of the release: rendering it as one would fail on ownership.
    for d in upstream_docs:
        if d["kind"] == "CSIDriver" and d["metadata"].get("annotations", {}).get("helm.sh/hook"):
            mine = ours.get(key(d))
            if mine is not None and not mine["metadata"].get("annotations", {}).get("helm.sh/hook"):
                problems.append("CSIDriver: upstream made it a hook; as a release object the upgrade fails on "
                                "ownership")
    return problems


# --- the rest ------------------------------------------------------------------------------------------------------

def check_defaults_as_upstream(tools, chart: Path) -> list[str]:
    """No StorageClass and no VolumeSnapshotClass unless asked (even with the snapshot API served), whichever chart."""
    result = tools.template(KUBE, "--api-versions", "snapshot.storage.k8s.io/v1", chart=chart)
    if result.returncode != 0:
        return [result.stderr]
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    return [f"{d['kind']} {d['metadata']['name']} rendered by default" for d in docs
            if d["kind"] in ("StorageClass", "VolumeSnapshotClass")]


def run_all(tools, results, rendered_sets, cache: Path, charts: dict[str, Path], validate) -> None:
    """validate: chart_checks.validate_offline (kubeconform against the offline schemas)."""
    for chart_name, driver, files in (("aws-ebs-csi-driver", "EBS", ("ebs-all-keys", "ebs-node-only")),
                                      ("aws-efs-csi-driver", "EFS", ("efs-all-keys", "efs-no-controller", "efs-root-dir-deletion"))):
        renders = {}
        for stem in files:
            entry = rendered_sets.get(f"{chart_name}/{stem}")
            if entry is None:
                results.record(f"{chart_name}/{stem}: rendered", ["did not render (see above)"])
                continue
            value_set, docs = entry
            notes = notes_of(tools, charts[chart_name], value_set.path, value_set.helm_args)
            renders[stem] = Render(docs, notes, value_set.values)
        if len(renders) != len(files):
            continue
        for key, problems in check_key_effects(renders, driver):
            results.record(f"{chart_name}: upstream key {key} has its effect", problems)

    # NOTES.txt: quiet for the defaults, loud for what cannot be applied.
    for chart_name in ("aws-ebs-csi-driver", "aws-efs-csi-driver", "aws-csi-driver"):
        notes = notes_of(tools, charts[chart_name], None)
        results.record(f"{chart_name}: NOTES.txt lists nothing as not applied with the default values",
                       need("Accepted but not applied" not in notes and "RENDER FAILED" not in notes, notes))
        if chart_name == "aws-ebs-csi-driver":
            # upstream's default node.enableWindows=true renders ebs-csi-node-windows: its loss is said loudly.
            results.record(f"{chart_name}: NOTES.txt warns that ebs-csi-node-windows is not rendered (upstream's "
                           "default enableWindows)", need("WARNING: node.enableWindows" in notes and
                                                          "ebs-csi-node-windows" in notes, notes))
    for chart_name in ("aws-ebs-csi-driver", "aws-efs-csi-driver", "aws-csi-driver"):
        notes = notes_of(tools, charts[chart_name], None, ["--set", "diagnose.clusterRole.create=true"])
        results.record(f"{chart_name}: NOTES.txt names the diagnose ClusterRole and how to bind it",
                       need(f"read-only ClusterRole {chart_name}-diagnose" in notes
                            and "kubectl create clusterrolebinding" in notes, notes))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as typo:
        typo.write("controler:\n  replicaCount: 3\nnode:\n  tolerateAllTaint: false\n")
        typo.flush()
        # EFS: upstream's chart has no schema and ignores them: accepted and listed. EBS: upstream's closed schema
        # refuses them, and so does this chart's (derived from it).
        notes = notes_of(tools, charts["aws-efs-csi-driver"], Path(typo.name))
        results.record("aws-efs-csi-driver: keys neither chart knows are accepted and listed in NOTES.txt",
                       need("controler: not a key" in notes and "node.tolerateAllTaint: not a key" in notes, notes))
        refused = tools.template(KUBE, "-f", typo.name, chart=charts["aws-ebs-csi-driver"])
        results.record("aws-ebs-csi-driver: keys upstream's schema refuses are refused (values.schema.json)",
                       need(refused.returncode != 0 and "controler" in refused.stderr, refused.stderr or "rendered"))

    # Render-level upgrade from upstream releases.
    for chart_name in ("aws-ebs-csi-driver", "aws-efs-csi-driver"):
        for values_file in [None] + sorted(UPGRADE_VALUES.glob(f"{chart_name.split('-')[1]}-*.yaml")):
            extra = ["-f", str(values_file)] if values_file else []
            label = values_file.stem if values_file else "default values"
            theirs = tools.template(KUBE, *extra, chart=SHAPED / chart_name, release=chart_name)
            mine = tools.template(KUBE, *extra, chart=charts[chart_name], release=chart_name)
            if theirs.returncode or mine.returncode:
                results.record(f"upgrade {chart_name} ({label}): both render", [theirs.stderr, mine.stderr])
                continue
            parse = lambda out: [d for d in yaml.safe_load_all(out) if d]
            results.record(f"upgrade from upstream {chart_name} ({label}): immutable fields and pod labels kept",
                           check_upgrade(parse(theirs.stdout), parse(mine.stdout)))
            results.record(f"upgrade fixture {chart_name} ({label}): kubeconform -strict",
                           validate(tools, theirs.stdout, parse(theirs.stdout), KUBE, cache))

    # Upstream's value types (klog numbers, minutes, leaderElection.enabled) in every chart.
    typed = {
        # (a string leaderElection.enabled is refused by upstream's EBS schema, and by this chart's derived from it)
        "aws-ebs-csi-driver": ["--set", "controller.logLevel=2", "--set", "node.logLevel=7"],
        "aws-efs-csi-driver": ["--set", "controller.logLevel=2", "--set", "node.volMetricsRefreshPeriod=240",
                               "--set", "node.volMetricsOptIn=true"],
        "aws-csi-driver": ["--set", "controller.logLevel=2", "--set", "node.logLevel=5", "--set", "efs.enabled=true",
                           "--set", "node.volMetricsRefreshPeriod=240", "--set", "node.volMetricsOptIn=true"],
    }
    for chart_name, extra in typed.items():
        result = tools.template(KUBE, *extra, chart=charts[chart_name])
        results.record(f"{chart_name}: upstream value types accepted (logLevel numbers, minutes, string booleans)",
                       [result.stderr] if result.returncode else
                       need("--vol-metrics-refresh-period=240m" in result.stdout or chart_name == "aws-ebs-csi-driver",
                            "volMetricsRefreshPeriod 240 did not become 240m"))
        results.record(f"{chart_name}: no StorageClass or VolumeSnapshotClass by default",
                       check_defaults_as_upstream(tools, charts[chart_name]))

    # aws-csi-driver: an upstream-style EFS entry (no driver) is an EFS class; an entry that names nothing while both
    # drivers run is refused with its name.
    efs_entry = ["--set", "efs.enabled=true", "--set", "storageClasses[0].name=shared",
                 "--set", "storageClasses[0].parameters.provisioningMode=efs-ap",
                 "--set", "storageClasses[0].parameters.fileSystemId=fs-0123abcd"]
    result = tools.template(KUBE, *efs_entry)
    sc = find([d for d in yaml.safe_load_all(result.stdout) if d], "StorageClass", "shared") if not result.returncode else None
    results.record("aws-csi-driver: an upstream-style EFS storageClasses entry renders for efs.csi.aws.com",
                   need(sc is not None and sc["provisioner"] == "efs.csi.aws.com" and "allowVolumeExpansion" not in sc
                        and sc["volumeBindingMode"] == "Immediate", f"{sc} {result.stderr}"))
    result = tools.template(KUBE, "--set", "efs.enabled=true", "--set", "storageClasses[0].name=which")
    results.record("aws-csi-driver: a storageClasses entry naming no driver, both drivers on, is refused by name",
                   need(result.returncode != 0 and "storageClasses[0] (which)" in result.stderr, result.stderr[:300]))
