import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { aggregateMessage, validateLabels } from "../apimachinery/validation.js";
import type { KObject } from "../apimachinery/object.js";
import { clusterIPServiceResolver, ConversionError, conversionStatusError, createConverter, goDurationString } from "./conversion.js";
import { defaultReply, renameConvert, startConversionWebhook, success, type ConversionWebhook } from "./conversion.testkit.js";
import type { CRDLike } from "./versions.js";

const G = "stable.example.com";

function crd(conversion?: CRDLike["spec"]["conversion"]): CRDLike {
  return {
    metadata: { name: `crontabs.${G}` },
    spec: {
      group: G,
      names: { kind: "CronTab", plural: "crontabs", listKind: "CronTabList" },
      scope: "Namespaced",
      versions: [
        { name: "v1", served: true, storage: true },
        { name: "v2", served: true, storage: false },
      ],
      ...(conversion ? { conversion } : {}),
    },
  };
}

function cronTab(name: string, version = "v1", extra: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: `${G}/${version}`,
    kind: "CronTab",
    metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: "7", labels: { app: "x" }, annotations: { note: "n" } },
    spec: version === "v1" ? { cronSpec: "* * * * */5", image: "img" } : { schedule: "* * * * */5", image: "img" },
    ...extra,
  };
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ConversionError);
    return (e as Error).message;
  }
  throw new Error("conversion did not fail");
}

describe("None", () => {
  const conv = createConverter(crd());
  it("rewrites apiVersion only and leaves the input alone", async () => {
    const input = [cronTab("a"), cronTab("b", "v2")];
    const out = await conv.convert(input, "v2");
    expect(conv.strategy).toBe("None");
    expect(out.map((o) => o.apiVersion)).toEqual([`${G}/v2`, `${G}/v2`]);
    expect(out[0]!.spec).toEqual({ cronSpec: "* * * * */5", image: "img" });
    expect(out[0]!.metadata).toEqual(input[0]!.metadata);
    expect(input[0]!.apiVersion).toBe(`${G}/v1`);
  });
  it.each([
    [[cronTab("a")], "v3", undefined, `request to convert CR to an invalid group/version: ${G}/v3`],
    [[{ ...cronTab("a"), apiVersion: `${G}/v9` }], "v2", undefined, `request to convert CR from an invalid group/version: ${G}/v9`],
    [[cronTab("a"), { ...cronTab("b"), apiVersion: "other/v1" }], "v2", { apiVersion: `${G}/v2`, kind: "CronTabList" }, "request to convert CR list failed, list index 1 has invalid group/version: other/v1"],
  ])("rejects versions outside the CRD: %#", async (objs, to, list, msg) => {
    expect(await failure(conv.convert(objs, to, list ? { list } : {}))).toBe(msg);
  });
  it("a 500 Status for the serving layer", () => {
    const e = conversionStatusError(new ConversionError("conversion webhook for x failed: y"));
    expect(e.code).toBe(500);
    expect(e.toStatus()).toMatchObject({ reason: "InternalError", message: "Internal error occurred: conversion webhook for x failed: y" });
  });
  it("unknown strategy", () => {
    expect(() => createConverter(crd({ strategy: "Magic" }))).toThrow(`unknown conversion strategy "Magic" for CRD crontabs.${G}`);
  });
});

describe("goDurationString", () => {
  it.each([
    [30_000, "30s"],
    [300, "300ms"],
    [1500, "1.5s"],
    [90_000, "1m30s"],
  ])("%d ms → %s", (ms, s) => expect(goDurationString(ms)).toBe(s));
});

describe("Webhook", () => {
  let hook: ConversionWebhook;
  beforeAll(async () => {
    hook = await startConversionWebhook({ dnsNames: ["conv.hooks.svc"] });
  });
  afterAll(() => hook.close());
  beforeEach(() => {
    hook.requests.length = 0;
    hook.paths.length = 0;
    hook.reply = defaultReply;
  });
  const webhookCRD = (over: { versions?: string[]; url?: string; caBundle?: string | null; service?: { namespace: string; name: string; path?: string; port?: number } } = {}) =>
    crd({
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: over.versions ?? ["v1", "v1beta1"],
        clientConfig: {
          ...(over.service ? { service: over.service } : { url: over.url ?? hook.url }),
          ...(over.caBundle === null ? {} : { caBundle: over.caBundle ?? hook.caBundle }),
        },
      },
    });
  const gvk = `${G}/v1, Kind=CronTab`;

  it("converts v1 → v2 and back through a loopback HTTPS webhook trusting its caBundle", async () => {
    const conv = createConverter(webhookCRD());
    expect(conv.strategy).toBe("Webhook");
    const [v2] = await conv.convert([cronTab("a")], "v2");
    expect(v2).toMatchObject({ apiVersion: `${G}/v2`, kind: "CronTab", spec: { schedule: "* * * * */5", image: "img" } });
    expect(v2!.spec).not.toHaveProperty("cronSpec");
    const [v1] = await conv.convert([v2!], "v1");
    expect(v1).toEqual(cronTab("a"));
    const r = hook.requests[0]!;
    expect(r.apiVersion).toBe("apiextensions.k8s.io/v1");
    expect(r.kind).toBe("ConversionReview");
    expect(r.request.desiredAPIVersion).toBe(`${G}/v2`);
    expect(r.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.request.objects).toEqual([cronTab("a")]);
    expect(hook.paths[0]).toBe("/convert?timeout=30s");
  });

  it("sends one review with only the objects not yet in the desired version", async () => {
    const conv = createConverter(webhookCRD());
    const out = await conv.convert([cronTab("a"), cronTab("b", "v2"), cronTab("c")], "v2", { list: { apiVersion: `${G}/v2`, kind: "CronTabList" } });
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.request.objects.map((o) => (o.metadata as { name: string }).name)).toEqual(["a", "c"]);
    expect(out.map((o) => [o.metadata.name, o.apiVersion])).toEqual([
      ["a", `${G}/v2`],
      ["b", `${G}/v2`],
      ["c", `${G}/v2`],
    ]);
    await conv.convert([cronTab("b", "v2")], "v2");
    expect(hook.requests).toHaveLength(1);
  });

  it("negotiates the review version: the first one the server knows", async () => {
    await createConverter(webhookCRD({ versions: ["v1beta1", "v1"] })).convert([cronTab("a")], "v2");
    expect(hook.requests[0]!.apiVersion).toBe("apiextensions.k8s.io/v1beta1");
    await createConverter(webhookCRD({ versions: ["v9", "v1", "v1beta1"] })).convert([cronTab("a")], "v2");
    expect(hook.requests[1]!.apiVersion).toBe("apiextensions.k8s.io/v1");
    expect(await failure(createConverter(webhookCRD({ versions: ["v9"] })).convert([cronTab("a")], "v2"))).toBe("no supported conversion review versions");
  });

  it("v1beta1 answers are not checked for their uid", async () => {
    hook.reply = (r) => ({ body: { apiVersion: r.apiVersion, kind: "ConversionReview", response: { uid: "whatever", convertedObjects: r.request.objects.map((o) => renameConvert(o, r.request.desiredAPIVersion)), result: { status: "Success" } } } });
    const [out] = await createConverter(webhookCRD({ versions: ["v1beta1"] })).convert([cronTab("a")], "v2");
    expect(out!.apiVersion).toBe(`${G}/v2`);
  });

  it("keeps labels and annotations from the webhook, restores the rest of metadata", async () => {
    hook.reply = (r) =>
      success(
        r,
        r.request.objects.map((o) => {
          const c = renameConvert(o, r.request.desiredAPIVersion);
          c.metadata = { ...(c.metadata as object), labels: { app: "y", extra: "1" }, resourceVersion: "999", generation: 5, finalizers: ["x/y"] };
          delete (c.metadata as Record<string, unknown>).annotations;
          return c;
        }),
      );
    const [out] = await createConverter(webhookCRD()).convert([cronTab("a")], "v2");
    expect(out!.metadata).toEqual({ name: "a", namespace: "default", uid: "uid-a", resourceVersion: "7", labels: { app: "y", extra: "1" } });
  });

  const failures: [string, (r: import("./conversion.testkit.js").Review) => import("./conversion.testkit.js").Reply, string | RegExp][] = [
    ["non-200 with text", () => ({ status: 500, body: "boom" }), `conversion webhook for ${gvk} failed: an error on the server ("boom") has prevented the request from succeeding`],
    ["non-200 with JSON", () => ({ status: 503, body: { not: "a status" } }), `conversion webhook for ${gvk} failed: the server is currently unable to handle the request`],
    ["non-200 with a Status", () => ({ status: 403, body: { kind: "Status", apiVersion: "v1", status: "Failure", message: "go away", code: 403 } }), `conversion webhook for ${gvk} failed: go away`],
    ["wrong uid", (r) => ({ body: { ...(success(r, []).body as object), response: { uid: "nope", convertedObjects: [], result: { status: "Success" } } } }), /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: expected response\.uid="[0-9a-f-]{36}", got "nope"$/],
    ["no response", (r) => ({ body: { apiVersion: r.apiVersion, kind: "ConversionReview" } }), `conversion webhook for ${gvk} failed: no response provided`],
    ["result failure with a message", (r) => ({ body: { apiVersion: r.apiVersion, kind: "ConversionReview", response: { uid: r.request.uid, result: { status: "Failure", message: "cannot convert cronSpec" } } } }), `conversion webhook for ${gvk} failed: cannot convert cronSpec`],
    ["result failure without a message", (r) => ({ body: { apiVersion: r.apiVersion, kind: "ConversionReview", response: { uid: r.request.uid, result: { status: "Failure" } } } }), `conversion webhook for ${gvk} failed: response.result.status was 'Failure', not 'Success'`],
    ["wrong review kind", () => ({ body: { apiVersion: "v1", kind: "Status" } }), `conversion webhook for ${gvk} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /v1, Kind=Status`],
    ["not JSON", () => ({ body: "{oops", contentType: "application/json" }), /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: couldn't get version\/kind; json parse error: /],
    ["wrong count", (r) => success(r, [...r.request.objects, ...r.request.objects]), `conversion webhook for ${gvk} returned 2 objects, expected 1`],
    ["no objects", (r) => success(r, []), `conversion webhook for ${gvk} returned 0 objects, expected 1`],
    ["wrong apiVersion", (r) => success(r, r.request.objects), `conversion webhook for ${gvk} returned invalid object at index 0: invalid groupVersion (expected ${G}/v2, received ${G}/v1)`],
    ["wrong kind", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), kind: "Other" }))), `conversion webhook for ${gvk} returned invalid object at index 0: invalid kind (expected CronTab, received Other)`],
    ["name changed", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), name: "b" } }))), `conversion webhook for ${gvk} returned invalid object: must have the same name: a != b`],
    ["namespace changed", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), namespace: "kube-system" } }))), `conversion webhook for ${gvk} returned invalid object: must have the same namespace: default != kube-system`],
    ["uid changed", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), uid: "other" } }))), `conversion webhook for ${gvk} returned invalid object: must have the same UID: uid-a != other`],
    ["metadata dropped", (r) => success(r, r.request.objects.map((o) => { const c = renameConvert(o, r.request.desiredAPIVersion); delete c.metadata; return c; })), `conversion webhook for ${gvk} returned invalid object: must have the same name: a != `],
    ["metadata not an object", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: "x" }))), `conversion webhook for ${gvk} returned invalid object: must have the same name: a != `],
    ["label value not a string", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), labels: { a: 1 } } }))), `conversion webhook for ${gvk} returned invalid metadata: metadata.labels[a] must be a string, but is int64 in converted object`],
    ["annotations not a map", (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), annotations: ["x"] } }))), `conversion webhook for ${gvk} returned invalid metadata: invalid metadata.annotations of type []interface {} in converted object`],
    ["converted object without kind", (r) => success(r, [{ apiVersion: r.request.desiredAPIVersion }]), `Object 'Kind' is missing in '{"apiVersion":"${G}/v2"}'`],
  ];
  it.each(failures)("%s", async (_name, reply, msg) => {
    hook.reply = reply;
    const m = await failure(createConverter(webhookCRD()).convert([cronTab("a")], "v2"));
    if (typeof msg === "string") expect(m).toBe(msg);
    else expect(m).toMatch(msg);
  });

  it("an invalid label from the webhook fails with the label validation message", async () => {
    hook.reply = (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), labels: { "-bad": "x" } } })));
    const m = await failure(createConverter(webhookCRD()).convert([cronTab("a")], "v2"));
    expect(m).toBe(`conversion webhook for ${gvk} returned invalid metadata: ${aggregateMessage(validateLabels({ "-bad": "x" }, "metadata.labels"))}`);
    expect(m).toContain("metadata.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters");
  });

  it("list conversions name the list kind and the (1-based) item index", async () => {
    const list = { list: { apiVersion: `${G}/v2`, kind: "CronTabList" } };
    const lgvk = `${G}/v2, Kind=CronTabList`;
    hook.reply = (r) => success(r, r.request.objects.map((o, i) => (i === 1 ? o : renameConvert(o, r.request.desiredAPIVersion))));
    expect(await failure(createConverter(webhookCRD()).convert([cronTab("a"), cronTab("b")], "v2", list))).toBe(
      `conversion webhook for ${lgvk} returned invalid converted object at index 2: invalid groupVersion (expected ${G}/v2, received ${G}/v1)`,
    );
    hook.reply = (r) => success(r, r.request.objects.map((o) => ({ ...renameConvert(o, r.request.desiredAPIVersion), metadata: { ...(o.metadata as object), labels: { a: true } } })));
    expect(await failure(createConverter(webhookCRD()).convert([cronTab("a"), cronTab("b")], "v2", list))).toBe(
      `conversion webhook for ${lgvk} returned invalid metadata in object at index 1: metadata.labels[a] must be a string, but is bool in converted object`,
    );
    hook.reply = () => ({ status: 500, body: "boom" });
    expect(await failure(createConverter(webhookCRD()).convert([cronTab("a")], "v2", list))).toBe(`conversion webhook for ${lgvk} failed: an error on the server ("boom") has prevented the request from succeeding`);
  });

  it("times out with client-go's message", async () => {
    hook.reply = () => ({ hang: true });
    const started = Date.now();
    const m = await failure(createConverter(webhookCRD(), { timeoutMs: 300 }).convert([cronTab("a")], "v2"));
    expect(m).toBe(`conversion webhook for ${gvk} failed: Post "https://127.0.0.1:${hook.port}/convert?timeout=300ms": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("refuses a server its caBundle does not trust", async () => {
    const m = await failure(createConverter(webhookCRD({ caBundle: null })).convert([cronTab("a")], "v2"));
    expect(m).toBe(`conversion webhook for ${gvk} failed: Post "https://127.0.0.1:${hook.port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
  });

  it("connection refused", async () => {
    const m = await failure(createConverter(webhookCRD({ url: "https://127.0.0.1:1/convert" })).convert([cronTab("a")], "v2"));
    expect(m).toBe(`conversion webhook for ${gvk} failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused`);
  });

  describe("service reference", () => {
    const services: Record<string, Record<string, unknown>> = {};
    const resolveService = clusterIPServiceResolver(async (ns, name) => services[`${ns}/${name}`]);
    beforeAll(() => {
      services["hooks/conv"] = { spec: { type: "ClusterIP", clusterIP: "127.0.0.1", ports: [{ port: hook.port }] } };
      services["hooks/headless"] = { spec: { type: "ClusterIP", clusterIP: "None", ports: [{ port: hook.port }] } };
    });
    it("resolves the service to its cluster IP and checks TLS against <name>.<namespace>.svc", async () => {
      const conv = createConverter(webhookCRD({ service: { namespace: "hooks", name: "conv", path: "/convert", port: hook.port } }), { resolveService });
      const [out] = await conv.convert([cronTab("a")], "v2");
      expect(out!.spec).toEqual({ schedule: "* * * * */5", image: "img" });
      expect(hook.paths.at(-1)).toBe("/convert?timeout=30s");
    });
    it.each([
      ["missing", 'service "missing" not found'],
      ["headless", 'cannot route to service with ClusterIP "None"'],
    ])("%s service", async (name, err) => {
      const conv = createConverter(webhookCRD({ service: { namespace: "hooks", name, path: "/convert", port: hook.port } }), { resolveService });
      expect(await failure(conv.convert([cronTab("a")], "v2"))).toBe(`conversion webhook for ${gvk} failed: Post "https://${name}.hooks.svc:${hook.port}/convert?timeout=30s": ${err}`);
    });
    it("a serving certificate without the service's DNS name", async () => {
      services["hooks/other"] = services["hooks/conv"]!;
      const conv = createConverter(webhookCRD({ service: { namespace: "hooks", name: "other", path: "/convert", port: hook.port } }), { resolveService });
      expect(await failure(conv.convert([cronTab("a")], "v2"))).toBe(
        `conversion webhook for ${gvk} failed: Post "https://other.hooks.svc:${hook.port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate is valid for localhost, conv.hooks.svc, 127.0.0.1, not other.hooks.svc`,
      );
    });
    it("a port the service does not have", async () => {
      const conv = createConverter(webhookCRD({ service: { namespace: "hooks", name: "conv", port: 1234 } }), { resolveService });
      expect(await failure(conv.convert([cronTab("a")], "v2"))).toBe(`conversion webhook for ${gvk} failed: Post "https://conv.hooks.svc:1234/?timeout=30s": no service port 1234 found for service "conv"`);
    });
  });
});
