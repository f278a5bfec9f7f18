// etcd's request size limit (--max-request-bytes, 1.5 MiB by default) against a real server on
// each backend: a write that makes an object larger than that is refused as kube-apiserver 1.34
// answers etcd's refusal — a 500 Status with etcd's text and no reason (ErrorToAPIStatus of a
// non-Status error) — and nothing is stored; memory and SQLite keep the same limit. The object is
// a CustomResourceDefinition with a long schema description: built-in types' own validation
// keeps them under the limit. Below it, the same write succeeds.
// A write that passes the limit only with its managedFields is tried once more without them and
// stored (upstream's create, update and patch handlers: isTooLargeError), except server-side
// apply, which upstream does not retry. The object there is a ConfigMap with thousands of long
// keys, which its managedFields name once more.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultOptions } from "../src/server/options.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";

const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const crd = (plural: string, description: string) => ({
  metadata: { name: `${plural}.sizes.example.com` },
  spec: {
    group: "sizes.example.com",
    scope: "Namespaced",
    names: { plural, singular: plural.slice(0, -1), kind: plural[0]!.toUpperCase() + plural.slice(1, -1), listKind: `${plural[0]!.toUpperCase()}${plural.slice(1, -1)}List` },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", description } } }],
  },
});

let etcd: EtcdProcess | undefined;
const backends: { name: string; start: () => Promise<EmbeddedTestServer> }[] = [
  { name: "memory", start: () => startTestServer() },
  { name: "sqlite", start: () => startTestServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-size-")) }) },
  ...(etcdSkipReason
    ? []
    : [
        {
          name: "etcd3",
          start: async () => {
            etcd ??= await startEtcd();
            return startTestServer({ storage: "etcd3", options: { etcdServers: [etcd.url], etcd: { ...defaultOptions().etcd, prefix: "/kapi-sizes" } } });
          },
        },
      ]),
];
afterAll(async () => etcd?.cleanup());
if (etcdSkipReason) describe(`etcd's request size limit on etcd3 (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

for (const b of backends) {
  describe(`etcd's request size limit on ${b.name}`, () => {
    let s: EmbeddedTestServer;
    beforeAll(async () => {
      s = await b.start();
    }, 60_000);
    afterAll(async () => s?.stop());

    it("refuses an object over 1.5 MiB with a 500 carrying etcd's text, storing nothing; takes one under it", async () => {
      // Between etcd's limit and its client's 2 MiB send limit: etcd's own refusal.
      const over = await req(s, "POST", crds, { body: crd("bigs", "x".repeat(1_700_000)) });
      expect(over.status).toBe(500);
      expect(over.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 });
      expect((await req(s, "GET", `${crds}/bigs.sizes.example.com`)).status).toBe(404);
      // An update that grows a stored object past the limit is refused the same way, the object left as it was.
      expect((await req(s, "POST", crds, { body: crd("growers", "small") })).status).toBe(201);
      // The CRD's controllers write its status first: update what they leave.
      await s.settle();
      const small = await req(s, "GET", `${crds}/growers.sizes.example.com`);
      const grown = { ...small.json, spec: { ...small.json.spec, versions: [{ ...small.json.spec.versions[0], schema: { openAPIV3Schema: { type: "object", description: "y".repeat(1_600_000) } } }] } };
      const update = await req(s, "PUT", `${crds}/growers.sizes.example.com`, { body: grown });
      expect(update.status).toBe(500);
      expect(update.json.message).toBe("etcdserver: request is too large");
      const kept = await req(s, "GET", `${crds}/growers.sizes.example.com`);
      expect(kept.json.spec.versions[0].schema.openAPIV3Schema.description).toBe("small");
      if (b.name === "etcd3") {
        // Past etcd's client's 2 MiB send limit the client refuses it first, in Go's words for a gRPC status.
        const huge = await req(s, "POST", crds, { body: crd("huges", "w".repeat(2_500_000)) });
        expect(huge.status).toBe(500);
        expect(huge.json.message).toMatch(/^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(25\d{5} vs\. 2097152\)$/);
      }
      // Under the limit: stored.
      expect((await req(s, "POST", crds, { body: crd("fits", "z".repeat(1_400_000)) })).status).toBe(201);
    }, 60_000);

    it("stores a write that only its managedFields take past the limit without them; apply is not retried", async () => {
      // 3,200 keys of 250 characters: ~0.8 MB of data, ~0.83 MB more of managedFields naming them.
      const data = Object.fromEntries(Array.from({ length: 3200 }, (_, i) => [`${String(i).padStart(4, "0")}${"k".repeat(246)}`, ""]));
      const cms = "/api/v1/namespaces/default/configmaps";
      const created = await req(s, "POST", `${cms}?fieldManager=sizer`, { body: { metadata: { name: "keys" }, data } });
      expect(created.status).toBe(201);
      expect(created.json.metadata.managedFields).toBeUndefined();
      const stored = await req(s, "GET", `${cms}/keys`);
      expect(stored.json.metadata.managedFields).toBeUndefined();
      expect(Object.keys(stored.json.data)).toHaveLength(3200);
      // Without managedFields a small write records its manager as usual.
      expect((await req(s, "POST", `${cms}?fieldManager=sizer`, { body: { metadata: { name: "few" }, data: { a: "b" } } })).json.metadata.managedFields[0].manager).toBe("sizer");

      // An update and a merge patch, whose managers' entries would name every key: stored, without managedFields.
      const updated = await req(s, "PUT", `${cms}/keys?fieldManager=sizer`, { body: { ...stored.json, metadata: { ...stored.json.metadata, labels: { updated: "yes" } } } });
      expect(updated.status).toBe(200);
      expect(updated.json.metadata.labels).toEqual({ updated: "yes" });
      expect(updated.json.metadata.managedFields).toBeUndefined();
      const patched = await req(s, "PATCH", `${cms}/keys?fieldManager=patcher`, { body: { metadata: { labels: { patched: "yes" } } }, headers: { "content-type": "application/merge-patch+json" } });
      expect(patched.status).toBe(200);
      expect(patched.json.metadata.labels).toEqual({ updated: "yes", patched: "yes" });
      const after = await req(s, "GET", `${cms}/keys`);
      expect(after.json.metadata.managedFields).toBeUndefined();
      expect(after.json.metadata.labels).toEqual({ updated: "yes", patched: "yes" });

      // Server-side apply of the same keys: refused with storage's error, nothing stored.
      const applied = await req(s, "PATCH", `${cms}/applied?fieldManager=applier`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data }, headers: { "content-type": "application/apply-patch+yaml" } });
      expect(applied.status).toBe(500);
      expect(applied.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 });
      expect((await req(s, "GET", `${cms}/applied`)).status).toBe(404);
    }, 60_000);
  });
}
