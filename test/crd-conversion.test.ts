// Versions and conversion of custom resources: objects are stored in the storage version and served
// in the requested one — through a loopback HTTPS conversion webhook (caBundle) for strategy
// Webhook, by an apiVersion rewrite for None; a webhook that is down answers upstream's 500; a
// deprecated version gives a Warning on every request (kubectl prints it).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, watchEvents } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { servedOnceSettled } from "./support/settle.js";
import { startConversionWebhook, type ConversionWebhook } from "../src/apiextensions/conversion.testkit.js";
import { storageKey } from "../src/registry/resource-type.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

let s: PartsServer;
let hook: ConversionWebhook;
let dir: string;

beforeAll(async () => {
  s = await startTuned();
  hook = await startConversionWebhook();
  dir = mkdtempSync(join(tmpdir(), "kapi-crd-conversion-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
  await hook?.close();
});

let cacheN = 0;
function k(args: string[], stdin?: string) {
  return kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, `cache${cacheN++}`)}`, ...args], stdin);
}

const specSchema = (field: string) => ({
  openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { [field]: { type: "string" }, image: { type: "string" } } } } },
});

/** Two versions: v1 (spec.cronSpec, storage) and v2 (spec.schedule). */
function twoVersionCRD(group: string, conversion: Record<string, unknown>, v1Extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "crontabs", singular: "crontab", kind: "CronTab" },
      versions: [
        { name: "v1", served: true, storage: true, schema: specSchema("cronSpec"), ...v1Extra },
        { name: "v2", served: true, storage: false, schema: specSchema("schedule") },
      ],
      conversion,
    },
  };
}

/** The stored bytes of an object, straight from storage. */
async function stored(group: string, name: string): Promise<any> {
  const t = s.parts.types.get(group, "v1", "crontabs")!;
  const kv = await s.storage.get(storageKey(t, "default", name));
  return JSON.parse(kv!.value);
}

const webhookGroup = "hook.example.com";
const v1 = `/apis/${webhookGroup}/v1/namespaces/default/crontabs`;
const v2 = `/apis/${webhookGroup}/v2/namespaces/default/crontabs`;

describe("conversion strategy Webhook (loopback HTTPS webhook with caBundle)", () => {
  it("serves both versions once the CRD is established", async () => {
    const crd = twoVersionCRD(webhookGroup, {
      strategy: "Webhook",
      webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: hook.url, caBundle: hook.caBundle } },
    });
    const created = await req(s, "POST", crdPath, { body: crd });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    await servedOnceSettled(s, v1);
    await servedOnceSettled(s, v2);
  });

  it("kubectl creates in v1, reads back in v2 with the renamed field; stored in v1", async () => {
    expect(kubectlBin).toBeTruthy();
    const manifest = JSON.stringify({ apiVersion: `${webhookGroup}/v1`, kind: "CronTab", metadata: { name: "one", namespace: "default" }, spec: { cronSpec: "* * * * */5", image: "img" } });
    const c = await k(["create", "-f", "-"], manifest);
    expect(c.code, c.stderr).toBe(0);
    const got = await req(s, "GET", `${v2}/one`);
    expect(got.status).toBe(200);
    expect(got.json.apiVersion).toBe(`${webhookGroup}/v2`);
    expect(got.json.spec).toEqual({ schedule: "* * * * */5", image: "img" });
    expect(hook.requests.some((r) => r.request.desiredAPIVersion === `${webhookGroup}/v2`)).toBe(true);
    const raw = await stored(webhookGroup, "one");
    expect(raw.apiVersion).toBe(`${webhookGroup}/v1`);
    expect(raw.spec).toEqual({ cronSpec: "* * * * */5", image: "img" });
    const kv2 = await k(["get", `crontabs.v2.${webhookGroup}`, "one", "-o", "json"]);
    expect(kv2.code, kv2.stderr).toBe(0);
    expect(JSON.parse(kv2.stdout).spec).toEqual({ schedule: "* * * * */5", image: "img" });
  });

  it("creates in v2: converted to the storage version before storage, answered in v2", async () => {
    const before = hook.requests.length;
    const r = await req(s, "POST", v2, { body: { apiVersion: `${webhookGroup}/v2`, kind: "CronTab", metadata: { name: "two" }, spec: { schedule: "0 * * * *" } } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.apiVersion).toBe(`${webhookGroup}/v2`);
    expect(r.json.spec).toEqual({ schedule: "0 * * * *" });
    expect(hook.requests.slice(before).map((x) => x.request.desiredAPIVersion)).toEqual([`${webhookGroup}/v1`, `${webhookGroup}/v2`]);
    const raw = await stored(webhookGroup, "two");
    expect(raw.apiVersion).toBe(`${webhookGroup}/v1`);
    expect(raw.spec).toEqual({ cronSpec: "0 * * * *" });
    // Update and merge patch in v2 keep the storage version.
    const patched = await req(s, "PATCH", `${v2}/two`, { body: { spec: { schedule: "5 * * * *" } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.spec).toEqual({ schedule: "5 * * * *" });
    expect((await stored(webhookGroup, "two")).spec).toEqual({ cronSpec: "5 * * * *" });
  });

  it("lists in both versions (from the cache and from storage)", async () => {
    for (const q of ["", "?resourceVersion=0", "?limit=1"]) {
      const l1 = await req(s, "GET", v1 + q);
      expect(l1.status).toBe(200);
      const l2 = await req(s, "GET", v2 + q);
      expect(l2.status).toBe(200);
      expect(l2.json.apiVersion).toBe(`${webhookGroup}/v2`);
      for (const it of l1.json.items) expect(Object.keys(it.spec)).toContain("cronSpec");
      for (const it of l2.json.items) expect(Object.keys(it.spec)).toContain("schedule");
      if (!q.includes("limit")) expect(l2.json.items.map((i: any) => i.metadata.name).sort()).toEqual(["one", "two"]);
    }
    const kl = await k(["get", `crontabs.v2.${webhookGroup}`, "-o", "json"]);
    expect(kl.code, kl.stderr).toBe(0);
    expect(JSON.parse(kl.stdout).items.map((i: any) => i.spec.schedule)).toEqual(["* * * * */5", "5 * * * *"]);
  });

  it("watches in v2 and in v1 at once: events converted per version", async () => {
    const w2 = watchEvents(s, `${v2}?watch=1&resourceVersion=0`, (evs) => evs.some((e) => e.object?.metadata?.name === "three"));
    const w1 = watchEvents(s, `${v1}?watch=1&resourceVersion=0`, (evs) => evs.some((e) => e.object?.metadata?.name === "three"));
    await Promise.all([w2.opened, w1.opened]);
    const r = await req(s, "POST", v1, { body: { apiVersion: `${webhookGroup}/v1`, kind: "CronTab", metadata: { name: "three" }, spec: { cronSpec: "1 * * * *" } } });
    expect(r.status).toBe(201);
    const [e2, e1] = await Promise.all([w2, w1]);
    const three2 = e2.find((e) => e.object.metadata.name === "three");
    expect(three2).toMatchObject({ type: "ADDED", object: { apiVersion: `${webhookGroup}/v2`, spec: { schedule: "1 * * * *" } } });
    expect(e2.filter((e) => e.type === "ADDED").every((e) => "schedule" in e.object.spec)).toBe(true);
    const three1 = e1.find((e) => e.object.metadata.name === "three");
    expect(three1).toMatchObject({ type: "ADDED", object: { apiVersion: `${webhookGroup}/v1`, spec: { cronSpec: "1 * * * *" } } });
  });

  it("deletecollection in v2 answers the deleted objects in v2", async () => {
    const c = await req(s, "POST", v1, { body: { apiVersion: `${webhookGroup}/v1`, kind: "CronTab", metadata: { name: "five", labels: { gone: "yes" } }, spec: { cronSpec: "9 * * * *" } } });
    expect(c.status).toBe(201);
    const d = await req(s, "DELETE", `${v2}?labelSelector=gone%3Dyes`);
    expect(d.status, JSON.stringify(d.json)).toBe(200);
    expect(d.json.items.map((i: any) => [i.metadata.name, i.apiVersion, i.spec])).toEqual([["five", `${webhookGroup}/v2`, { schedule: "9 * * * *" }]]);
    expect((await req(s, "GET", `${v1}/five`)).status).toBe(404);
  });

  it("a webhook that is down: 500 InternalError with upstream's message, on get, list and create", async () => {
    await hook.close();
    const got = await req(s, "GET", `${v2}/one`);
    expect(got.status).toBe(500);
    expect(got.json).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
    expect(got.json.message).toMatch(new RegExp(`^Internal error occurred: conversion webhook for ${webhookGroup.replace(/\./g, "\\.")}/v1, Kind=CronTab failed: Post "https://127\\.0\\.0\\.1:${hook.port}/convert\\?timeout=30s": `));
    const listed = await req(s, "GET", v2);
    expect(listed.status).toBe(500);
    expect(listed.json.message).toContain("conversion webhook for");
    const created = await req(s, "POST", v2, { body: { apiVersion: `${webhookGroup}/v2`, kind: "CronTab", metadata: { name: "four" }, spec: { schedule: "0 * * * *" } } });
    expect(created.status).toBe(500);
    expect(created.json.message).toContain(`conversion webhook for ${webhookGroup}/v2, Kind=CronTab failed`);
    // A watch in v2 gets an ERROR event carrying the same Status, then its stream ends.
    const evs = await watchEvents(s, `${v2}?watch=1&resourceVersion=0`, (e) => e.some((x) => x.type === "ERROR"), 5000);
    expect(evs.at(-1)).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 500, reason: "InternalError" } });
    // The storage version itself needs no webhook.
    expect((await req(s, "GET", `${v1}/one`)).status).toBe(200);
  });
});

describe("conversion strategy None, deprecated versions", () => {
  const group = "none.example.com";
  const n1 = `/apis/${group}/v1/namespaces/default/crontabs`;
  const n2 = `/apis/${group}/v2/namespaces/default/crontabs`;

  it("stores in the storage version and serves every version by apiVersion rewrite", async () => {
    const crd = twoVersionCRD(group, { strategy: "None" }, { deprecated: true });
    crd.spec.versions[1]!.schema = specSchema("cronSpec");
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    await servedOnceSettled(s, n2);
    const r = await req(s, "POST", n2, { body: { apiVersion: `${group}/v2`, kind: "CronTab", metadata: { name: "n" }, spec: { cronSpec: "2 * * * *" } } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.apiVersion).toBe(`${group}/v2`);
    expect((await stored(group, "n")).apiVersion).toBe(`${group}/v1`);
    const g1 = await req(s, "GET", `${n1}/n`);
    expect(g1.json).toMatchObject({ apiVersion: `${group}/v1`, spec: { cronSpec: "2 * * * *" } });
    const l2 = await req(s, "GET", n2);
    expect(l2.json.items.map((i: any) => i.metadata.name)).toEqual(["n"]);
    const crdNow = await req(s, "GET", `${crdPath}/crontabs.${group}`);
    expect(crdNow.json.status.storedVersions).toEqual(["v1"]);
  });

  it("a deprecated version warns on every request; kubectl prints the Warning", async () => {
    const g = await req(s, "GET", `${n1}/n`);
    expect(String(g.headers.warning)).toContain(`${group}/v1 CronTab is deprecated; use ${group}/v2 CronTab`);
    const g2 = await req(s, "GET", `${n2}/n`);
    expect(g2.headers.warning).toBeUndefined();
    const kg = await k(["get", `crontabs.v1.${group}`, "n"]);
    expect(kg.code, kg.stderr).toBe(0);
    expect(kg.stderr).toContain(`Warning: ${group}/v1 CronTab is deprecated; use ${group}/v2 CronTab`);
  });
});
