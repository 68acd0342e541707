#!/usr/bin/python3
"""Checks deploy/kubernetes/ offline, as an API server and the Prometheus
Operator would read it, without a cluster:

    check_manifests.py DIR

Every document must be of a kind and apiVersion it knows, carry only the
fields those kinds have (where it describes them: a misspelt field is an
error, as the server's strict field validation makes it), and hold
together: the DaemonSet's selector selects its pods, the Service selects
them and targets a port they name, the ServiceMonitor selects the Service
and names its port, and every Secret, key, volume and port referred to
exists. The DaemonSet must ask for CAP_PERFMON, mount /dev/dri and land on
Intel and NVIDIA GPU nodes by their usual labels.

Prints one line per fault and exits 1, or exits 0 silently.
"""
import glob
import os
import sys

import yaml

faults = []


def fault(where, why):
    faults.append(f"{where}: {why}")


# The fields this checker knows of each object it reads: name -> type, or
# name -> dict of the nested object's fields, or [dict] for a list of
# objects. ANY skips a subtree the checker does not describe.
ANY = object()
LABELS = {"*": str}
META = {"name": str, "namespace": str, "labels": LABELS, "annotations": LABELS}
SELECTOR = {"matchLabels": LABELS, "matchExpressions": [{"key": str, "operator": str, "values": [str]}]}
PROBE = {"httpGet": {"path": str, "port": (str, int), "scheme": str},
         "periodSeconds": int, "failureThreshold": int, "initialDelaySeconds": int,
         "timeoutSeconds": int, "successThreshold": int}
CONTAINER = {
    "name": str, "image": str, "args": [str], "command": [str],
    "env": [{"name": str, "value": str, "valueFrom": ANY}],
    "ports": [{"name": str, "containerPort": int, "protocol": str, "hostPort": int}],
    "readinessProbe": PROBE, "livenessProbe": PROBE, "startupProbe": PROBE,
    "resources": {"requests": LABELS, "limits": LABELS},
    "securityContext": {"privileged": bool, "capabilities": {"add": [str], "drop": [str]},
                        "readOnlyRootFilesystem": bool, "allowPrivilegeEscalation": bool,
                        "runAsUser": int, "runAsGroup": int, "runAsNonRoot": bool},
    "volumeMounts": [{"name": str, "mountPath": str, "readOnly": bool, "subPath": str}],
    "imagePullPolicy": str,
}
NODE_TERM = {"matchExpressions": [{"key": str, "operator": str, "values": [str]}],
             "matchFields": ANY}
POD_SPEC = {
    "hostPID": bool, "hostNetwork": bool, "serviceAccountName": str,
    "securityContext": {"fsGroup": int, "runAsUser": int, "runAsGroup": int,
                        "runAsNonRoot": bool, "supplementalGroups": [int]},
    "nodeSelector": LABELS, "priorityClassName": str,
    "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [NODE_TERM]},
        "preferredDuringSchedulingIgnoredDuringExecution": ANY}},
    "tolerations": [{"key": str, "operator": str, "value": str, "effect": str,
                     "tolerationSeconds": int}],
    "containers": [CONTAINER], "initContainers": [CONTAINER],
    "volumes": [{"name": str,
                 "hostPath": {"path": str, "type": str},
                 "secret": {"secretName": str, "defaultMode": int,
                            "items": [{"key": str, "path": str, "mode": int}]},
                 "configMap": ANY, "emptyDir": ANY}],
}
KINDS = {
    ("v1", "Namespace"): {"metadata": META},
    ("v1", "Secret"): {"metadata": META, "type": str, "stringData": LABELS, "data": LABELS},
    ("v1", "Service"): {"metadata": META, "spec": {
        "clusterIP": str, "type": str, "selector": LABELS,
        "ports": [{"name": str, "port": int, "targetPort": (str, int), "protocol": str}]}},
    ("apps/v1", "DaemonSet"): {"metadata": META, "spec": {
        "selector": SELECTOR,
        "updateStrategy": {"type": str, "rollingUpdate": ANY},
        "template": {"metadata": META, "spec": POD_SPEC}}},
    ("monitoring.coreos.com/v1", "ServiceMonitor"): {"metadata": META, "spec": {
        "selector": SELECTOR, "jobLabel": str,
        "namespaceSelector": {"matchNames": [str], "any": bool},
        "endpoints": [{
            "port": str, "path": str, "interval": str, "scrapeTimeout": str, "scheme": str,
            "authorization": {"type": str, "credentials": {"name": str, "key": str}},
            "relabelings": [{"sourceLabels": [str], "targetLabel": str, "regex": str,
                             "replacement": str, "action": str, "separator": str}],
            "metricRelabelings": ANY, "honorLabels": bool}]}},
}


def check_fields(where, value, schema):
    if schema is ANY:
        return
    if isinstance(schema, list):
        if not isinstance(value, list):
            fault(where, f"is {type(value).__name__}, not a list")
            return
        for i, item in enumerate(value):
            check_fields(f"{where}[{i}]", item, schema[0])
    elif isinstance(schema, dict):
        if not isinstance(value, dict):
            fault(where, f"is {type(value).__name__}, not an object")
            return
        for key, item in value.items():
            sub = schema.get(key, schema.get("*"))
            if sub is None:
                fault(where, f"unknown field '{key}'")
            else:
                check_fields(f"{where}.{key}", item, sub)
    else:
        types = schema if isinstance(schema, tuple) else (schema,)
        if type(value) not in types:
            fault(where, f"is {type(value).__name__} {value!r}, not {'/'.join(t.__name__ for t in types)}")


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def main():
    docs = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))):
        try:
            with open(path, encoding="utf-8") as f:
                loaded = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            fault(path, f"not YAML: {e}")
            continue
        for i, d in enumerate(loaded):
            docs.append((f"{os.path.basename(path)}#{i}", d))
    by_kind = {}
    for where, d in docs:
        if not isinstance(d, dict):
            fault(where, "not an object")
            continue
        key = (d.get("apiVersion"), d.get("kind"))
        schema = KINDS.get(key)
        if not schema:
            fault(where, f"unknown kind {key[1]} of {key[0]}")
            continue
        check_fields(f"{where} {key[1]}", {k: v for k, v in d.items()
                                          if k not in ("apiVersion", "kind")}, schema)
        meta = d.get("metadata") or {}
        if not meta.get("name"):
            fault(where, "no metadata.name")
        if key[1] != "Namespace" and not meta.get("namespace"):
            fault(where, "no metadata.namespace")
        by_kind.setdefault(key[1], []).append((where, d))
    for kind in ("Namespace", "Secret", "DaemonSet", "Service", "ServiceMonitor"):
        if kind not in by_kind:
            fault(sys.argv[1], f"no {kind}")
    if faults:
        return
    namespaces = {d["metadata"]["name"] for _, d in by_kind["Namespace"]}
    for kind, objs in by_kind.items():
        for where, d in objs:
            ns = d["metadata"].get("namespace")
            if kind != "Namespace" and ns not in namespaces:
                fault(where, f"namespace {ns} is none of the manifests'")
    secrets = {d["metadata"]["name"]: {**(d.get("stringData") or {}), **(d.get("data") or {})}
               for _, d in by_kind["Secret"]}

    pod_labels, port_names = {}, set()
    for where, ds in by_kind["DaemonSet"]:
        spec = ds["spec"]
        template = spec["template"]
        pod_labels = template["metadata"].get("labels", {})
        if not selects(spec["selector"].get("matchLabels"), pod_labels):
            fault(where, "spec.selector does not select the template's labels")
        pod = template["spec"]
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for v in volumes.values():
            secret = v.get("secret")
            if secret:
                keys = secrets.get(secret["secretName"])
                if keys is None:
                    fault(where, f"volume {v['name']}: no Secret {secret['secretName']}")
                for item in secret.get("items", []):
                    if keys is not None and item["key"] not in keys:
                        fault(where, f"volume {v['name']}: Secret {secret['secretName']} has no key {item['key']}")
        if not any((v.get("hostPath") or {}).get("path") == "/dev/dri" for v in volumes.values()):
            fault(where, "no hostPath volume of /dev/dri")
        terms = pod.get("affinity", {}).get("nodeAffinity", {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])
        keys = {e["key"] for t in terms for e in t.get("matchExpressions", [])}
        if not any("8086" in k or k.startswith("intel.") for k in keys):
            fault(where, "no node term for Intel GPU nodes (PCI vendor 8086)")
        if "nvidia.com/gpu.present" not in keys:
            fault(where, "no node term for NVIDIA GPU nodes (nvidia.com/gpu.present)")
        for i, c in enumerate(pod["containers"]):
            cw = f"{where} container {c.get('name', i)}"
            if not c.get("image"):
                fault(cw, "no image")
            names = {p["name"] for p in c.get("ports", []) if "name" in p}
            port_names |= names
            caps = c.get("securityContext", {}).get("capabilities", {}).get("add", [])
            if "PERFMON" not in caps:
                fault(cw, "does not add CAP_PERFMON (capabilities.add: [PERFMON])")
            for m in c.get("volumeMounts", []):
                if m["name"] not in volumes:
                    fault(cw, f"mounts volume {m['name']}, which the pod lacks")
            for probe in ("readinessProbe", "livenessProbe"):
                port = c.get(probe, {}).get("httpGet", {}).get("port")
                if isinstance(port, str) and port not in names:
                    fault(cw, f"{probe} names port {port}, which it lacks")

    service_labels, service_ports = {}, set()
    for where, svc in by_kind["Service"]:
        spec = svc["spec"]
        if not selects(spec.get("selector"), pod_labels):
            fault(where, "spec.selector does not select the DaemonSet's pods")
        for p in spec.get("ports", []):
            target = p.get("targetPort", p.get("port"))
            if isinstance(target, str) and target not in port_names:
                fault(where, f"targetPort {target} is no port the pods name")
            service_ports.add(p.get("name"))
        service_labels = svc["metadata"].get("labels", {})
        service_ns = svc["metadata"]["namespace"]

    for where, sm in by_kind["ServiceMonitor"]:
        spec = sm["spec"]
        if not selects(spec["selector"].get("matchLabels"), service_labels):
            fault(where, "spec.selector does not select the Service's labels")
        names = spec.get("namespaceSelector", {}).get("matchNames")
        if names is not None and service_ns not in names:
            fault(where, f"namespaceSelector leaves out the Service's namespace {service_ns}")
        for e in spec["endpoints"]:
            if e.get("port") not in service_ports:
                fault(where, f"endpoint port {e.get('port')} is no port the Service names")
            cred = e.get("authorization", {}).get("credentials")
            if not cred:
                fault(where, "no authorization: gpuperfd asks remote scrapers for a token")
            elif cred["key"] not in secrets.get(cred["name"], {}):
                fault(where, f"credentials: no key {cred['key']} in Secret {cred['name']}")


main()
for f in faults:
    print(f"check_manifests: {f}")
sys.exit(1 if faults else 0)
