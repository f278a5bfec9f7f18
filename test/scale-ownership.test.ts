// Writes through /scale record their manager as upstream does: `kubectl scale` (a merge patch of
// the Scale) and a PUT of a Scale (what the HorizontalPodAutoscaler sends) leave an Update entry
// with subresource "scale" owning the object's replicas field, taken from its previous owner; a
// later server-side apply of another count by another manager (Helm's upgrade) then conflicts,
// and takes the field with force. The same for a custom resource with a scale subresource, and
// for an apply to /scale itself.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppsV1Api, KubeConfig } from "@kubernetes/client-node";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { crontabCRD } from "./support/crd.js";
import { servedOnceSettled } from "./support/settle.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
// kubectl names itself after its binary in its User-Agent, which is its manager name.
const kubectlManager = kubectlBin ? basename(kubectlBin) : "kubectl";

let s: EmbeddedTestServer;
let kubeconfigPath: string;
let apps: AppsV1Api;

beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  kubeconfigPath = join(mkdtempSync(join(tmpdir(), "kapi-scale-ownership-")), "kubeconfig");
  writeFileSync(kubeconfigPath, s.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  apps = kc.makeApiClient(AppsV1Api);
});
afterAll(async () => s?.stop());

const k = (args: string[], stdin?: string) => kubectl(kubectlBin!, kubeconfigPath, ["-n", "default", ...args], stdin);

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers: [{name: app, image: nginx}]
`;

async function managedFields(path: string): Promise<any[]> {
  return (await req(s, "GET", path)).json.metadata.managedFields;
}

const entryOf = (entries: any[], manager: string) => entries.find((e) => e.manager === manager);

describe("a Deployment", () => {
  it.skipIf(!kubectlBin)("kubectl scale takes .spec.replicas from Helm's apply; Helm's next apply of another count conflicts, then forces", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments/web";
    expect((await k(["apply", "--server-side", "--field-manager=helm", "-f", "-"], deployment("web", 1))).code).toBe(0);
    const scaled = await k(["scale", "deployment/web", "--replicas=3"]);
    expect(scaled.stderr).toBe("");

    const after = await managedFields(path);
    expect(entryOf(after, kubectlManager)).toMatchObject({ operation: "Update", apiVersion: "apps/v1", subresource: "scale", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } });
    expect(entryOf(after, kubectlManager).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(entryOf(after, "helm").fieldsV1["f:spec"]).not.toHaveProperty("f:replicas");
    expect(entryOf(after, "helm").fieldsV1["f:spec"]).toHaveProperty("f:selector");

    const upgrade = await k(["apply", "--server-side", "--field-manager=helm", "-f", "-"], deployment("web", 5));
    expect(upgrade.code).not.toBe(0);
    expect(upgrade.stderr).toContain(`Apply failed with 1 conflict: conflict with "${kubectlManager}" with subresource "scale" using apps/v1: .spec.replicas`);
    expect((await req(s, "GET", path)).json.spec.replicas).toBe(3);

    const forced = await k(["apply", "--server-side", "--force-conflicts", "--field-manager=helm", "-f", "-"], deployment("web", 5));
    expect(forced.code).toBe(0);
    const final = await req(s, "GET", path);
    expect(final.json.spec.replicas).toBe(5);
    expect(entryOf(final.json.metadata.managedFields, "helm").fieldsV1["f:spec"]).toHaveProperty("f:replicas");
    expect(entryOf(final.json.metadata.managedFields, kubectlManager)).toBeUndefined();
  });

  it("a PUT of its Scale (as the autoscaler sends it) owns the replicas; an apply of another count is answered 409 naming it", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments/hpa-target";
    const create = await req(s, "PATCH", `${path}?fieldManager=helm`, { body: deployment("hpa-target", 2), headers: { "content-type": "application/apply-patch+yaml" } });
    expect(create.status).toBe(201);
    const scale = await apps.readNamespacedDeploymentScale({ name: "hpa-target", namespace: "default" });
    const replaced = await apps.replaceNamespacedDeploymentScale({ name: "hpa-target", namespace: "default", fieldManager: "horizontal-pod-autoscaler", body: { ...scale, spec: { replicas: 4 } } });
    expect(replaced.spec?.replicas).toBe(4);
    expect(entryOf(await managedFields(path), "horizontal-pod-autoscaler")).toMatchObject({ operation: "Update", apiVersion: "apps/v1", subresource: "scale", fieldsV1: { "f:spec": { "f:replicas": {} } } });

    const conflict = await req(s, "PATCH", `${path}?fieldManager=helm`, { body: deployment("hpa-target", 6), headers: { "content-type": "application/apply-patch+yaml" } });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "horizontal-pod-autoscaler" with subresource "scale" using apps/v1: .spec.replicas',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "horizontal-pod-autoscaler" with subresource "scale" using apps/v1', field: ".spec.replicas" }] },
    });
    // Applying the count it already has shares the field instead.
    expect((await req(s, "PATCH", `${path}?fieldManager=helm`, { body: deployment("hpa-target", 4), headers: { "content-type": "application/apply-patch+yaml" } })).status).toBe(200);
  });

  it("an apply to /scale conflicts with the owner of the replicas, and takes them with force", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments/scaled-by-apply";
    expect((await req(s, "PATCH", `${path}?fieldManager=helm`, { body: deployment("scaled-by-apply", 2), headers: { "content-type": "application/apply-patch+yaml" } })).status).toBe(201);
    const config = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: scaled-by-apply\nspec:\n  replicas: 7\n";
    const refused = await req(s, "PATCH", `${path}/scale?fieldManager=scaler`, { body: config, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe('Apply failed with 1 conflict: conflict with "helm": .spec.replicas');
    const forced = await req(s, "PATCH", `${path}/scale?fieldManager=scaler&force=true`, { body: config, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(forced.status).toBe(200);
    expect(forced.json).toMatchObject({ kind: "Scale", spec: { replicas: 7 } });
    const entries = await managedFields(path);
    expect(entryOf(entries, "scaler")).toMatchObject({ operation: "Apply", apiVersion: "apps/v1", subresource: "scale", fieldsV1: { "f:spec": { "f:replicas": {} } } });
    expect(entryOf(entries, "helm").fieldsV1["f:spec"]).not.toHaveProperty("f:replicas");
    const noManager = await req(s, "PATCH", `${path}/scale`, { body: config, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(noManager.status).toBe(422);
  });
});

describe("a custom resource with a scale subresource", () => {
  it.skipIf(!kubectlBin)("kubectl scale owns its replicas path; another manager's apply conflicts, then forces", async () => {
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crontabCRD() })).status).toBe(201);
    const path = "/apis/stable.example.com/v1/namespaces/default/crontabs/nightly";
    await servedOnceSettled(s, "/apis/stable.example.com/v1/namespaces/default/crontabs");
    const crontab = (replicas: number) => `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n  cronSpec: "0 0 * * *"\n  replicas: ${replicas}\n`;
    expect((await k(["apply", "--server-side", "--field-manager=helm", "-f", "-"], crontab(2))).code).toBe(0);
    expect((await k(["scale", "crontab/nightly", "--replicas=4"])).code).toBe(0);
    expect(entryOf(await managedFields(path), kubectlManager)).toMatchObject({ operation: "Update", apiVersion: "stable.example.com/v1", subresource: "scale", fieldsV1: { "f:spec": { "f:replicas": {} } } });

    const upgrade = await k(["apply", "--server-side", "--field-manager=helm", "-f", "-"], crontab(3));
    expect(upgrade.code).not.toBe(0);
    expect(upgrade.stderr).toContain(`Apply failed with 1 conflict: conflict with "${kubectlManager}" with subresource "scale" using stable.example.com/v1: .spec.replicas`);
    expect((await k(["apply", "--server-side", "--force-conflicts", "--field-manager=helm", "-f", "-"], crontab(3))).code).toBe(0);
    const final = await req(s, "GET", path);
    expect(final.json.spec.replicas).toBe(3);
    expect(entryOf(final.json.metadata.managedFields, kubectlManager)).toBeUndefined();
  });
});
