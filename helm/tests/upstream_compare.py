#!/usr/bin/env python3
"""Render comparison against upstream's REAL charts (issue 26, proof (a)).

For every values file of a corpus, render upstream's released chart (aws-ebs-csi-driver 2.64.0, aws-efs-csi-driver
4.4.1, read from UPSTREAM_CHARTS, default `<repo>/../shared/reference/upstream-charts`, never copied here) and this
repository's chart of the same name with the same release name and values, pair the objects by kind and name, and
compare what the cluster would run: images, arguments by meaning (flag -> value), env, probes, security contexts,
resources, ports, tolerations, affinity, RBAC rules (expanded to group/resource/verb), bindings, selectors, Services,
CSIDriver, classes, PodDisruptionBudgets. Every difference must be listed in `intended-differences.yaml` (a regex on
the difference's path, with the reason); an entry with `notes:` also needs that line in this chart's NOTES.txt for
that values file. A difference nobody listed fails the test, and so does a listed entry no corpus entry hits any
more (the list stays exact).

The corpus (`CORPUS`): upstream's defaults; upstream's values.yaml with every scalar key set to a non-default value
(generated from upstream's values.yaml, `every_key_changed`); typical EKS add-on configurations
(`tests/upstream/compare/*.yaml`); and `helm upgrade --reuse-values` from upstream's release for each of those: Helm
then renders this chart with the OLD release's values (upstream's values.yaml coalesced with the user's) and without
this chart's values.yaml, emulated by rendering a copy of this chart whose values.yaml is upstream's coalesced values.

Run on its own: `UPSTREAM_CHARTS=... python3 upstream_compare.py --helm helm [-v]` (prints every difference).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
HELM_DIR = HERE.parent
REPO = HELM_DIR.parent
INTENDED = HERE / "intended-differences.yaml"
COMPARE_VALUES = HERE / "upstream" / "compare"
KUBE = "1.34.0"
NAMESPACE = "kube-system"
# A live EKS cluster of that version: the snapshot CRDs installed, VolumeAttributesClass served (GA in 1.34).
API_VERSIONS = ["snapshot.storage.k8s.io/v1", "storage.k8s.io/v1/VolumeAttributesClass"]
CHART_NAMES = ("aws-ebs-csi-driver", "aws-efs-csi-driver")


def upstream_charts() -> Path:
    return Path(os.environ.get("UPSTREAM_CHARTS") or (REPO / ".." / "shared" / "reference" / "upstream-charts"))


# --- values corpus ---------------------------------------------------------------------------------------------------

# Keys left at upstream's default in the every-key file: each turns a whole component off (they have their own
# corpus entries), or takes a value upstream's own templates cannot render when changed blindly.
KEEP_DEFAULT = {
    "aws-ebs-csi-driver": {"nodeComponentOnly", "node.enableLinux", "useOldCSIDriver", "controller.enabled",
                           "helmTester.enabled", "helmTester.image", "image.repository", "image.tag",
                           "controller.serviceAccount.create", "node.serviceAccount.create",
                           "controller.podDisruptionBudget.enabled", "nodeAllocatableUpdatePeriodSeconds",
                           "controller.loggingFormat", "node.loggingFormat", "node.kubeletPath",
                           "node.windowsHostProcess", "controller.socketDirVolume", "node.metadataSources",
                           "controller.batching", "controller.volumeModificationFeature.enabled",
                           "controller.enableNodeLocalVolumes", "node.enableWindows", "a11yTester"},
    "aws-efs-csi-driver": {"controller.create", "node.enabled", "image.repository", "image.tag",
                           "controller.serviceAccount.create", "node.serviceAccount.create",
                           "useHelmHooksForCSIDriver", "csidriver.create", "controller.podDisruptionBudget.enabled",
                           "node.kubeletPath", "useFIPS"},
}


def changed_scalar(path: str, value):
    """A non-default value of the same type as upstream's default, valid for what the key means."""
    leaf = path.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        if "logLevel" in leaf:
            return 5 if value != 5 else 3
        return value + 1 if value >= 0 else 30
    if isinstance(value, float):
        return value + 1
    if isinstance(value, str):
        if leaf == "tag":
            return value + "-mirror" if value else "v9.9.9"
        if leaf == "repository":
            return "mirror.example.com/" + value.split("/")[-1]
        if leaf == "pullPolicy":
            return "Always" if value != "Always" else "IfNotPresent"
        if re.fullmatch(r"[0-9]+(\.[0-9]+)?(ms|s|m|h)", value):
            return str(int(re.match(r"[0-9]+", value).group(0)) * 2) + re.sub(r"^[0-9.]+", "", value)
        if leaf == "priorityClassName":
            return "custom-critical"
        if leaf == "name":
            return value + "-custom"
        return None  # free text with a meaning (modes, formats): left as upstream's
    if value is None:
        return None
    return None


def every_key_changed(chart: str, defaults: dict) -> dict:
    keep = KEEP_DEFAULT[chart]

    def walk(node, prefix):
        out = {}
        for key, value in node.items():
            path = f"{prefix}{key}"
            if path in keep:
                continue
            if isinstance(value, dict):
                if value:
                    sub = walk(value, path + ".")
                    if sub:
                        out[key] = sub
                continue
            new = changed_scalar(path, value)
            if new is not None:
                out[key] = new
        return out

    changed = walk(defaults, "")
    # Non-empty stand-ins for the empty lists and maps every operator fills in.
    if chart == "aws-ebs-csi-driver":
        extra = {
            "controller": {"extraVolumeTags": {"team": "storage"}, "env": [{"name": "EXTRA", "value": "1"}],
                           "podLabels": {"extra": "label"}, "podAnnotations": {"extra": "annotation"},
                           "nodeSelector": {"pool": "system"}, "region": "eu-west-1", "k8sTagClusterId": "prod",
                           "resources": {"requests": {"cpu": "20m", "memory": "60Mi"}, "limits": {"memory": "300Mi"}},
                           "podDisruptionBudget": {"minAvailable": 1}},
            "node": {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}],
                     "env": [{"name": "EXTRA", "value": "1"}], "podLabels": {"extra": "label"},
                     "nodeSelector": {"pool": "workers"}, "volumeAttachLimit": 20,
                     "resources": {"requests": {"cpu": "20m", "memory": "60Mi"}, "limits": {"memory": "300Mi"}}},
            "storageClasses": [{"name": "gp3-enc", "parameters": {"type": "gp3", "encrypted": "true"},
                                "volumeBindingMode": "WaitForFirstConsumer"}],
            "volumeSnapshotClasses": [{"name": "ebs-vsc", "deletionPolicy": "Delete"}],
            "customLabels": {"cost-center": "42"},
            "imagePullSecrets": ["regcred"],
            "proxy": {"http_proxy": "http://proxy:3128", "no_proxy": "10.0.0.0/8"},
        }
    else:
        extra = {
            "controller": {"tags": {"team": "storage"}, "podLabels": {"extra": "label"},
                           "nodeSelector": {"pool": "system"}, "regionalStsEndpoints": True,
                           "resources": {"requests": {"cpu": "20m", "memory": "60Mi"}, "limits": {"memory": "300Mi"}}},
            "node": {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}],
                     "podLabels": {"extra": "label"}, "nodeSelector": {"pool": "workers"},
                     "resources": {"requests": {"cpu": "20m", "memory": "60Mi"}, "limits": {"memory": "300Mi"}}},
            "storageClasses": [{"name": "efs-sc", "parameters": {"provisioningMode": "efs-ap",
                                                                 "fileSystemId": "fs-0123456789abcdef0",
                                                                 "directoryPerms": "700"}}],
            "imagePullSecrets": ["regcred"],
        }
    return coalesce(extra, changed)


def coalesce(override: dict, base: dict) -> dict:
    """Helm's coalescing: maps merge key by key, anything else in override replaces base."""
    out = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = coalesce(value, out[key])
        else:
            out[key] = copy.deepcopy(value)
    return out


def corpus(chart: str, defaults: dict) -> list[tuple[str, dict]]:
    entries = [("defaults", {}), ("every-key-changed", every_key_changed(chart, defaults))]
    for path in sorted(COMPARE_VALUES.glob("*.yaml")):
        text = path.read_text()
        if m := re.search(r"^#\s*chart:\s*(\S+)", text, re.M):
            if m.group(1) != chart:
                continue
        entries.append((path.stem, yaml.safe_load(text) or {}))
    return entries


# --- rendering -------------------------------------------------------------------------------------------------------

class Renderer:
    def __init__(self, helm: str):
        self.helm = helm

    def run(self, chart: Path, values: dict, release: str) -> tuple[list[dict], str]:
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            yaml.safe_dump(values, f)
            values_file = f.name
        try:
            args = [self.helm, "template", release, str(chart), "--namespace", NAMESPACE, "--kube-version", KUBE,
                    "-f", values_file]
            for api in API_VERSIONS:
                args += ["--api-versions", api]
            result = subprocess.run(args, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                err = "\n".join(l for l in result.stderr.splitlines() if "found symbolic link" not in l)
                return [], "RENDER FAILED: " + err
            return [d for d in yaml.safe_load_all(result.stdout) if d], ""
        finally:
            os.unlink(values_file)

    def ours(self, chart: Path, values: dict, release: str, reuse_base: dict | None) -> tuple[list[dict], str, str]:
        """This chart's objects and NOTES.txt. reuse_base: upstream's coalesced values standing in for this chart's
        values.yaml (helm upgrade --reuse-values)."""
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / chart.name
            shutil.copytree(chart, work, symlinks=False)
            if reuse_base is not None:
                (work / "values.yaml").write_text(yaml.safe_dump(reuse_base))
            (work / "NOTES.txt.rendered").write_text((chart / "templates" / "NOTES.txt").read_text())
            (work / "templates" / "zz-notes.yaml").write_text(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: zz-rendered-notes\ndata:\n"
                "  notes: {{ tpl (.Files.Get \"NOTES.txt.rendered\") . | quote }}\n")
            docs, err = self.run(work, values if reuse_base is None else {}, release)
        notes = ""
        rest = []
        for d in docs:
            if d.get("kind") == "ConfigMap" and d["metadata"]["name"] == "zz-rendered-notes":
                notes = d["data"]["notes"]
            else:
                rest.append(d)
        return rest, notes, err


# --- normalising what the cluster runs -------------------------------------------------------------------------------

def parse_args(args: list) -> dict:
    out = {}
    for a in args or []:
        a = str(a)
        if a.startswith("-"):
            name = a.lstrip("-")
            key, _, val = name.partition("=")
            if key == "feature-gates" and key in out:
                # repeated --feature-gates merge (component-base's map flag)
                val = ",".join(sorted(set(out[key].split(",")) | set(val.split(","))))
            elif key == "feature-gates":
                val = ",".join(sorted(val.split(",")))
            out[key] = val if "=" in name else "true"
        else:
            out.setdefault("<positional>", []).append(a)
    return out


# The launcher's flag table (Usage.SERVE, written by FlagTable.json()): each flag's default is there and nowhere else.
PLUGIN_FLAG_TABLE = Path(__file__).resolve().parents[2] / "docs" / "plugin-flags.json"


def driver_defaults() -> dict:
    """Plugin flags whose value is this driver's default, in upstream's terms where upstream's Go driver has the same
    default: passing them or not means the same. A flag that takes no value defaults to false. (EFS: the opt-ins off
    make --max-inflight-mount-calls and --volume-attach-limit inert, in both drivers.)"""
    out = {}
    for flag in json.loads(PLUGIN_FLAG_TABLE.read_text())["flags"]:
        if not flag["takesValue"]:
            out[flag["name"]] = "false"
        elif flag["default"]:
            out[flag["name"]] = flag["default"]
    return plugin_args_by_meaning(out)


INERT_WITHOUT_OPT_IN = {"max-inflight-mount-calls": "max-inflight-mount-calls-opt-in",
                        "volume-attach-limit": "volume-attach-limit-opt-in"}


def drop_defaults(args: dict, efs: bool) -> dict:
    defaults = driver_defaults()
    out = {k: v for k, v in args.items() if defaults.get(k) != v}
    if efs:
        for flag, opt_in in INERT_WITHOUT_OPT_IN.items():
            if args.get(opt_in, "false") == "false":
                out.pop(flag, None)
    return out


def plugin_args_by_meaning(args: dict) -> dict:
    """Upstream's Go plugin flags in this driver's terms, where the meaning is the same: klog --v=N is --log-level
    (0-3 info, 4 and up debug: this driver has no finer levels), --logging-format is --log-format."""
    out = dict(args)
    if "v" in out:
        level = out.pop("v")
        out["log-level"] = "debug" if level.isdigit() and int(level) >= 4 else "info"
    if out.get("logtostderr") == "true":
        del out["logtostderr"]  # what this driver always does: its log goes to stderr
    if out.pop("debug-logs", "false") == "true":
        out["log-level"] = "debug"
    if re.fullmatch(r"[0-9]+", out.get("vol-metrics-refresh-period", "x")):
        out["vol-metrics-refresh-period"] += "m"
    if "logging-format" in out:
        out["log-format"] = out.pop("logging-format")
    return out


def env_map(container: dict) -> dict:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", []) or []}


def rules_of(role: dict) -> set:
    out = set()
    for rule in role.get("rules", []) or []:
        for g in rule.get("apiGroups", [""]) or [""]:
            for r in rule.get("resources", []) or []:
                for v in rule.get("verbs", []) or []:
                    names = ",".join(sorted(rule.get("resourceNames", []) or []))
                    out.add(f"{g or 'core'}/{r}/{v}" + (f"[{names}]" if names else ""))
        for u in rule.get("nonResourceURLs", []) or []:
            for v in rule.get("verbs", []) or []:
                out.add(f"url:{u}/{v}")
    return out


def sorted_list(value):
    if isinstance(value, list):
        return sorted((yaml.safe_dump(v, sort_keys=True) for v in value))
    return value


class Diff:
    def __init__(self):
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, message: str):
        self.items.append((path, message))

    def eq(self, path: str, upstream, ours):
        if upstream != ours:
            self.add(path, f"upstream {short(upstream)}, ours {short(ours)}")

    def keyed(self, path: str, upstream: dict, ours: dict):
        for k in sorted(set(upstream) | set(ours), key=str):
            if k not in ours:
                self.add(f"{path}/{k}", f"only upstream: {short(upstream[k])}")
            elif k not in upstream:
                self.add(f"{path}/{k}", f"only ours: {short(ours[k])}")
            elif upstream[k] != ours[k]:
                self.add(f"{path}/{k}", f"upstream {short(upstream[k])}, ours {short(ours[k])}")


def short(value) -> str:
    s = yaml.safe_dump(value, default_flow_style=True, sort_keys=True).strip() if not isinstance(value, str) else value
    s = s.replace("\n", " ")
    return s if len(s) < 300 else s[:300] + "..."


def compare_container(diff: Diff, path: str, u: dict, o: dict):
    diff.eq(f"{path}/image", u.get("image"), o.get("image"))
    diff.eq(f"{path}/imagePullPolicy", u.get("imagePullPolicy", "IfNotPresent"), o.get("imagePullPolicy", "IfNotPresent"))
    if path.endswith("-plugin"):
        efs = path.endswith("efs-plugin")
        diff.keyed(f"{path}/args", drop_defaults(plugin_args_by_meaning(parse_args(u.get("args"))), efs),
                   drop_defaults(parse_args(o.get("args")), efs))
    else:
        diff.keyed(f"{path}/args", parse_args(u.get("args")), parse_args(o.get("args")))
    diff.eq(f"{path}/command", u.get("command"), o.get("command"))
    diff.keyed(f"{path}/env", env_map(u), env_map(o))
    diff.eq(f"{path}/envFrom", u.get("envFrom"), o.get("envFrom"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        diff.eq(f"{path}/{probe}", u.get(probe), o.get(probe))
    diff.eq(f"{path}/securityContext", u.get("securityContext"), o.get("securityContext"))
    diff.eq(f"{path}/resources", u.get("resources") or None, o.get("resources") or None)
    diff.eq(f"{path}/terminationMessagePolicy", u.get("terminationMessagePolicy", "File"),
            o.get("terminationMessagePolicy", "File"))
    diff.keyed(f"{path}/ports", {p.get("name", str(p["containerPort"])): p["containerPort"] for p in u.get("ports", []) or []},
               {p.get("name", str(p["containerPort"])): p["containerPort"] for p in o.get("ports", []) or []})
    diff.keyed(f"{path}/volumeMounts", {m["mountPath"].rstrip("/"): m.get("mountPropagation") for m in u.get("volumeMounts", []) or []},
               {m["mountPath"].rstrip("/"): m.get("mountPropagation") for m in o.get("volumeMounts", []) or []})
    diff.eq(f"{path}/lifecycle", u.get("lifecycle"), o.get("lifecycle"))


def compare_workload(diff: Diff, path: str, u: dict, o: dict):
    us, os_ = u["spec"], o["spec"]
    diff.eq(f"{path}/selector", us.get("selector"), os_.get("selector"))
    diff.eq(f"{path}/replicas", us.get("replicas"), os_.get("replicas"))
    diff.eq(f"{path}/strategy", us.get("strategy") or us.get("updateStrategy"), os_.get("strategy") or os_.get("updateStrategy"))
    diff.eq(f"{path}/revisionHistoryLimit", us.get("revisionHistoryLimit"), os_.get("revisionHistoryLimit"))
    ut, ot = us["template"], os_["template"]
    ul, ol = ut["metadata"].get("labels", {}) or {}, ot["metadata"].get("labels", {}) or {}
    for k, v in ul.items():
        if k in ("helm.sh/chart", "app.kubernetes.io/version"):
            continue
        if ol.get(k) != v:
            diff.add(f"{path}/podLabels/{k}", f"upstream {v}, ours {ol.get(k)}")
    ua, oa = ut["metadata"].get("annotations", {}) or {}, ot["metadata"].get("annotations", {}) or {}
    diff.keyed(f"{path}/podAnnotations", ua, oa)
    up, op = ut["spec"], ot["spec"]
    api_defaults = {"hostNetwork": False, "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst"}
    for key in ("serviceAccountName", "priorityClassName", "hostNetwork", "dnsPolicy", "nodeSelector", "affinity",
                "securityContext", "automountServiceAccountToken", "terminationGracePeriodSeconds", "hostAliases",
                "dnsConfig", "imagePullSecrets", "runtimeClassName", "topologySpreadConstraints"):
        default = api_defaults.get(key)
        diff.eq(f"{path}/pod/{key}", up.get(key, default) or default, op.get(key, default) or default)
    diff.eq(f"{path}/pod/tolerations", sorted_list(up.get("tolerations")), sorted_list(op.get("tolerations")))
    diff.keyed(f"{path}/pod/volumes", {v["name"]: {k: x for k, x in v.items() if k != "name"} for v in up.get("volumes", []) or []},
               {v["name"]: {k: x for k, x in v.items() if k != "name"} for v in op.get("volumes", []) or []})
    for kind in ("initContainers", "containers"):
        uc = {c["name"]: c for c in up.get(kind, []) or []}
        oc = {c["name"]: c for c in op.get(kind, []) or []}
        for name in sorted(set(uc) | set(oc)):
            cpath = f"{path}/{kind}/{name}"
            if name not in oc:
                diff.add(cpath, "container only upstream")
            elif name not in uc:
                diff.add(cpath, "container only ours")
            else:
                compare_container(diff, cpath, uc[name], oc[name])


def compare_object(diff: Diff, path: str, kind: str, u: dict, o: dict):
    if kind in ("Deployment", "DaemonSet"):
        compare_workload(diff, path, u, o)
    elif kind in ("ClusterRole", "Role"):
        ur, orr = rules_of(u), rules_of(o)
        for r in sorted(ur - orr):
            diff.add(f"{path}/rules/{r}", "only upstream")
        for r in sorted(orr - ur):
            diff.add(f"{path}/rules/{r}", "only ours")
    elif kind in ("ClusterRoleBinding", "RoleBinding"):
        diff.eq(f"{path}/roleRef", u.get("roleRef"), o.get("roleRef"))
        diff.eq(f"{path}/subjects", sorted_list(u.get("subjects")), sorted_list(o.get("subjects")))
    elif kind == "ServiceAccount":
        diff.eq(f"{path}/annotations", u["metadata"].get("annotations"), o["metadata"].get("annotations"))
        diff.eq(f"{path}/automountServiceAccountToken", u.get("automountServiceAccountToken"),
                o.get("automountServiceAccountToken"))
        diff.eq(f"{path}/imagePullSecrets", u.get("imagePullSecrets"), o.get("imagePullSecrets"))
    elif kind == "Service":
        us, os_ = u["spec"], o["spec"]
        diff.eq(f"{path}/selector", us.get("selector"), os_.get("selector"))
        diff.eq(f"{path}/type", us.get("type", "ClusterIP"), os_.get("type", "ClusterIP"))
        diff.eq(f"{path}/internalTrafficPolicy", us.get("internalTrafficPolicy"), os_.get("internalTrafficPolicy"))
        diff.keyed(f"{path}/ports", {p.get("name", ""): (p.get("port"), p.get("targetPort")) for p in us.get("ports", [])},
                   {p.get("name", ""): (p.get("port"), p.get("targetPort")) for p in os_.get("ports", [])})
        diff.keyed(f"{path}/annotations", u["metadata"].get("annotations") or {}, o["metadata"].get("annotations") or {})
        diff.eq(f"{path}/labels/app", (u["metadata"].get("labels") or {}).get("app"),
                (o["metadata"].get("labels") or {}).get("app"))
    elif kind == "CSIDriver":
        diff.keyed(f"{path}/spec", u["spec"], o["spec"])
        diff.keyed(f"{path}/annotations", u["metadata"].get("annotations") or {}, o["metadata"].get("annotations") or {})
    elif kind in ("StorageClass", "VolumeSnapshotClass"):
        strip = {"apiVersion", "kind", "metadata"}
        # the API's defaults, filled in by the API server when a field is left out
        defaults = {"reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"} if kind == "StorageClass" else {}
        diff.keyed(f"{path}/fields", {**defaults, **{k: v for k, v in u.items() if k not in strip}},
                   {**defaults, **{k: v for k, v in o.items() if k not in strip}})
        diff.keyed(f"{path}/annotations", u["metadata"].get("annotations") or {}, o["metadata"].get("annotations") or {})
    elif kind == "PodDisruptionBudget":
        diff.eq(f"{path}/spec", {k: v for k, v in u["spec"].items() if v is not None},
                {k: v for k, v in o["spec"].items() if v is not None})
    elif kind == "ServiceMonitor":
        diff.eq(f"{path}/spec", u["spec"], o["spec"])
    else:
        diff.eq(f"{path}/spec", u.get("spec"), o.get("spec"))


def compare(upstream: list[dict], ours: list[dict]) -> list[tuple[str, str]]:
    diff = Diff()
    index_u = {(d["kind"], d["metadata"]["name"]): d for d in upstream}
    index_o = {(d["kind"], d["metadata"]["name"]): d for d in ours}
    for key in sorted(set(index_u) | set(index_o)):
        path = f"{key[0]}/{key[1]}"
        if key not in index_o:
            diff.add(path, "object only upstream")
        elif key not in index_u:
            diff.add(path, "object only ours")
        else:
            compare_object(diff, path, key[0], index_u[key], index_o[key])
    return diff.items


# --- the intended differences ----------------------------------------------------------------------------------------

def load_intended() -> list[dict]:
    entries = yaml.safe_load(INTENDED.read_text()) or []
    for e in entries:
        e["_re"] = re.compile(e["match"])
        e["_hits"] = 0
        if not e.get("reason"):
            raise SystemExit(f"{INTENDED.name}: entry {e['match']} has no reason")
    return entries


def check_case(label: str, chart: str, diffs, notes: str, intended: list[dict]) -> list[str]:
    problems = []
    for path, message in diffs:
        full = f"{chart}:{label}:{path}" if False else f"{chart}:{path}"
        matched = [e for e in intended if e["_re"].fullmatch(full) and
                   (not e.get("cases") or any(re.fullmatch(c, label) for c in e["cases"]))]
        if not matched:
            problems.append(f"{full}: {message}")
            continue
        e = matched[0]
        e["_hits"] += 1
        if e.get("notes") and not re.search(e["notes"], notes):
            problems.append(f"{full}: intended ({e['reason'][:60]}...) but NOTES.txt has no line matching "
                            f"{e['notes']!r}")
    return problems


def run_all(helm: str, record, verbose: bool = False) -> None:
    """record(name, problems): the chart tests' result collector."""
    root = upstream_charts()
    if not (root / "charts" / "aws-ebs-csi-driver" / "Chart.yaml").exists():
        record(f"upstream charts found at {root} (UPSTREAM_CHARTS)", [f"{root}/charts/aws-ebs-csi-driver missing"])
        return
    renderer = Renderer(helm)
    intended = load_intended()
    for chart in CHART_NAMES:
        upstream_chart = root / "charts" / chart
        ours_chart = HELM_DIR / chart
        defaults = yaml.safe_load((upstream_chart / "values.yaml").read_text())
        for label, values in corpus(chart, defaults):
            upstream_docs, err = renderer.run(upstream_chart, values, chart)
            if err:
                record(f"{chart} [{label}]: upstream's chart renders", [err])
                continue
            for mode in ("same values", "--reuse-values"):
                reuse_base = coalesce(values, defaults) if mode == "--reuse-values" else None
                ours_docs, notes, err = renderer.ours(ours_chart, values, chart, reuse_base)
                name = f"{chart} [{label}, {mode}]: what the cluster runs equals upstream's, or an intended difference"
                if err:
                    record(name, [err])
                    continue
                diffs = compare(upstream_docs, ours_docs)
                if verbose:
                    for path, message in diffs:
                        print(f"  DIFF {chart} [{label}, {mode}] {path}: {message}")
                problems = check_case(f"{label}/{mode}", chart, diffs, notes, intended)
                # Every key of the corpus is upstream's: NOTES.txt must not call any of them unknown.
                problems += [f"NOTES.txt: {l.strip()}" for l in notes.splitlines()
                             if "not a key of this chart" in l]
                record(name, problems)
    record("intended-differences.yaml: every entry is hit by some corpus entry (no stale entries)",
           [f"{e['match']}: no difference matches it any more" for e in intended if e["_hits"] == 0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm", default="helm")
    parser.add_argument("-v", "--verbose", action="store_true")
    a = parser.parse_args()
    failed = passed = 0

    def record(name, problems):
        nonlocal failed, passed
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for p in problems:
                print(f"     {p}")
        else:
            passed += 1
            print(f"PASS {name}")

    run_all(a.helm, record, a.verbose)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
