#!/usr/bin/env python3
"""values.schema.json of the aws-ebs-csi-driver chart, derived from upstream's (issue 26 item 7).

Upstream's EBS chart ships a closed values.schema.json (the EKS add-on's configuration schema is derived from it);
this chart's must validate what upstream's validates, with upstream's layout. The derived schema is upstream's,
unchanged, plus a property for each key of this chart's values.yaml that upstream's schema lacks (this chart's own
keys, marked "x-aws-csi-driver": true, typed from their default and nullable). Upstream's EFS chart has no schema, and
neither has this repository's EFS chart (upstream accepts any key there; NOTES.txt lists the unknown ones).

  python3 derive_schema.py --write    # regenerate helm/aws-ebs-csi-driver/values.schema.json
  python3 derive_schema.py            # check: the shipped schema is what upstream's gives (chart tests run this)
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CHART = HERE.parent / "aws-ebs-csi-driver"
TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}


def upstream_schema() -> dict:
    import upstream_compare
    return json.loads((upstream_compare.upstream_charts() / "charts" / "aws-ebs-csi-driver" /
                       "values.schema.json").read_text())


def own_property(value) -> dict:
    prop: dict = {"x-aws-csi-driver": True, "description": "This chart's own key (not in upstream's chart)."}
    if value is not None:
        prop["type"] = [TYPES[type(value)], "null"]
    return prop


def add_own_keys(node: dict, values: dict) -> None:
    props = node.get("properties")
    if props is None or not isinstance(values, dict):
        return
    for key, value in values.items():
        if key not in props:
            props[key] = own_property(value)
        elif isinstance(value, dict) and isinstance(props[key], dict):
            add_own_keys(props[key], value)


def derive() -> dict:
    schema = copy.deepcopy(upstream_schema())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    add_own_keys(schema, values)
    # Helm gives a chart's dependencies their own values key (the library chart) and global.
    for key in ("global", "aws-csi-lib"):
        schema["properties"].setdefault(key, {"x-aws-csi-driver": True, "type": "object"})
    return schema


def strip_own(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if isinstance(v, dict) and v.get("x-aws-csi-driver"):
                continue
            out[k] = strip_own(v)
        return out
    if isinstance(node, list):
        return [strip_own(v) for v in node]
    return node


def check() -> list[str]:
    import upstream_compare
    upstream = upstream_compare.upstream_charts() / "charts" / "aws-ebs-csi-driver" / "values.schema.json"
    if not upstream.exists():
        return [f"{upstream} missing (set UPSTREAM_CHARTS)"]
    shipped_path = CHART / "values.schema.json"
    if not shipped_path.exists():
        return [f"{shipped_path} missing"]
    shipped = json.loads(shipped_path.read_text())
    problems = []
    if shipped != derive():
        problems.append("values.schema.json is not what derive_schema.py --write makes from upstream's schema and "
                        "values.yaml: regenerate it")
    if strip_own(shipped) != upstream_schema():
        problems.append("values.schema.json without this chart's own keys differs from upstream's")
    return problems


def main() -> int:
    if "--write" in sys.argv:
        (CHART / "values.schema.json").write_text(json.dumps(derive(), indent=2) + "\n")
        return 0
    problems = check()
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
