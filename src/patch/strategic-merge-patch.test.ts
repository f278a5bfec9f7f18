import { describe, expect, it } from "vitest";
import { errorOf } from "./errors.testkit.js";
import { DEPLOYMENT, liveAfterFirstApply, podSpec, smp } from "./strategic-merge-patch.testkit.js";

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
