import { describe, expect, it } from "vitest";
import { PatchError } from "./errors.js";
import type { SchemaDef, SchemaResolver } from "./schema.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

// A hand-made subset of the 1.34 definitions carrying the same patch markers as upstream.
const ref = (name: string): SchemaDef => ({ $ref: `#/definitions/${name}` });
const str: SchemaDef = { type: "string" };
const strMap: SchemaDef = { type: "object", additionalProperties: str };
const defs: Record<string, SchemaDef> = {
  "io.k8s.api.apps.v1.Deployment": {
    type: "object",
    properties: { apiVersion: str, kind: str, metadata: ref("meta.v1.ObjectMeta"), spec: ref("io.k8s.api.apps.v1.DeploymentSpec") },
  },
  "meta.v1.ObjectMeta": {
    type: "object",
    properties: {
      name: str,
      annotations: strMap,
      labels: strMap,
      finalizers: { type: "array", items: str, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set" },
    },
  },
  "io.k8s.api.apps.v1.DeploymentSpec": {
    type: "object",
    properties: {
      replicas: { type: "integer", format: "int32" },
      selector: ref("meta.v1.LabelSelector"),
      strategy: { ...ref("io.k8s.api.apps.v1.DeploymentStrategy"), "x-kubernetes-patch-strategy": "retainKeys" },
      template: ref("io.k8s.api.core.v1.PodTemplateSpec"),
    },
  },
  "meta.v1.LabelSelector": { type: "object", properties: { matchLabels: strMap }, "x-kubernetes-map-type": "atomic" },
  "io.k8s.api.apps.v1.DeploymentStrategy": {
    type: "object",
    properties: { type: str, rollingUpdate: { type: "object", properties: { maxSurge: str, maxUnavailable: str } } },
  },
  "io.k8s.api.core.v1.PodTemplateSpec": {
    type: "object",
    properties: { metadata: ref("meta.v1.ObjectMeta"), spec: ref("io.k8s.api.core.v1.PodSpec") },
  },
  "io.k8s.api.core.v1.PodSpec": {
    type: "object",
    properties: {
      containers: {
        type: "array",
        items: ref("io.k8s.api.core.v1.Container"),
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      },
      volumes: {
        type: "array",
        items: ref("io.k8s.api.core.v1.Volume"),
        "x-kubernetes-patch-strategy": "merge,retainKeys",
        "x-kubernetes-patch-merge-key": "name",
      },
      tolerations: { type: "array", items: ref("io.k8s.api.core.v1.Toleration"), "x-kubernetes-list-type": "atomic" },
      nodeSelector: strMap,
      securityContext: { type: "object", properties: { runAsUser: { type: "integer" } } },
      dnsPolicy: str,
    },
  },
  "io.k8s.api.core.v1.Container": {
    type: "object",
    properties: {
      name: str,
      image: str,
      args: { type: "array", items: str },
      ports: {
        type: "array",
        items: ref("io.k8s.api.core.v1.ContainerPort"),
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-patch-merge-key": "containerPort",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
      },
      env: { type: "array", items: ref("io.k8s.api.core.v1.EnvVar"), "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
    },
  },
  "io.k8s.api.core.v1.ContainerPort": { type: "object", properties: { containerPort: { type: "integer" }, protocol: str, name: str } },
  "io.k8s.api.core.v1.EnvVar": { type: "object", properties: { name: str, value: str } },
  "io.k8s.api.core.v1.Volume": {
    type: "object",
    properties: { name: str, configMap: { type: "object" }, secret: { type: "object" }, emptyDir: { type: "object" } },
  },
  "io.k8s.api.core.v1.Toleration": { type: "object", properties: { key: str, operator: str, effect: str } },
  "io.example.Unknown": { type: "object", "x-kubernetes-preserve-unknown-fields": true },
};
// Resolver keyed by bare names only: the engine must also accept "#/definitions/..." refs.
const resolve: SchemaResolver = (r) => defs[r];
const DEPLOYMENT = "io.k8s.api.apps.v1.Deployment";

const smp = (doc: unknown, patch: unknown, root = DEPLOYMENT) => applyStrategicMergePatch(doc, patch, resolve, root);
const podSpec = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });

function errorOf(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchError);
    return e as PatchError;
  }
  throw new Error("expected a PatchError");
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The live Deployment after the first `kubectl apply`, with server defaults filled in. */
function liveAfterFirstApply(): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "0b6f-uid",
      resourceVersion: "100",
      generation: 1,
      annotations: { [LAST_APPLIED]: '{"v":1}\n', "deployment.kubernetes.io/revision": "1" },
    },
    spec: {
      replicas: 2,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx:1.25",
              imagePullPolicy: "IfNotPresent",
              ports: [
                { containerPort: 80, protocol: "TCP" },
                { containerPort: 8080, protocol: "TCP" },
              ],
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
              resources: {},
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
            },
          ],
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
          schedulerName: "default-scheduler",
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: { observedGeneration: 1, replicas: 2 },
  };
}

describe("kubectl client-side apply flow", () => {
  const live1 = liveAfterFirstApply();
  // Second apply: only the image changed; this is the patch kubectl 1.32 sends.
  const patch2 = {
    metadata: { annotations: { [LAST_APPLIED]: '{"v":2}\n' } },
    spec: { template: { spec: { "$setElementOrder/containers": [{ name: "app" }], containers: [{ image: "nginx:1.26", name: "app" }] } } },
  };
  // Third apply: port 8080 and env B removed from the manifest.
  const patch3 = {
    metadata: { annotations: { [LAST_APPLIED]: '{"v":3}\n' } },
    spec: {
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "app" }],
          containers: [
            {
              "$setElementOrder/env": [{ name: "A" }],
              "$setElementOrder/ports": [{ containerPort: 80 }],
              env: [{ $patch: "delete", name: "B" }],
              name: "app",
              ports: [{ $patch: "delete", containerPort: 8080 }],
            },
          ],
        },
      },
    },
  };

  it("second apply changes the image and keeps every server-side field", () => {
    const live2 = smp(live1, patch2);
    const expected = liveAfterFirstApply() as any;
    expected.metadata.annotations[LAST_APPLIED] = '{"v":2}\n';
    expected.spec.template.spec.containers[0].image = "nginx:1.26";
    expect(live2).toEqual(expected);
    expect(live1).toEqual(liveAfterFirstApply());
    expect(patch2.spec.template.spec["$setElementOrder/containers"]).toEqual([{ name: "app" }]);
  });

  it("third apply deletes the port and env entry by merge key", () => {
    const live3 = smp(smp(live1, patch2), patch3);
    expect(live3).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "default",
        uid: "0b6f-uid",
        resourceVersion: "100",
        generation: 1,
        annotations: { [LAST_APPLIED]: '{"v":3}\n', "deployment.kubernetes.io/revision": "1" },
      },
      spec: {
        replicas: 2,
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        selector: { matchLabels: { app: "web" } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              {
                name: "app",
                image: "nginx:1.26",
                imagePullPolicy: "IfNotPresent",
                ports: [{ containerPort: 80, protocol: "TCP" }],
                env: [{ name: "A", value: "1" }],
                resources: {},
                terminationMessagePath: "/dev/termination-log",
                terminationMessagePolicy: "File",
              },
            ],
            dnsPolicy: "ClusterFirst",
            restartPolicy: "Always",
            schedulerName: "default-scheduler",
            securityContext: {},
            terminationGracePeriodSeconds: 30,
          },
        },
      },
      status: { observedGeneration: 1, replicas: 2 },
    });
  });

  it("apply adding a sidecar keeps the manifest order from $setElementOrder", () => {
    const out = smp(
      live1,
      podSpec({ "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }], containers: [{ image: "busybox", name: "sidecar" }] }),
    ) as any;
    expect(out.spec.template.spec.containers.map((c: any) => c.name)).toEqual(["app", "sidecar"]);
    expect(out.spec.template.spec.containers[1]).toEqual({ name: "sidecar", image: "busybox" });
  });

  it("$setElementOrder reorders server items and puts server-only items by server position", () => {
    const live = podSpec({ containers: [{ name: "a" }, { name: "b" }, { name: "c", image: "x" }] });
    const out = smp(live, podSpec({ "$setElementOrder/containers": [{ name: "c" }, { name: "a" }] })) as any;
    expect(out.spec.template.spec.containers).toEqual([{ name: "b" }, { name: "c", image: "x" }, { name: "a" }]);
  });
});

describe("strategic merge patch: lists", () => {
  it("merges by key; new items go first (upstream's interleaving), patch order wins", () => {
    const live = podSpec({ containers: [{ name: "app", ports: [{ containerPort: 80, protocol: "TCP" }] }] });
    const out = smp(live, podSpec({ containers: [{ name: "app", ports: [{ containerPort: 9090 }] }] })) as any;
    expect(out.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 9090 }, { containerPort: 80, protocol: "TCP" }]);

    const three = podSpec({ containers: [{ name: "1" }, { name: "2", image: "b" }, { name: "3" }] });
    const reordered = smp(three, podSpec({ containers: [{ name: "3", image: "c" }, { name: "1", image: "a" }] })) as any;
    expect(reordered.spec.template.spec.containers).toEqual([{ name: "2", image: "b" }, { name: "3", image: "c" }, { name: "1", image: "a" }]);
  });

  it("upstream case 'add map to merging list by pointer': server-only items keep their place", () => {
    const live = podSpec({ containers: [{ name: "1", image: "a" }, { name: "3" }] });
    const patch = podSpec({ "$setElementOrder/containers": [{ name: "1" }, { name: "2" }], containers: [{ name: "2" }] });
    expect(smp(live, patch)).toEqual(podSpec({ containers: [{ name: "1", image: "a" }, { name: "2" }, { name: "3" }] }));
  });

  it("deletes list elements by merge key with $patch: delete (all duplicates)", () => {
    const live = podSpec({ containers: [{ name: "a" }, { name: "b" }, { name: "a" }] });
    const out = smp(live, podSpec({ containers: [{ $patch: "delete", name: "a" }] })) as any;
    expect(out.spec.template.spec.containers).toEqual([{ name: "b" }]);
  });

  it("replaces a whole merge list with a {$patch: replace} element", () => {
    const live = podSpec({ containers: [{ name: "a" }, { name: "b" }] });
    const out = smp(live, podSpec({ containers: [{ name: "c", image: "i" }, { $patch: "replace" }] })) as any;
    expect(out.spec.template.spec.containers).toEqual([{ name: "c", image: "i" }]);
    const emptied = smp(live, podSpec({ containers: [{ $patch: "replace" }] })) as any;
    expect(emptied.spec.template.spec.containers).toEqual([]);
  });

  it("primitive merge lists are sets; $deleteFromPrimitiveList and $setElementOrder work on them", () => {
    const live = { metadata: { finalizers: ["a", "b"] } };
    expect(smp(live, { metadata: { finalizers: ["b", "c", "c"] } })).toEqual({ metadata: { finalizers: ["a", "b", "c"] } });
    expect(smp(live, { metadata: { "$deleteFromPrimitiveList/finalizers": ["a", "zzz"] } })).toEqual({ metadata: { finalizers: ["b"] } });
    // What kubectl sends after removing "a" from a manifest listing [a, b].
    expect(smp(live, { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["b"] } })).toEqual({
      metadata: { finalizers: ["b"] },
    });
    expect(smp(live, { metadata: { "$setElementOrder/finalizers": ["b", "a"] } })).toEqual({ metadata: { finalizers: ["b", "a"] } });
  });

  it("lists without a merge strategy are replaced atomically", () => {
    const live = podSpec({ tolerations: [{ key: "a", operator: "Exists" }], containers: [{ name: "c", args: ["x", "y"] }] });
    const out = smp(live, podSpec({ tolerations: [{ key: "b", effect: null }], containers: [{ name: "c", args: ["z"] }] })) as any;
    expect(out.spec.template.spec.tolerations).toEqual([{ key: "b" }]);
    expect(out.spec.template.spec.containers).toEqual([{ name: "c", args: ["z"] }]);
  });

  it("merge,retainKeys volumes: $retainKeys drops the fields not listed", () => {
    const live = podSpec({ volumes: [{ name: "cfg", configMap: { name: "c1" } }, { name: "data", emptyDir: {} }] });
    const patch = podSpec({
      "$setElementOrder/volumes": [{ name: "cfg" }, { name: "data" }],
      volumes: [{ $retainKeys: ["name", "secret"], name: "cfg", secret: { secretName: "s1" } }],
    });
    expect(smp(live, patch)).toEqual(podSpec({ volumes: [{ name: "cfg", secret: { secretName: "s1" } }, { name: "data", emptyDir: {} }] }));
  });
});

describe("strategic merge patch: maps and directives", () => {
  it("retainKeys strategy on a struct (deployment strategy)", () => {
    const live = liveAfterFirstApply();
    const out = smp(live, { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: null } } }) as any;
    expect(out.spec.strategy).toEqual({ type: "Recreate" });
  });

  it("null deletes a field; nulls in new content are dropped", () => {
    const out = smp({ metadata: { name: "a", labels: { x: "1", y: "2" } } }, { metadata: { labels: { x: null, z: "3" }, annotations: { a: null, b: "1" } } });
    expect(out).toEqual({ metadata: { name: "a", labels: { y: "2", z: "3" }, annotations: { b: "1" } } });
  });

  it("$patch: replace on a map replaces it", () => {
    const out = smp({ spec: { selector: { matchLabels: { a: "1", b: "2" } } } }, { spec: { selector: { $patch: "replace", matchLabels: { c: "3" } } } });
    expect(out).toEqual({ spec: { selector: { matchLabels: { c: "3" } } } });
  });

  it("$patch: delete on a map empties it (upstream keeps {}); absent maps stay absent", () => {
    const live = podSpec({ securityContext: { runAsUser: 1 }, dnsPolicy: "x" });
    expect(smp(live, podSpec({ securityContext: { $patch: "delete" } }))).toEqual(podSpec({ securityContext: {}, dnsPolicy: "x" }));
    expect(smp(podSpec({}), podSpec({ securityContext: { $patch: "delete" } }))).toEqual(podSpec({}));
    expect(smp({ a: 1 }, { $patch: "delete" })).toEqual({});
  });

  it("$patch: merge on a map is the default behaviour", () => {
    expect(smp({ metadata: { labels: { a: "1" } } }, { metadata: { labels: { $patch: "merge", b: "2" } } })).toEqual({ metadata: { labels: { a: "1", b: "2" } } });
  });

  it("directive keys never remain, even inside content that is new", () => {
    const out = smp(
      { spec: {} },
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "b" }, { name: "a" }],
              containers: [
                { name: "b", $retainKeys: ["name"] },
                { name: "a", env: [{ name: "X", value: "1" }, { $patch: "delete", name: "Y" }], "$setElementOrder/env": [{ name: "X" }] },
              ],
              volumes: [{ $patch: "replace" }, { name: "v", $retainKeys: ["name"] }],
            },
          },
        },
      },
    );
    expect(out).toEqual(podSpec({ containers: [{ name: "b" }, { name: "a", env: [{ name: "X", value: "1" }] }], volumes: [{ name: "v" }] }));
    expect(JSON.stringify(out)).not.toContain("$");
  });

  it("unknown schema merges maps and replaces lists, like JSON merge patch", () => {
    const live = { spec: { a: [1, 2], m: { x: 1, y: 2 } } };
    expect(smp(live, { spec: { a: [3], m: { x: null, z: 3 } } }, "io.example.Unknown")).toEqual({ spec: { a: [3], m: { y: 2, z: 3 } } });
    expect(smp(live, { spec: { a: [3] } }, "io.example.NotDefined")).toEqual({ spec: { a: [3], m: { x: 1, y: 2 } } });
  });

  it("accepts '#/definitions/' root refs and a null patch; inputs are not mutated", () => {
    const live = { metadata: { finalizers: ["a"] } };
    const patch = { metadata: { finalizers: ["b"] } };
    expect(smp(live, patch, `#/definitions/${DEPLOYMENT}`)).toEqual({ metadata: { finalizers: ["b", "a"] } });
    expect(live).toEqual({ metadata: { finalizers: ["a"] } });
    expect(patch).toEqual({ metadata: { finalizers: ["b"] } });
    expect(smp(live, null)).toEqual(live);
  });

  it("a different value type replaces the field", () => {
    expect(smp({ metadata: { labels: { a: "1" } } }, { metadata: { labels: "oops" } })).toEqual({ metadata: { labels: "oops" } });
  });
});

describe("strategic merge patch: errors", () => {
  it.each([
    [[], "json: cannot unmarshal array into Go value of type map[string]interface {}"],
    ["x", "json: cannot unmarshal string into Go value of type map[string]interface {}"],
    [{ metadata: { $patch: "bogus", a: 1 } }, "unknown patch type: bogus in map: map[$patch:bogus a:1]"],
    [podSpec({ containers: [{ image: "x" }] }), "map: map[image:x] does not contain declared merge key: name"],
    [podSpec({ containers: [{ $patch: "delete", image: "x" }] }), "map: map[$patch:delete image:x] does not contain declared merge key: name"],
    [podSpec({ containers: [{ $patch: "merge" }] }), "merging lists cannot yet be specified in the patch"],
    [{ metadata: { $deleteFromPrimitiveList: ["a"] } }, "invalid patch format of primitive list"],
    [{ metadata: { $setElementOrderfinalizers: ["a"] } }, "invalid patch format of setElementOrder list"],
    [{ spec: { strategy: { $retainKeys: "type" } } }, "invalid patch format of retainKeys"],
    [{ spec: { strategy: { $retainKeys: ["type"], rollingUpdate: {} } } }, "invalid patch format of retainKeys"],
    [{ metadata: { "$setElementOrder/finalizers": "a" } }, "expected a []interface {}, but received a string"],
    [
      podSpec({ "$setElementOrder/containers": [{ name: "app" }], containers: [{ name: "other" }] }),
      "The order in patch list:\n[map[name:other]]\n doesn't match $setElementOrder list:\n[map[name:app]]\n",
    ],
  ])("malformed patch #%# → 400", (patch, message) => {
    const err = errorOf(() => smp(liveAfterFirstApply(), patch));
    expect(err.kind).toBe("BadRequest");
    expect(err.message).toBe(message);
  });

  it("mixed element kinds in a merge list → 400", () => {
    const err = errorOf(() => smp(podSpec({ containers: [{ name: "app" }] }), podSpec({ containers: [{ name: "app" }, "x"] })));
    expect(err.kind).toBe("BadRequest");
    expect(err.message).toBe("list element types are not identical: [[map[name:app]] [map[name:app] x]]");
  });

  it("lists of lists → 422 like upstream", () => {
    const err = errorOf(() => smp({ metadata: { finalizers: [["a"]] } }, { metadata: { finalizers: [["b"]] } }));
    expect(err.kind).toBe("UnprocessableEntity");
    expect(err.message).toBe("lists of lists are not supported");
  });
});
