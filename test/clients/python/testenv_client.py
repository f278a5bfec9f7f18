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
    out["reset"] = control("POST", "/reset")
    out["cleared_journal"] = control("DELETE", "/journal")
    out["journal_after_clear"] = control("GET", "/journal?resource=configmaps")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
