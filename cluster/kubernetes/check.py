#!/usr/bin/env python3
"""Checks the Kubernetes files of this folder against the API's typed models, offline.

Every object is walked field by field against the models of the `kubernetes` Python package
(the client generated from the Kubernetes OpenAPI schema): an unknown or misspelt field, a
value of the wrong kind, or a missing required field fails. Then a copy with a misspelt field
must fail too, so this check cannot pass by checking nothing.
Usage: python3 cluster/kubernetes/check.py   (needs: pip install kubernetes pyyaml)
"""
import glob, os, sys, copy
import yaml
import kubernetes.client as k8s
from kubernetes.client import ApiClient

MODELS = {("batch/v1", "Job"): "V1Job", ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim"}
SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def check_value(value, kind, path, errors):
    # Type names: `list[X]` / `List[X]` and `dict(str, X)` / `Dict[str, X]` (by client version).
    if kind.lower().startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{path}: a list expected")
            return
        for i, v in enumerate(value):
            check_value(v, kind[5:-1], f"{path}[{i}]", errors)
    elif kind.lower().startswith(("dict(", "dict[")):
        if not isinstance(value, dict):
            errors.append(f"{path}: a map expected")
            return
        inner = kind[kind.index(",") + 1:-1].strip()
        for key, v in value.items():
            check_value(v, inner, f"{path}.{key}", errors)
    elif kind in SCALARS:
        if not isinstance(value, SCALARS[kind]) or (kind != "bool" and isinstance(value, bool)):
            errors.append(f"{path}: {kind} expected, found {value!r}")
    elif kind in ("object", "datetime", "date"):
        pass  # IntOrString, Quantity-like and free-form values
    else:
        check_object(value, kind, path, errors)


def check_object(obj, model, path, errors):
    if not isinstance(obj, dict):
        errors.append(f"{path}: an object ({model}) expected")
        return
    cls = getattr(k8s, model)
    by_json = {json: attr for attr, json in cls.attribute_map.items()}
    for key, value in obj.items():
        if key not in by_json:
            errors.append(f"{path}.{key}: no such field in {model}")
        else:
            check_value(value, cls.openapi_types[by_json[key]], f"{path}.{key}", errors)


def check_document(doc, name):
    errors = []
    model = MODELS.get((doc.get("apiVersion"), doc.get("kind")))
    if model is None:
        return [f"{name}: unexpected kind {doc.get('apiVersion')} {doc.get('kind')}"]
    check_object(doc, model, name, errors)
    try:  # required fields: the typed models refuse to be built without them
        ApiClient()._ApiClient__deserialize(doc, model)
    except (ValueError, TypeError) as e:
        errors.append(f"{name}: {e}")
    return errors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(glob.glob(os.path.join(here, "*.yaml")))
    errors, docs = [], []
    for path in files:
        for doc in yaml.safe_load_all(open(path)):
            if doc:
                docs.append((os.path.basename(path), doc))
                errors += check_document(doc, os.path.basename(path))
    jobs = [d for _, d in docs if d["kind"] == "Job"]
    # The checker itself must see a misspelt field and a missing required one.
    broken = copy.deepcopy(jobs[0])
    broken["spec"]["backoffLimitPerIndx"] = 2
    if not any("backoffLimitPerIndx" in e for e in check_document(broken, "broken")):
        errors.append("the check did not see a misspelt field")
    broken = copy.deepcopy(jobs[0])
    del broken["spec"]["template"]["spec"]["containers"][0]["name"]
    if not check_document(broken, "broken"):
        errors.append("the check did not see a missing required field")
    for e in errors:
        print("error:", e)
    print(f"kubernetes check: {len(docs)} objects in {len(files)} files, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
