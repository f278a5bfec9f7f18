// A CRD conversion webhook reached through a Service reference: kapi has no kube-proxy, so the
// reference is resolved through the Service's EndpointSlice to the loopback webhook, with TLS
// checked against <name>.<namespace>.svc. On top of it, an admission webhook registered for the
// storage version only (matchPolicy Equivalent) gets requests made in the other version with the
// object converted by that conversion webhook, and its patch is converted back.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConversionWebhook, type ConversionWebhook } from "../src/apiextensions/conversion.testkit.js";
import { patch, startAdmissionWebhookServer, type AdmissionWebhookServer } from "../src/admission/webhook/server.testkit.js";
import { req } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const group = "svc.example.com";
const v1 = `/apis/${group}/v1/namespaces/default/crontabs`;
const v2 = `/apis/${group}/v2/namespaces/default/crontabs`;

let s: PartsServer;
let conv: ConversionWebhook;
let admission: AdmissionWebhookServer;
let dir: string;

beforeAll(async () => {
  s = await startTuned();
  conv = await startConversionWebhook({ dnsNames: ["converter.conversion-system.svc"] });
  admission = await startAdmissionWebhookServer();
  dir = mkdtempSync(join(tmpdir(), "kapi-crd-conversion-svc-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
  await conv?.close();
  await admission?.close();
});

/** `fn` passes once the controllers and informers (the service's endpoints, webhook configurations) have settled: asked once. */
async function settled(fn: () => Promise<void>): Promise<void> {
  await s.settle();
  await fn();
}

const schema = (field: string) => ({ openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { [field]: { type: "string" }, owner: { type: "string" } } } } } });

describe("conversion webhook by service reference", () => {
  const externalSvc = { metadata: { name: "converter" }, spec: { type: "ExternalName", externalName: "localhost", ports: [{ name: "https", port: 0 }] } };
  beforeAll(() => void (externalSvc.spec.ports[0]!.port = conv.port));
  // Endpoints and EndpointSlices may not name loopback addresses (upstream ValidateEndpointIP), so
  // the loopback webhook is reached the way upstream allows: an ExternalName Service for localhost.
  it("an ExternalName Service for the loopback webhook", async () => {
    expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "conversion-system" } } })).status).toBe(201);
    expect((await req(s, "POST", "/api/v1/namespaces/conversion-system/services", { body: externalSvc })).status).toBe(201);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `crontabs.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "crontabs", singular: "crontab", kind: "CronTab" },
        versions: [
          { name: "v1", served: true, storage: true, schema: schema("cronSpec") },
          { name: "v2", served: true, storage: false, schema: schema("schedule") },
        ],
        conversion: {
          strategy: "Webhook",
          webhook: { conversionReviewVersions: ["v1"], clientConfig: { service: { namespace: "conversion-system", name: "converter", path: "/convert", port: conv.port }, caBundle: conv.caBundle } },
        },
      },
    };
    const r = await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd });
    expect(r.status, r.text).toBe(201);
    for (const p of [v1, v2]) {
      await settled(async () => {
        expect((await req(s, "GET", p)).status).toBe(200);
      });
    }
  });

  it("objects written in v1 are read in v2 through the service (kubectl and raw)", async () => {
    const c = await req(s, "POST", v1, { body: { apiVersion: `${group}/v1`, kind: "CronTab", metadata: { name: "one" }, spec: { cronSpec: "*/5 * * * *" } } });
    expect(c.status, c.text).toBe(201);
    const got = await req(s, "GET", `${v2}/one`);
    expect(got.status, got.text).toBe(200);
    expect(got.json.spec).toEqual({ schedule: "*/5 * * * *" });
    expect(conv.paths.at(-1)).toBe("/convert?timeout=30s");
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, join(dir, "kubeconfig"), ["get", `crontabs.v2.${group}`, "one", "-o", "jsonpath={.spec.schedule}"]);
      expect(k.stderr).toBe("");
      expect(k.stdout).toBe("*/5 * * * *");
    }
  });

  it("a Service whose endpoints are gone: upstream's 500 naming the dial error", async () => {
    // The same name as a ClusterIP Service without endpoints.
    expect((await req(s, "DELETE", "/api/v1/namespaces/conversion-system/services/converter")).status).toBe(200);
    const clusterSvc = { metadata: { name: "converter" }, spec: { ports: [{ name: "https", port: conv.port }] } };
    expect((await req(s, "POST", "/api/v1/namespaces/conversion-system/services", { body: clusterSvc })).status).toBe(201);
    await settled(async () => {
      const got = await req(s, "GET", `${v2}/one`);
      expect(got.status).toBe(500);
      expect(got.json.message).toBe(`Internal error occurred: conversion webhook for ${group}/v1, Kind=CronTab failed: Post "https://converter.conversion-system.svc:${conv.port}/convert?timeout=30s": no endpoints available for service "converter"`);
    });
    // Endpoints naming the loopback webhook are refused as upstream refuses them.
    const ep = { metadata: { name: "converter" }, subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: conv.port }] }] };
    const refused = await req(s, "POST", "/api/v1/namespaces/conversion-system/endpoints", { body: ep });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe('Endpoints "converter" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)');
    expect((await req(s, "DELETE", "/api/v1/namespaces/conversion-system/services/converter")).status).toBe(200);
    expect((await req(s, "POST", "/api/v1/namespaces/conversion-system/services", { body: externalSvc })).status).toBe(201);
    await settled(async () => {
      expect((await req(s, "GET", `${v2}/one`)).status).toBe(200);
    });
  });

  it("an admission webhook for v1 only (matchPolicy Equivalent) sees a v2 request converted to v1, its patch converted back", async () => {
    admission.on("/owner", (r) => patch(r, [{ op: "add", path: "/spec/owner", value: `${r.request.kind.version}:${r.request.object.spec.cronSpec}` }]));
    const cfg = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "crontab-owner" },
      webhooks: [
        {
          name: "owner.svc.example.com",
          clientConfig: { url: admission.url("/owner"), caBundle: admission.caBundle },
          rules: [{ operations: ["CREATE"], apiGroups: [group], apiVersions: ["v1"], resources: ["crontabs"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    };
    expect((await req(s, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", { body: cfg })).status).toBe(201);
    let n = 0;
    let created: any;
    await settled(async () => {
      created = await req(s, "POST", v2, { body: { apiVersion: `${group}/v2`, kind: "CronTab", metadata: { name: `two-${n++}` }, spec: { schedule: "0 * * * *" } } });
      expect(created.status, created.text).toBe(201);
      expect(created.json.spec.owner).toBeDefined();
    });
    expect(created.json.apiVersion).toBe(`${group}/v2`);
    expect(created.json.spec).toEqual({ schedule: "0 * * * *", owner: "v1:0 * * * *" });
    const review = admission.seen.at(-1)!.review.request;
    expect(review.kind).toEqual({ group, version: "v1", kind: "CronTab" });
    expect(review.resource).toEqual({ group, version: "v1", resource: "crontabs" });
    expect(review.requestKind).toEqual({ group, version: "v2", kind: "CronTab" });
    expect(review.requestResource).toEqual({ group, version: "v2", resource: "crontabs" });
    expect(review.object.apiVersion).toBe(`${group}/v1`);
  });
});
