// Manifests as fixtures: startServer({ manifests }) creates CRDs first (from files or
// directories, multi-document YAML, JSON, Lists), waits until they are served, then the rest;
// the objects are part of what reset() returns to; a bad document names its file and index.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { ManifestError, type KapiServer } from "../src/index.js";
import { startTestServer } from "./support/client.js";
import { crontabCRD } from "./support/crd.js";

const group = "fixtures.example.com";
const dir = mkdtempSync(join(tmpdir(), "kapi-manifests-"));
const crds = join(dir, "crds");
mkdirSync(crds);
// The custom resources come first in the fixture file and their CRD from a directory: order in the
// files does not matter, CRDs are created (and served) first.
writeFileSync(join(crds, "crontab.yaml"), stringify(crontabCRD(group)));
writeFileSync(join(crds, "README.txt"), "not a manifest: skipped");
const fixtures = join(dir, "fixtures.yaml");
writeFileSync(
  fixtures,
  [
    { apiVersion: `${group}/v1`, kind: "CronTab", metadata: { name: "nightly", namespace: "team" }, spec: { cronSpec: "0 3 * * *" } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "team" }, data: { mode: "fast" } },
    null,
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } },
  ]
    .map((d) => (d ? stringify(d) : ""))
    .join("---\n"),
);
const list = join(dir, "list.json");
writeFileSync(list, JSON.stringify({ apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-list" }, data: { a: "b" } }] }));

function clients(s: KapiServer) {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

describe("startServer({ manifests })", () => {
  let s: KapiServer;
  beforeAll(async () => {
    s = await startTestServer({ manifests: [crds + "/", fixtures, list] });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("creates the CRDs, then the namespaces, then the rest, through the API's rules", async () => {
    const { core, custom } = clients(s);
    expect((await core.readNamespacedConfigMap({ namespace: "team", name: "settings" })).data).toEqual({ mode: "fast" });
    expect((await core.readNamespacedConfigMap({ namespace: "default", name: "from-list" })).data).toEqual({ a: "b" });
    const nightly = (await custom.getNamespacedCustomObject({ group, version: "v1", namespace: "team", plural: "crontabs", name: "nightly" })) as { spec: Record<string, unknown>; metadata: { managedFields: { manager: string }[] } };
    expect(nightly.spec).toEqual({ cronSpec: "0 3 * * *", replicas: 1 }); // the CRD's default applied: created through the API's rules
    expect(nightly.metadata.managedFields.map((f) => f.manager)).toEqual(["kapi-manifests"]);
  });

  it("reset() returns to them", async () => {
    const { core, custom } = clients(s);
    await custom.deleteNamespacedCustomObject({ group, version: "v1", namespace: "team", plural: "crontabs", name: "nightly" });
    await core.deleteNamespace({ name: "team" });
    await s.reset();
    expect((await core.readNamespace({ name: "team" })).status!.phase).toBe("Active");
    expect(await custom.getNamespacedCustomObject({ group, version: "v1", namespace: "team", plural: "crontabs", name: "nightly" })).toMatchObject({ spec: { cronSpec: "0 3 * * *" } });
  });
});

describe("a bad manifest refuses the start and names its file and document", () => {
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const cases: [string, () => string, string | RegExp][] = [
    ["YAML that does not parse", () => write("broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [unclosed\n"), /broken\.yaml: document 1: not valid YAML or JSON/],
    ["a document with no kind", () => write("nokind.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n"), /nokind\.yaml: document 1: kind is not set/],
    ["an unknown kind", () => write("unknown.yaml", "apiVersion: v1\nkind: Gadget\nmetadata: {name: g}\n"), /unknown\.yaml: document 0: Gadget g: no resource of kind "Gadget" is served in v1/],
    ["an object the API refuses", () => write("invalid.yaml", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: Not_Valid}\n"), /invalid\.yaml: document 1: ConfigMap default\/Not_Valid: ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value/],
    ["an item of a List", () => write("badlist.json", JSON.stringify({ apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fine" } }, { apiVersion: "v1", metadata: { name: "x" } }] })), /badlist\.json: document 0, item 1: kind is not set/],
    ["a missing path", () => join(dir, "absent.yaml"), /absent\.yaml: no such file or directory/],
  ];
  it.each(cases)("%s", async (_name, file, message) => {
    const err = await startTestServer({ manifests: [file()] }).then(
      async (s) => (await s.stop(), undefined),
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect(err!.message).toMatch(message);
  });
});
