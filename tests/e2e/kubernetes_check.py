"""Checks deploy/kubernetes/ with a real YAML parser (python3-yaml; run with Debian's
/usr/bin/python3): the fields that matter, and the names of every field against the Kubernetes
API's, as the Kubernetes Python client (python3-kubernetes) models them (a misspelt key would be
dropped by the API server unnoticed).

  kubernetes_check.py DIR OUT.json   prints the problems found (exit 1 if any) and writes what the
                                     shell test runs: the plugin's path and args and its timeout,
                                     the DaemonSet's script, the gpudoctor image
"""
import json
import os
import re
import sys

import kubernetes.client
import yaml

# The API types of the objects here, as the Kubernetes Python client (python3-kubernetes) models
# them: its generated models carry every field's JSON name and type, and refuse a missing
# required field.
MODELS = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "ServiceAccount"): "V1ServiceAccount",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "V1ClusterRoleBinding",
    ("apps/v1", "DaemonSet"): "V1DaemonSet",
}
KUSTOMIZATION_FIELDS = {"apiVersion", "kind", "resources", "images"}
HOST_PATH_TYPES = {"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"}
GPU_LABELS = {"nvidia.com/gpu.present", "feature.node.kubernetes.io/pci-10de.present"}
GO_DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$")

problems = []


def problem(text):
    problems.append(text)


def conforms(where, value, type_name):
    """Every field of `value` is one the client's model of `type_name` has, with a value of its type
    (the API server drops an unknown field, so a misspelt key would vanish unnoticed)."""
    scalar = {"str": str, "int": int, "bool": bool, "float": (int, float), "datetime": str, "date": str}
    if type_name == "object":
        return
    if type_name.startswith("list["):
        if not isinstance(value, list):
            return problem(f"{where}: a {type(value).__name__} where a list is expected")
        for i, item in enumerate(value):
            conforms(f"{where}[{i}]", item, type_name[5:-1])
    elif type_name.startswith("dict("):
        if not isinstance(value, dict):
            return problem(f"{where}: a {type(value).__name__} where a mapping is expected")
        for key, item in value.items():
            conforms(f"{where}.{key}", item, type_name[5:-1].split(", ", 1)[1])
    elif type_name in scalar:
        if not isinstance(value, scalar[type_name]) or (type_name != "bool" and isinstance(value, bool)):
            problem(f"{where}: {value!r} is not a {type_name}")
    else:
        model = getattr(kubernetes.client, type_name)
        if not isinstance(value, dict):
            return problem(f"{where}: a {type(value).__name__} where a {type_name} is expected")
        attributes = {json_name: attr for attr, json_name in model.attribute_map.items()}
        for key, item in value.items():
            if key not in attributes:
                problem(f"{where}: unknown field {key!r} for a {type_name}")
            else:
                conforms(f"{where}.{key}", item, model.openapi_types[attributes[key]])


def api_object(where, doc):
    """Checks one manifest against the client's model of its apiVersion and kind."""
    model = MODELS.get((doc.get("apiVersion"), doc.get("kind")))
    if not model:
        return problem(f"{where}: apiVersion {doc.get('apiVersion')!r} kind {doc.get('kind')!r} is not one expected here")
    conforms(where, doc, model)
    try:  # the client's own validation: required fields present
        kubernetes.client.ApiClient()._ApiClient__deserialize(doc, model)
    except (ValueError, TypeError) as e:
        problem(f"{where}: {e}")


def seconds(duration):
    """A Go duration (the subset NPD's time.ParseDuration configs use) in seconds."""
    if not GO_DURATION.match(duration):
        problem(f"{duration!r} is not a Go duration")
        return 0
    unit = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * unit[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)", duration))


def quantity(text):
    """A Kubernetes quantity (cpu or memory) as a number."""
    m = re.match(r"^(\d+(\.\d+)?)(m|Ki|Mi|Gi)?$", str(text))
    if not m:
        problem(f"{text!r} is not a quantity")
        return 0
    return float(m.group(1)) * {None: 1, "m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}[m.group(3)]


def check_pod(where, spec, writable_host_paths):
    if spec.get("runtimeClassName") != "nvidia":
        problem(f"{where}: runtimeClassName is not nvidia")
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    labels = {e["key"] for t in terms for e in t["matchExpressions"] if e["operator"] == "In" and e["values"] == ["true"]}
    if labels != GPU_LABELS:
        problem(f"{where}: node affinity on {sorted(labels)}, not on NVIDIA's labels {sorted(GPU_LABELS)}")
    tolerations = spec.get("tolerations", [])
    if {"operator": "Exists"} not in tolerations:
        problem(f"{where}: does not tolerate every taint (a node tainted sick must still be checked)")
    volumes = {v["name"]: v for v in spec["volumes"]}
    for v in spec["volumes"]:
        if "hostPath" in v and v["hostPath"].get("type", "") not in HOST_PATH_TYPES:
            problem(f"{where}: hostPath type {v['hostPath'].get('type')!r}")
    for c in spec.get("initContainers", []) + spec["containers"]:
        cw = f"{where}.{c['name']}"
        sc = c.get("securityContext", {})
        if sc.get("privileged") or sc.get("allowPrivilegeEscalation") is not False or sc.get("capabilities") != {"drop": ["ALL"]}:
            problem(f"{cw}: not unprivileged (privileged off, no privilege escalation, every capability dropped)")
        res = c.get("resources", {})
        for part in ("requests", "limits"):
            if set(res.get(part, {})) != {"cpu", "memory"}:
                problem(f"{cw}: resources.{part} must set cpu and memory (and request no nvidia.com/gpu): {res.get(part)}")
        for m in c.get("volumeMounts", []):
            if m["name"] not in volumes:
                problem(f"{cw}: mounts an undefined volume {m['name']}")
                continue
            host = volumes[m["name"]].get("hostPath")
            if host and not m.get("readOnly") and host["path"] not in writable_host_paths:
                problem(f"{cw}: host path {host['path']} mounted writable")
    return volumes


def main():
    folder, out_path = sys.argv[1], sys.argv[2]
    docs = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".yaml"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                docs[name] = [d for d in yaml.safe_load_all(f) if d is not None]
    kustomization = docs.pop("kustomization.yaml")[0]
    if set(kustomization) - KUSTOMIZATION_FIELDS:
        problem(f"kustomization.yaml: unknown fields {sorted(set(kustomization) - KUSTOMIZATION_FIELDS)}")
    if sorted(kustomization["resources"]) != sorted(docs):
        problem(f"kustomization resources {kustomization['resources']} are not the manifests {sorted(docs)}")
    objects = [(name, d) for name, ds in docs.items() for d in ds]
    by_kind = {}
    for name, d in objects:
        api_object(f"{name}:{d.get('kind')} {d.get('metadata', {}).get('name')}", d)
        by_kind.setdefault(d["kind"], []).append(d)
    if problems:  # the checks below read fields the schema must first have shown to be there
        print("\n".join(problems))
        return 1
    namespaces = {n["metadata"]["name"] for n in by_kind.get("Namespace", [])}
    for name, d in objects:
        if d["kind"] not in ("Namespace", "ClusterRoleBinding") and d["metadata"].get("namespace") not in namespaces:
            problem(f"{name}: {d['kind']} {d['metadata']['name']} is not in a namespace defined here")
    image_name = kustomization["images"][0]["name"]
    result = {}
    daemonsets = {d["metadata"]["name"]: d for d in by_kind["DaemonSet"]}
    for ds_name, ds in daemonsets.items():
        where = f"DaemonSet {ds_name}"
        selector = ds["spec"]["selector"]["matchLabels"]
        template_labels = ds["spec"]["template"]["metadata"]["labels"]
        if not selector or any(template_labels.get(k) != v for k, v in selector.items()):
            problem(f"{where}: selector {selector} does not match the template's labels {template_labels}")
        writable = {"/var/lib/prometheus/node-exporter"} if ds_name == "gpudoctor" else set()
        spec = ds["spec"]["template"]["spec"]
        volumes = check_pod(where, spec, writable)
        for c in spec.get("initContainers", []) + spec["containers"]:
            if c["image"].startswith(image_name + ":") and c["image"] != f"{image_name}:{kustomization['images'][0]['newTag']}":
                problem(f"{where}: image {c['image']} is not the kustomization's tag")
        for c in spec["containers"]:
            env = {e["name"]: e.get("value") for e in c.get("env", [])}
            if env.get("NVIDIA_VISIBLE_DEVICES") != "all" or "compute" not in env.get("NVIDIA_DRIVER_CAPABILITIES", ""):
                problem(f"{where}.{c['name']}: NVIDIA_VISIBLE_DEVICES=all and compute capability not set: {env}")
            if quantity(c["resources"]["limits"]["memory"]) < 512 * 2**20 or quantity(c["resources"]["limits"]["cpu"]) < 1:
                problem(f"{where}.{c['name']}: limits too small for libcuda and a context per GPU")
        if ds_name == "gpudoctor":
            c = spec["containers"][0]
            result["image"] = c["image"]
            result["script"] = c["args"][0] if c["command"] == ["/bin/sh", "-c"] else None
            mounts = {m["mountPath"]: volumes[m["name"]] for m in c["volumeMounts"]}
            result["textfile_mount"] = next(p for p, v in mounts.items()
                                            if v.get("hostPath", {}).get("path") == "/var/lib/prometheus/node-exporter")
        else:
            npd = next(c for c in spec["containers"] if c["name"] == "node-problem-detector")
            init = next(c for c in spec["initContainers"] if c["name"] == "install-gpudoctor")
            flags = [a for a in npd["command"] if a.startswith("--config.custom-plugin-monitor=")]
            if len(flags) != 1:
                problem(f"{where}: NPD is not given exactly one custom plugin monitor")
                continue
            config_file = flags[0].split("=", 1)[1]
            config_mount = next(m for m in npd["volumeMounts"] if config_file.startswith(m["mountPath"] + "/"))
            cm_name = volumes[config_mount["name"]]["configMap"]["name"]
            item = next(i for i in volumes[config_mount["name"]]["configMap"]["items"]
                        if config_mount["mountPath"] + "/" + i["path"] == config_file)
            cm = next(c for c in by_kind["ConfigMap"] if c["metadata"]["name"] == cm_name)
            config = json.loads(cm["data"][item["key"]])
            result["npd"] = check_npd_config(config, npd, init, volumes)
            sa = spec["serviceAccountName"]
            binding = [b for b in by_kind["ClusterRoleBinding"]
                       if b["roleRef"]["name"] == "system:node-problem-detector"
                       and {"kind": "ServiceAccount", "name": sa, "namespace": ds["metadata"]["namespace"]} in b["subjects"]]
            if not binding or not any(s["metadata"]["name"] == sa for s in by_kind["ServiceAccount"]):
                problem(f"{where}: service account {sa} lacks the system:node-problem-detector binding")
            if not any(e["name"] == "NODE_NAME" and e["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
                       for e in npd["env"] if "valueFrom" in e):
                problem(f"{where}: NPD needs NODE_NAME from spec.nodeName")
    for p in problems:
        print(p)
    with open(out_path, "w") as f:
        json.dump(result, f)
    return 1 if problems else 0


def check_npd_config(config, npd, init, volumes):
    """NPD's own validation (pkg/custompluginmonitor/types/config.go) and the plugin's wiring."""
    g = config["pluginConfig"]
    if config["plugin"] != "custom":
        problem("NPD config: plugin is not custom")
    known = {"invoke_interval", "timeout", "max_output_length", "concurrency",
             "enable_message_change_based_condition_update", "skip_initial_status"}
    if set(g) - known:
        problem(f"NPD config: unknown pluginConfig keys {set(g) - known}")
    if set(config) - {"plugin", "pluginConfig", "source", "conditions", "rules", "metricsReporting"}:
        problem(f"NPD config: unknown keys {set(config)}")
    if g.get("max_output_length") != 80:
        problem("NPD config: max_output_length is not 80 (what --format npd fits)")
    global_timeout = seconds(g["timeout"])
    if seconds(g["invoke_interval"]) <= 0:
        problem("NPD config: invoke_interval must be positive")
    conditions = {c["type"] for c in config["conditions"]}
    rules = config["rules"]
    if len(rules) != 1:
        problem("NPD config: one rule expected")
    rule = rules[0]
    if set(rule) - {"type", "condition", "reason", "path", "args", "timeout", "invoke_interval"}:
        problem(f"NPD config: unknown rule keys {set(rule)}")
    if rule["type"] != "permanent" or rule["condition"] not in conditions:
        problem("NPD config: the rule must be permanent, for a condition with a default")
    rule_timeout = seconds(rule["timeout"])
    if rule_timeout > global_timeout:
        problem("NPD config: the rule's timeout is above the global timeout (NPD refuses it)")
    # The binary the rule runs is where the init container copies it, in a volume both mount.
    shared = {m["mountPath"]: m["name"] for m in npd["volumeMounts"]}
    target = init["command"][-1]
    folder = os.path.dirname(rule["path"])
    init_mounts = {m["mountPath"]: m["name"] for m in init["volumeMounts"]}
    if target != rule["path"] or folder not in shared or init_mounts.get(folder) != shared[folder] \
            or "emptyDir" not in volumes[shared[folder]]:
        problem(f"NPD config: {rule['path']} is not where the init container copies gpudoctor ({target})")
    return {"path": rule["path"], "args": rule["args"], "timeout_s": rule_timeout, "condition": rule["condition"]}


if __name__ == "__main__":
    sys.exit(main())
