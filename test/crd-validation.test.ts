// CustomResourceDefinitions: validation (422 with every cause, also through kubectl apply) and the
// naming / establishing / finalizer controllers, end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { whenSettled } from "./support/settle.js";

const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const crd = (plural: string, kind: string, extra: (c: any) => void = () => {}) => {
  const c: any = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural, kind },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" } } } } }],
    },
  };
  extra(c);
  return c;
};

const cond = (o: any, type: string) => o?.status?.conditions?.find((c: any) => c.type === type);

describe("CustomResourceDefinitions", () => {
  let s: EmbeddedTestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  it("refuses an invalid CRD with every cause", async () => {
    const r = await req(s, "POST", base, {
      body: crd("widgets", "Widget", (c) => {
        c.metadata.name = "wrong.example.com";
        delete c.spec.scope;
        c.spec.preserveUnknownFields = true;
        c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = { a: {} };
      }),
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual(expect.arrayContaining([
      { reason: "FieldValueInvalid", field: "metadata.name", message: `Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group` },
      { reason: "FieldValueRequired", field: "spec.scope", message: "Required value" },
      { reason: "FieldValueRequired", field: "spec.validation.openAPIV3Schema.properties[spec].properties[a].type", message: "Required value: must not be empty for specified object fields" },
      { reason: "FieldValueInvalid", field: "spec.preserveUnknownFields", message: "Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead" },
    ]));
    expect(r.json.message).toMatch(/^CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid: \[/);
  });

  it("accepts names and establishes within a second, defaults and storedVersions set", async () => {
    const r = await req(s, "POST", base, { body: crd("widgets", "Widget") });
    expect(r.status).toBe(201);
    expect(r.json.spec.names).toEqual({ plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" });
    expect(r.json.spec.conversion).toEqual({ strategy: "None" });
    expect(r.json.status.storedVersions).toEqual(["v1"]);
    const t0 = performance.now();
    const got = await whenSettled(s, "the CRD established", async () => {
      const o = (await req(s, "GET", `${base}/widgets.example.com`)).json;
      return cond(o, "Established")?.status === "True" ? o : undefined;
    });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(cond(got, "NamesAccepted")).toMatchObject({ status: "True", reason: "NoConflicts", message: "no conflicts found" });
    expect(cond(got, "Established")).toMatchObject({ reason: "InitialNamesAccepted", message: "the initial names have been accepted" });
    expect(got.status.acceptedNames).toEqual({ plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" });
  });

  it("reports a name conflict with another CRD of the group", async () => {
    expect((await req(s, "POST", base, { body: crd("gadgets", "Widget") })).status).toBe(201);
    const got = await whenSettled(s, "the name conflict reported", async () => {
      const o = (await req(s, "GET", `${base}/gadgets.example.com`)).json;
      return cond(o, "NamesAccepted")?.status === "False" ? o : undefined;
    });
    expect(cond(got, "NamesAccepted")).toMatchObject({ reason: "ListKindConflict", message: `"WidgetList" is already in use` });
    expect(cond(got, "Established")).toMatchObject({ status: "False", reason: "NotAccepted", message: "not all names are accepted" });
    // singular defaults to "widget" (lower-cased kind): taken too, so only the plural is accepted
    expect(got.status.acceptedNames).toEqual({ plural: "gadgets", kind: "" });
  });

  it("deletion: Terminating with the cleanup finalizer, then gone", async () => {
    const d = await req(s, "DELETE", `${base}/gadgets.example.com`);
    expect(d.status).toBe(200);
    expect(d.json.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(cond(d.json, "Terminating")).toMatchObject({ status: "True", reason: "InstanceDeletionPending" });
    await whenSettled(s, "the CRD gone", async () => (await req(s, "GET", `${base}/gadgets.example.com`)).status === 404);
  });

  it("kubectl apply of an invalid CRD shows the causes", async () => {
    const bin = kubectlBinary(33);
    if (!bin) return;
    const { writeFileSync, mkdtempSync } = await import("node:fs");
    const dir = mkdtempSync("/tmp/crd-");
    writeFileSync(`${dir}/kc`, s.kubeconfig);
    const r = await kubectl(bin, `${dir}/kc`, ["apply", "-f", "-"], JSON.stringify(crd("things", "Thing", (c) => (c.spec.versions[0].storage = false))));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`The CustomResourceDefinition "things.example.com" is invalid:`);
    expect(r.stderr).toContain("spec.versions: Invalid value:");
    expect(r.stderr).toContain("must have exactly one version marked as storage version");
  });
});
