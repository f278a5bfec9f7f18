// pods/<name>/ephemeralcontainers: the subresource `kubectl debug` patches. Only ephemeral
// containers change through it; existing ones stay as they are; they are refused on create.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33);
let s: EmbeddedTestServer;
let dir: string;
const pods = "/api/v1/namespaces/default/pods";

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), "kapi-debug-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
  await s.settle(); // the default ServiceAccount, which pod admission needs
  expect((await req(s, "POST", pods, { body: { metadata: { name: "app" }, spec: { containers: [{ name: "main", image: "nginx" }] } } })).status).toBe(201);
});
afterAll(async () => {
  await s?.stop();
});

const ec = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: "busybox", terminationMessagePolicy: "File", imagePullPolicy: "Always", ...extra });
const patchEcs = (containers: unknown[]) =>
  req(s, "PATCH", `${pods}/app/ephemeralcontainers`, { headers: { "content-type": "application/merge-patch+json" }, body: { spec: { ephemeralContainers: containers } } });

describe("ephemeral containers", () => {
  it("are refused on create", async () => {
    const r = await req(s, "POST", pods, { body: { metadata: { name: "early" }, spec: { containers: [{ name: "c", image: "x" }], ephemeralContainers: [ec("dbg")] } } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toContainEqual({ reason: "FieldValueForbidden", message: "Forbidden: cannot be set on create", field: "spec.ephemeralContainers" });
  });

  it.skipIf(!kubectlBin)("kubectl debug adds one through the subresource, bumping the generation and nothing else", async () => {
    const before = (await req(s, "GET", `${pods}/app`)).json;
    const r = await kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, "cache")}`, "debug", "app", "--image=busybox", "--container=dbg", "--target=main", "--profile=general"]);
    expect(r.stderr).toBe("");
    const after = (await req(s, "GET", `${pods}/app`)).json;
    expect(after.spec.ephemeralContainers).toEqual([expect.objectContaining({ name: "dbg", image: "busybox", targetContainerName: "main", terminationMessagePolicy: "File" })]);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    expect(after.spec.containers).toEqual(before.spec.containers);
  });

  it("keeps existing ones as they are and allows only the fields upstream allows", async () => {
    const current = (await req(s, "GET", `${pods}/app`)).json.spec.ephemeralContainers as any[];
    const changed = await patchEcs([{ ...current[0], image: "alpine" }]);
    expect(changed.status).toBe(422);
    expect(changed.json.message).toContain('spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed');
    const ported = await patchEcs([...current, ec("web", { ports: [{ containerPort: 80 }] })]);
    expect(ported.status).toBe(422);
    expect(ported.json.details.causes).toContainEqual({ reason: "FieldValueForbidden", message: "Forbidden: cannot be set for an Ephemeral Container", field: "spec.ephemeralContainers[1].ports" });
    const clash = await patchEcs([...current, ec("main")]);
    expect(clash.status).toBe(422);
    expect(clash.json.details.causes).toContainEqual({ reason: "FieldValueDuplicate", message: 'Duplicate value: "main"', field: "spec.ephemeralContainers[1].name" });
    // Changes to anything but ephemeral containers are ignored through the subresource.
    const pod = (await req(s, "GET", `${pods}/app`)).json;
    pod.metadata.labels = { sneaky: "yes" };
    pod.spec.ephemeralContainers.push(ec("second"));
    const put = await req(s, "PUT", `${pods}/app/ephemeralcontainers`, { body: pod });
    expect(put.status).toBe(200);
    expect(put.json.metadata.labels).toBeUndefined();
    expect(put.json.spec.ephemeralContainers.map((c: any) => c.name)).toEqual(["dbg", "second"]);
  });
});
