// A resource.Quantity decodes itself in kube-apiserver: a value ParseQuantity refuses fails the
// request's decoding (400, the type's own error in transformDecodeError's words) instead of being
// stored as written. kubectl sends the manifest as written; client-node sends the object.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

let s: EmbeddedTestServer;
let dir: string;
let kubeconfigPath: string;
let core: CoreV1Api;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  dir = mkdtempSync(join(tmpdir(), "kapi-quantity-"));
  kubeconfigPath = join(dir, "kubeconfig");
  writeFileSync(kubeconfigPath, s.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => s?.stop());

const pod = (name: string, cpu: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox", resources: { limits: { cpu } } }] } });

describe.skipIf(!kubectlBin)("Quantity values through kubectl", () => {
  it("refuses a malformed quantity and an unknown suffix, and takes a good one", async () => {
    for (const [name, cpu, why] of [["bad-format", "two", formatWrong], ["bad-suffix", "1mi", "unable to parse quantity's suffix"]]) {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(pod(name!, cpu!)));
      const k = await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain(`Pod in version "v1" cannot be handled as a Pod: ${why}`);
    }
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(pod("good", "1.5")));
    const k = await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file, "-o", "jsonpath={.spec.containers[0].resources.limits.cpu}"]);
    expect([k.code, k.stdout], k.stderr).toEqual([0, "1500m"]);
  });
});

describe("Quantity values through client-node", () => {
  it("is a 400 BadRequest the client reports, and nothing is stored", async () => {
    const err = await core.createNamespacedPod({ namespace: "default", body: pod("from-client", "lots") as never }).then(() => undefined, (e: { code?: number; body?: string }) => e);
    expect(err?.code).toBe(400);
    expect(JSON.parse(err!.body!)).toMatchObject({ reason: "BadRequest", message: `Pod in version "v1" cannot be handled as a Pod: ${formatWrong}` });
    const gone = await core.readNamespacedPod({ namespace: "default", name: "from-client" }).then(() => 200, (e: { code?: number }) => e.code);
    expect(gone).toBe(404);
  });
});
