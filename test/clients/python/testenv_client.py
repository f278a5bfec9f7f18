#!/usr/bin/python3
"""A Python operator test's view of `kapi testenv`: the kubernetes client for the API, urllib for
the control endpoint.

Usage: testenv_client.py  (reads KUBECONFIG, KAPI_CONTROL_URL and KAPI_CONTROL_TOKEN from the
environment, as a suite would after starting `kapi testenv` and reading its output)

Prints one JSON object of what it saw; test/testenv-python.test.ts asserts on it.
"""
import json
import os
import urllib.error
import urllib.request

from kubernetes import client, config
from kubernetes.client.rest import ApiException

CONTROL = os.environ["KAPI_CONTROL_URL"]
TOKEN = os.environ["KAPI_CONTROL_TOKEN"]


def control(method, path, body=None, token=TOKEN):
    """One control request; answers (status, parsed JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(CONTROL + path, data=data, method=method)
    if token is not None:
        req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main():
    config.load_kube_config(config_file=os.environ["KUBECONFIG"])
    v1 = client.CoreV1Api()
    out = {}
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-testenv")))
    v1.create_namespaced_config_map("py-testenv", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings"), data={"mode": "a"}))

    # A 409 on the next update of this ConfigMap, once.
    out["add"] = control("POST", "/faults", {"match": {"verb": "update", "resource": "configmaps", "name": "settings"}, "times": 1, "action": {"kind": "error", "code": 409}})
    out["faults_listed"] = control("GET", "/faults")
    current = v1.read_namespaced_config_map("settings", "py-testenv")
    current.data = {"mode": "b"}
    try:
        v1.replace_namespaced_config_map("settings", "py-testenv", current)
        out["conflict"] = None
    except ApiException as e:
        out["conflict"] = {"status": e.status, "reason": e.reason, "body": json.loads(e.body)}
    # The operator's retry goes through: the rule was used up.
    out["retried"] = v1.replace_namespaced_config_map("settings", "py-testenv", current).data
    out["faults_after"] = control("GET", "/faults")

    out["journal"] = control("GET", "/journal?verb=update&resource=configmaps&namespace=py-testenv")
    out["wait_found"] = control("POST", "/wait", {"match": {"verb": "update", "name": "settings", "code": 200}, "timeout": 2000})
    out["wait_timeout"] = control("POST", "/wait", {"match": {"verb": "delete", "name": "never"}, "timeout": 100})
    out["bad_probability"] = control("POST", "/faults", {"probability": 2, "action": {"kind": "error", "code": 500}})
    out["bad_kind"] = control("POST", "/faults", {"action": {"kind": "explode"}})
    out["bad_matcher"] = control("POST", "/faults", {"match": {"verbs": "get"}, "action": {"kind": "error", "code": 500}})
    out["bad_code"] = control("POST", "/faults", {"action": {"kind": "error", "code": 418}})
    out["bad_json"] = control("POST", "/wait", None)
    out["no_token"] = control("GET", "/journal", token=None)
    out["wrong_token"] = control("GET", "/journal", token="x" * 64)
    out["cleared_journal"] = control("DELETE", "/journal")
    out["journal_after_clear"] = control("GET", "/journal?resource=configmaps")

    # reset: what the suite created is gone, what the server started with is still there.
    out["reset"] = control("POST", "/reset")
    out["after_reset"] = {
        "namespace py-testenv": status_of(lambda: v1.read_namespace("py-testenv")),
        "configmap py-testenv/settings": status_of(lambda: v1.read_namespaced_config_map("settings", "py-testenv")),
        "namespace default": status_of(lambda: v1.read_namespace("default")),
        "namespace kube-system": status_of(lambda: v1.read_namespace("kube-system")),
        "configmap default/kube-root-ca.crt": status_of(lambda: v1.read_namespaced_config_map("kube-root-ca.crt", "default")),
        "serviceaccount default/default": status_of(lambda: v1.read_namespaced_service_account("default", "default")),
        "clusterrole cluster-admin": status_of(lambda: client.RbacAuthorizationV1Api().read_cluster_role("cluster-admin")),
    }

    # snapshot -> modify -> restore: the snapshot's state is back.
    v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="fixture"), data={"mode": "original"}))
    code, snapshot = control("GET", "/snapshot")
    out["snapshot"] = [code, snapshot.get("kind"), any(o["key"] == "/registry/configmaps/default/fixture" for o in snapshot.get("objects", []))]
    fixture = v1.read_namespaced_config_map("fixture", "default")
    fixture.data = {"mode": "modified"}
    v1.replace_namespaced_config_map("fixture", "default", fixture)
    v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="after-snapshot")))
    v1.delete_namespaced_config_map("kube-root-ca.crt", "default")
    out["restore"] = control("POST", "/restore", snapshot)
    restored = v1.read_namespaced_config_map("fixture", "default")
    out["after_restore"] = {
        "fixture data": restored.data,
        "fixture resourceVersion moved on": int(restored.metadata.resource_version) > int(fixture.metadata.resource_version),
        "configmap default/after-snapshot": status_of(lambda: v1.read_namespaced_config_map("after-snapshot", "default")),
        "configmap default/kube-root-ca.crt": status_of(lambda: v1.read_namespaced_config_map("kube-root-ca.crt", "default")),
    }
    out["bad_restore"] = control("POST", "/restore", {"kind": "KapiSnapshot", "formatVersion": 99, "kapiVersion": "9.9.9", "objects": []})

    # settle: a deleted namespace's finalization has finished when it answers.
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-doomed")))
    v1.create_namespaced_config_map("py-doomed", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="inside")))
    v1.delete_namespace("py-doomed")
    out["settle"] = control("POST", "/settle", {"timeoutMs": 10000})
    out["after_settle"] = status_of(lambda: v1.read_namespace("py-doomed"))
    print(json.dumps(out))


def status_of(read):
    """200 when the read succeeds, else the API's status code."""
    try:
        read()
        return 200
    except ApiException as e:
        return e.status


if __name__ == "__main__":
    main()
