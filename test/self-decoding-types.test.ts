// Types that decode themselves in kube-apiserver (resource.Quantity, metav1.Time and MicroTime,
// IntOrString, []byte) refuse a value while the body is decoded: 400 BadRequest in the type's own
// words (transformDecodeError's), never a stored value Go clients could not read back. kubectl sends
// a manifest as written; client-node sends the object.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

let s: EmbeddedTestServer;
let dir: string;
let kubeconfigPath: string;
let core: CoreV1Api;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  dir = mkdtempSync(join(tmpdir(), "kapi-self-decoding-"));
  kubeconfigPath = join(dir, "kubeconfig");
  writeFileSync(kubeconfigPath, s.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => s?.stop());

describe.skipIf(!kubectlBin)("metav1.Time through kubectl", () => {
  it("a timestamp RFC 3339 does not take is refused with time.Parse's words", async () => {
    const file = join(dir, "pod.json");
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "timed" }, spec: { containers: [{ name: "c", image: "busybox" }] }, status: { startTime: "yesterday" } };
    writeFileSync(file, JSON.stringify(pod));
    const k = await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file]);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toContain('Pod in version "v1" cannot be handled as a Pod: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
    writeFileSync(file, JSON.stringify({ ...pod, status: { startTime: "2024-02-30T00:00:00Z" } }));
    expect((await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file])).stderr).toContain('parsing time "2024-02-30T00:00:00Z": day out of range');
  });
});

describe("MicroTime through client-node", () => {
  const event = (name: string, eventTime: unknown) => ({ metadata: { name }, involvedObject: { kind: "Pod", name: "p", namespace: "default" }, reason: "Tested", message: "m", eventTime, reportingComponent: "kapi-test", reportingInstance: "i", action: "Test", type: "Normal" });

  it("takes six fractional digits and refuses a JavaScript Date's three, as kube-apiserver does", async () => {
    const ok = await core.createNamespacedEvent({ namespace: "default", body: event("micro", "2024-01-01T00:00:00.123456Z") as never });
    expect(ok.metadata?.name).toBe("micro");
    const err = await core.createNamespacedEvent({ namespace: "default", body: event("millis", new Date("2024-01-01T00:00:00Z")) as never }).then(() => undefined, (e: { code?: number; body?: string }) => e);
    expect(err?.code).toBe(400);
    expect(JSON.parse(err!.body!).message).toBe('Event in version "v1" cannot be handled as a Event: parsing time "2024-01-01T00:00:00.000Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".000Z" as ".000000"');
  });
});

describe("IntOrString over HTTPS", () => {
  it("an integer form past int32, or a fraction, is json's error for an int32", async () => {
    const svc = (name: string, targetPort: unknown) => ({ metadata: { name }, spec: { ports: [{ port: 80, targetPort }] } });
    for (const [name, targetPort, what] of [["big", 3_000_000_000, "number 3000000000"], ["half", 1.5, "number 1.5"], ["yes", true, "bool"]] as const) {
      const r = await req(s, "POST", "/api/v1/namespaces/default/services", { body: svc(name, targetPort) });
      expect([r.status, r.json.message], name).toEqual([400, `Service in version "v1" cannot be handled as a Service: json: cannot unmarshal ${what} into Go value of type int32`]);
    }
    expect((await req(s, "POST", "/api/v1/namespaces/default/services", { body: svc("named", "http") })).status).toBe(201);
  });
});

describe.skipIf(!kubectlBin)("[]byte fields through kubectl", () => {
  it("a Secret whose data is not padded standard base64 is refused where the decoder stopped", async () => {
    const file = join(dir, "secret.json");
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "bad-data" }, data: { password: "hunter2" } }));
    const bad = await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4');
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "good-data" }, data: { password: Buffer.from("hunter2").toString("base64") } }));
    const good = await kubectl(kubectlBin!, kubeconfigPath, ["create", "-f", file, "-o", "jsonpath={.data.password}"]);
    expect([good.code, Buffer.from(good.stdout, "base64").toString()], good.stderr).toEqual([0, "hunter2"]);
  });
});

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
