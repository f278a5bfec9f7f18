#!/usr/bin/python3
"""Drives the official Kubernetes Python client against a kapi server.

Usage: kapi_client.py KUBECONFIG SCENARIO NAMESPACE

Each scenario uses the unmodified `kubernetes` package (Debian's python3-kubernetes) exactly as an
application would, and prints one JSON object on stdout describing what the client saw. The vitest
side (test/python-client.test.ts) asserts on that object. Exit code 0 means the scenario ran to the
end; an unexpected exception prints a traceback on stderr and exits 1.
"""
import json
import os
import sys
import threading
import time

import kubernetes
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def settle():
    """POST /settle to the control endpoint named by KAPI_CONTROL_URL and KAPI_CONTROL_TOKEN (what
    `kapi testenv` prints): returns once the server's in-process controllers have nothing left to do."""
    import urllib.request

    rq = urllib.request.Request(os.environ["KAPI_CONTROL_URL"] + "/settle", method="POST", headers={"authorization": "Bearer " + os.environ["KAPI_CONTROL_TOKEN"]})
    with urllib.request.urlopen(rq, timeout=30) as rs:
        rs.read()


def api_error(fn, *args, **kwargs):
    """Calls fn and returns what its ApiException carried (status, reason and the Status body)."""
    try:
        fn(*args, **kwargs)
    except ApiException as e:
        body = None
        try:
            body = json.loads(e.body) if e.body else None
        except ValueError:
            body = {"unparsed": e.body if isinstance(e.body, str) else repr(e.body)}
        return {"status": e.status, "reason": e.reason, "body": body}
    return {"status": None, "note": "no ApiException raised"}


def cm(name, data=None, labels=None):
    return client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=name, labels=labels),
        data=data,
    )


def cm_json(obj):
    return {
        "name": obj.metadata.name,
        "namespace": obj.metadata.namespace,
        "uid": obj.metadata.uid,
        "resourceVersion": obj.metadata.resource_version,
        "creationTimestamp": obj.metadata.creation_timestamp.isoformat() if obj.metadata.creation_timestamp else None,
        "labels": obj.metadata.labels,
        "annotations": obj.metadata.annotations,
        "data": obj.data,
    }


def ensure_namespace(v1, ns):
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    got = v1.read_namespace(ns)
    return {"name": got.metadata.name, "phase": got.status.phase if got.status else None}


def scenario_version(api, ns):
    info = client.VersionApi(api).get_code()
    return {"major": info.major, "minor": info.minor, "gitVersion": info.git_version, "platform": info.platform}


def scenario_crud(api, ns):
    v1 = client.CoreV1Api(api)
    out = {"namespace": ensure_namespace(v1, ns)}

    created = v1.create_namespaced_config_map(ns, cm("app-config", {"a": "1"}, {"app": "demo"}))
    out["created"] = cm_json(created)
    out["read"] = cm_json(v1.read_namespaced_config_map("app-config", ns))

    lst = v1.list_namespaced_config_map(ns)
    out["list"] = {
        "kind": lst.kind,
        "apiVersion": lst.api_version,
        "resourceVersion": lst.metadata.resource_version,
        "names": [i.metadata.name for i in lst.items],
        # list items carry no kind/apiVersion on the wire; the client fills nothing in either
        "itemKinds": [i.kind for i in lst.items],
    }

    # A dict body goes out as application/strategic-merge-patch+json.
    smp = v1.patch_namespaced_config_map(
        "app-config", ns, {"metadata": {"labels": {"patched": "smp"}}, "data": {"b": "2"}}
    )
    out["strategicMergePatch"] = cm_json(smp)

    # A list body goes out as application/json-patch+json.
    jp = v1.patch_namespaced_config_map(
        "app-config", ns, [{"op": "replace", "path": "/data/a", "value": "one"}, {"op": "remove", "path": "/data/b"}]
    )
    out["jsonPatch"] = cm_json(jp)

    current = v1.read_namespaced_config_map("app-config", ns)
    stale_rv = current.metadata.resource_version
    current.data = {"replaced": "yes"}
    replaced = v1.replace_namespaced_config_map("app-config", ns, current)
    out["replaced"] = cm_json(replaced)

    # Replacing with the old resourceVersion is an optimistic-concurrency conflict.
    stale = v1.read_namespaced_config_map("app-config", ns)
    stale.metadata.resource_version = stale_rv
    stale.data = {"lost": "update"}
    out["staleReplace"] = api_error(v1.replace_namespaced_config_map, "app-config", ns, stale)

    deleted = v1.delete_namespaced_config_map("app-config", ns)
    # The client deserializes the DELETE response as V1Status (kube-apiserver answers Status Success
    # for an immediate ConfigMap delete).
    out["deleteResponse"] = {"kind": deleted.kind, "status": deleted.status}
    out["readAfterDelete"] = api_error(v1.read_namespaced_config_map, "app-config", ns)
    out["listAfterDelete"] = [i.metadata.name for i in v1.list_namespaced_config_map(ns).items]
    return out


def scenario_deployment(api, ns):
    v1 = client.CoreV1Api(api)
    apps = client.AppsV1Api(api)
    ensure_namespace(v1, ns)
    body = client.V1Deployment(
        api_version="apps/v1",
        kind="Deployment",
        metadata=client.V1ObjectMeta(name="web", labels={"app": "web"}),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(
                    containers=[
                        client.V1Container(
                            name="web",
                            image="nginx:1.25",
                            ports=[client.V1ContainerPort(container_port=80)],
                        )
                    ]
                ),
            ),
        ),
    )
    created = apps.create_namespaced_deployment(ns, body)
    got = apps.read_namespaced_deployment("web", ns)
    spec = got.spec
    tmpl = spec.template.spec
    c = tmpl.containers[0]
    out = {
        "createdGeneration": created.metadata.generation,
        "kind": got.kind,
        "apiVersion": got.api_version,
        "generation": got.metadata.generation,
        "uid": got.metadata.uid,
        "replicas": spec.replicas,
        "strategy": {
            "type": spec.strategy.type if spec.strategy else None,
            "maxSurge": spec.strategy.rolling_update.max_surge if spec.strategy and spec.strategy.rolling_update else None,
            "maxUnavailable": spec.strategy.rolling_update.max_unavailable if spec.strategy and spec.strategy.rolling_update else None,
        },
        "revisionHistoryLimit": spec.revision_history_limit,
        "progressDeadlineSeconds": spec.progress_deadline_seconds,
        "pod": {
            "restartPolicy": tmpl.restart_policy,
            "dnsPolicy": tmpl.dns_policy,
            "schedulerName": tmpl.scheduler_name,
            "terminationGracePeriodSeconds": tmpl.termination_grace_period_seconds,
            "securityContext": tmpl.security_context.to_dict() if tmpl.security_context else None,
        },
        "container": {
            "imagePullPolicy": c.image_pull_policy,
            "terminationMessagePath": c.termination_message_path,
            "terminationMessagePolicy": c.termination_message_policy,
            "portProtocol": c.ports[0].protocol,
        },
    }
    # Scale through the deployment's scale subresource and read the status subresource.
    scale = apps.read_namespaced_deployment_scale("web", ns)
    out["scale"] = {"kind": scale.kind, "specReplicas": scale.spec.replicas}
    scaled = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 3}})
    out["scaled"] = scaled.spec.replicas
    out["replicasAfterScale"] = apps.read_namespaced_deployment("web", ns).spec.replicas
    status = apps.read_namespaced_deployment_status("web", ns)
    out["statusKind"] = status.kind
    all_ns = apps.list_deployment_for_all_namespaces()
    out["allNamespaces"] = sorted(f"{d.metadata.namespace}/{d.metadata.name}" for d in all_ns.items)
    return out


def scenario_selectors(api, ns):
    v1 = client.CoreV1Api(api)
    ensure_namespace(v1, ns)
    for name, labels in [
        ("web-1", {"tier": "web", "env": "prod"}),
        ("web-2", {"tier": "web", "env": "dev"}),
        ("db-1", {"tier": "db", "env": "prod"}),
        ("plain", None),
    ]:
        v1.create_namespaced_config_map(ns, cm(name, {"k": "v"}, labels))

    def names(**kw):
        return sorted(i.metadata.name for i in v1.list_namespaced_config_map(ns, **kw).items)

    return {
        "equality": names(label_selector="tier=web"),
        "two": names(label_selector="tier=web,env=prod"),
        "set": names(label_selector="tier in (web,db),env!=dev"),
        "exists": names(label_selector="tier"),
        "notExists": names(label_selector="!tier"),
        "field": names(field_selector="metadata.name=db-1"),
        "fieldNot": names(field_selector="metadata.name!=db-1"),
        "invalidSelector": api_error(v1.list_namespaced_config_map, ns, label_selector="tier in (web"),
    }


def scenario_paging(api, ns):
    v1 = client.CoreV1Api(api)
    ensure_namespace(v1, ns)
    for i in range(7):
        v1.create_namespaced_config_map(ns, cm(f"page-{i}", {"i": str(i)}))
    pages = []
    token = None
    while True:
        kw = {"limit": 3}
        if token:
            kw["_continue"] = token
        page = v1.list_namespaced_config_map(ns, **kw)
        pages.append({
            "names": [i.metadata.name for i in page.items],
            "continue": bool(page.metadata._continue),
            "remainingItemCount": page.metadata.remaining_item_count,
            "resourceVersion": page.metadata.resource_version,
        })
        token = page.metadata._continue
        if not token or len(pages) > 10:
            break
    out = {"pages": pages}
    out["badContinue"] = api_error(v1.list_namespaced_config_map, ns, limit=3, _continue="not-a-token")
    return out


def scenario_watch(api, ns):
    v1 = client.CoreV1Api(api)
    ensure_namespace(v1, ns)
    v1.create_namespaced_config_map(ns, cm("existing", {"x": "0"}))
    rv = v1.list_namespaced_config_map(ns).metadata.resource_version

    events = []
    ready = threading.Event()
    errors = []

    def watcher():
        w = watch.Watch()
        try:
            ready.set()
            for ev in w.stream(v1.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=15):
                obj = ev["object"]
                events.append({
                    "type": ev["type"],
                    "name": obj.metadata.name,
                    "data": obj.data,
                    "resourceVersion": obj.metadata.resource_version,
                    "rawKind": ev["raw_object"].get("kind"),
                })
                if ev["type"] == "DELETED" and obj.metadata.name == "watched":
                    w.stop()
        except Exception as e:  # noqa: BLE001 - reported to the test
            errors.append(repr(e))

    t = threading.Thread(target=watcher, daemon=True)
    t.start()
    ready.wait(5)
    # No pause for the watch to be registered: it starts from `rv`, so it is sent everything after
    # it whenever it arrives.
    v1.create_namespaced_config_map(ns, cm("watched", {"v": "1"}))
    v1.patch_namespaced_config_map("watched", ns, {"data": {"v": "2"}})
    v1.delete_namespaced_config_map("watched", ns)
    t.join(20)
    out = {"events": events, "errors": errors, "watcherFinished": not t.is_alive(), "listResourceVersion": rv}

    # A watch without a resourceVersion starts with synthetic ADDED events for what exists.
    initial = []
    w = watch.Watch()
    for ev in w.stream(v1.list_namespaced_config_map, ns, timeout_seconds=2):
        initial.append({"type": ev["type"], "name": ev["object"].metadata.name})
    out["initial"] = initial

    # timeout_seconds ends a quiet watch on the server's side; the generator just returns.
    started = time.monotonic()
    quiet = list(watch.Watch().stream(v1.list_namespaced_config_map, ns, resource_version=events[-1]["resourceVersion"] if events else rv, timeout_seconds=1))
    out["quiet"] = {"events": len(quiet), "seconds": round(time.monotonic() - started, 2)}
    return out


def scenario_errors(api, ns):
    v1 = client.CoreV1Api(api)
    ensure_namespace(v1, ns)
    v1.create_namespaced_config_map(ns, cm("dup", {"a": "1"}))
    return {
        "notFound": api_error(v1.read_namespaced_config_map, "missing", ns),
        "alreadyExists": api_error(v1.create_namespaced_config_map, ns, cm("dup", {"a": "2"})),
        "invalid": api_error(v1.create_namespaced_config_map, ns, cm("Not_A_Valid_Name")),
        "namespaceNotFound": api_error(v1.create_namespaced_config_map, "no-such-namespace", cm("x")),
        "deleteMissing": api_error(v1.delete_namespaced_config_map, "missing", ns),
        "namespaceAlreadyExists": api_error(v1.create_namespace, client.V1Namespace(metadata=client.V1ObjectMeta(name=ns))),
    }


def scenario_dynamic(api, ns):
    # The dynamic client discovers resources through /api and /apis before every call.
    from kubernetes import dynamic

    dyn = dynamic.DynamicClient(api)
    namespaces = dyn.resources.get(api_version="v1", kind="Namespace")
    namespaces.create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    deploys = dyn.resources.get(api_version="apps/v1", kind="Deployment")
    created = cms.create(namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}, "data": {"a": "b"}})
    got = cms.get(namespace=ns, name="dyn")
    listed = cms.get(namespace=ns)
    patched = cms.patch(namespace=ns, name="dyn", body={"data": {"c": "d"}}, content_type="application/merge-patch+json")
    cms.delete(namespace=ns, name="dyn")
    return {
        "configmapResource": {"name": cms.name, "namespaced": cms.namespaced, "verbs": sorted(cms.verbs or []), "shortNames": cms.short_names},
        "deploymentResource": {"name": deploys.name, "group": deploys.group, "namespaced": deploys.namespaced},
        "created": created.metadata.name,
        "got": dict(got.data),
        "listKind": listed.kind,
        "listed": [i.metadata.name for i in listed.items],
        "patched": dict(patched.data),
    }


def scenario_booleans(api, ns):
    # Python sends its booleans as "True"/"False"; the server must read them as kube-apiserver does.
    from kubernetes import dynamic

    v1 = client.CoreV1Api(api)
    ensure_namespace(v1, ns)
    owner = v1.create_namespaced_config_map(ns, cm("owner"))
    ref = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid)
    v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="dependent", owner_references=[ref])))
    v1.delete_namespaced_config_map("owner", ns, orphan_dependents=True)
    # The garbage collector orphans the dependent, then removes the owner's finalizer: once the
    # server's controllers have settled both are done, and a dependent still there was kept, not
    # merely not yet collected.
    settle()
    owner_gone = api_error(v1.read_namespaced_config_map, "owner", ns)["status"] == 404
    dependent = api_error(v1.read_namespaced_config_map, "dependent", ns)
    kept = v1.read_namespaced_config_map("dependent", ns) if dependent["status"] is None else None

    dyn = dynamic.DynamicClient(api)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")

    def apply(manager, value, **kwargs):
        doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": {"key": value}}
        return cms.server_side_apply(body=json.dumps(doc), name="applied", namespace=ns, field_manager=manager, **kwargs)

    apply("first", "one")
    conflict = api_error(apply, "second", "two")
    forced = apply("second", "two", force_conflicts=True).to_dict()
    return {
        "ownerGone": owner_gone,
        "dependent": {"status": dependent["status"], "ownerReferences": (kept.metadata.owner_references if kept else None)},
        "conflict": conflict,
        "forced": {
            "data": forced["data"],
            # Who owns data.key now, by the managedFields entries that list it.
            "owners": sorted(f["manager"] for f in forced["metadata"]["managedFields"] if "f:key" in f.get("fieldsV1", {}).get("f:data", {})),
        },
    }


SCENARIOS = {
    "version": scenario_version,
    "crud": scenario_crud,
    "deployment": scenario_deployment,
    "selectors": scenario_selectors,
    "paging": scenario_paging,
    "watch": scenario_watch,
    "errors": scenario_errors,
    "dynamic": scenario_dynamic,
    "booleans": scenario_booleans,
}


def main():
    kubeconfig, scenario, ns = sys.argv[1], sys.argv[2], sys.argv[3]
    config.load_kube_config(config_file=kubeconfig)
    api = client.ApiClient()
    try:
        result = SCENARIOS[scenario](api, ns)
    finally:
        api.close()
    result["_client"] = {"kubernetes": kubernetes.__version__, "python": sys.version.split()[0]}
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
