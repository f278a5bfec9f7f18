// kube-root-ca.crt through kubectl: every namespace gets the ConfigMap the ServiceAccount
// admission plugin mounts into pods, holding the CA bundle that verifies this server; an edit is
// put back, a deletion undone; --controllers can turn the publisher off.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33);
const description =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

describe.skipIf(!bin)("kube-root-ca.crt with kubectl 1.33", () => {
  const servers: EmbeddedTestServer[] = [];
  let dir: string;
  const start = async (name: string, controllers?: string[]) => {
    const s = await startTestServer({ dataDir: join(dir, name), ...(controllers ? { options: { controllers } } : {}) });
    servers.push(s);
    return s;
  };
  const on = (s: EmbeddedTestServer) => ({
    k: (...args: string[]) => kubectl(bin!, s.kubeconfigPath!, args),
    rootCA: async (ns: string) => {
      const r = await kubectl(bin!, s.kubeconfigPath!, ["get", "configmap", "kube-root-ca.crt", "-n", ns, "-o", "json", "--show-managed-fields"]);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    },
  });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kapi-root-ca-"));
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is published in every namespace with the CA that verifies the server, and kept so", async () => {
    const s = await start("on");
    const { k, rootCA } = on(s);
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      const cm = await whenSettled(s, `kube-root-ca.crt in ${ns}`, () => rootCA(ns));
      expect(cm.data).toEqual({ "ca.crt": s.admin.ca });
    }
    expect((await k("create", "namespace", "team-a")).code).toBe(0);
    const cm = await whenSettled(s, "kube-root-ca.crt in team-a", () => rootCA("team-a"));
    expect(cm.metadata.annotations).toEqual({ "kubernetes.io/description": description });
    expect(cm.data).toEqual({ "ca.crt": s.admin.ca });
    expect(cm.metadata.managedFields.map((m: any) => [m.manager, m.operation])).toEqual([["kube-controller-manager", "Update"]]);

    // The published bundle is what a pod uses to verify the server: a TLS connection trusting only it succeeds.
    const viaBundle = await req(s, "GET", "/version", { creds: { ca: cm.data["ca.crt"] } });
    expect(viaBundle.status).toBe(200);

    // An edit is put back (the bundle and nothing else in data; the annotation restored).
    expect((await k("patch", "configmap", "kube-root-ca.crt", "-n", "team-a", "--type=merge", "-p", JSON.stringify({ metadata: { annotations: { "kubernetes.io/description": null, mine: "x" } }, data: { "ca.crt": "bogus", extra: "y" } }))).code).toBe(0);
    const restored = await whenSettled(s, "the edit to be undone", async () => {
      const cur = await rootCA("team-a");
      return cur?.data?.["ca.crt"] === s.admin.ca ? cur : undefined;
    });
    expect(restored.data).toEqual({ "ca.crt": s.admin.ca });
    expect(restored.metadata.annotations).toEqual({ "kubernetes.io/description": description, mine: "x" });

    // A deletion is undone with a new object.
    expect((await k("delete", "configmap", "kube-root-ca.crt", "-n", "team-a")).code).toBe(0);
    const again = await whenSettled(s, "the ConfigMap to be made again", async () => {
      const cur = await rootCA("team-a");
      return cur && cur.metadata.uid !== cm.metadata.uid ? cur : undefined;
    });
    expect(again.data).toEqual({ "ca.crt": s.admin.ca });
  });

  it("is not published with --controllers=*,-root-ca-cert-publisher", async () => {
    const s = await start("off", ["*", "-root-ca-cert-publisher"]);
    const { k, rootCA } = on(s);
    expect((await k("create", "namespace", "team-b")).code).toBe(0);
    // The serviceaccount controller, switched on, reacts to the same namespace: once its account exists the publisher would have run too.
    await whenSettled(s, "the default ServiceAccount", async () => ((await k("get", "serviceaccount", "default", "-n", "team-b")).code === 0 ? true : undefined));
    await s.settle(); // had the publisher run, its ConfigMaps would be written by now
    expect(await rootCA("team-b")).toBeUndefined();
    expect(await rootCA("default")).toBeUndefined();
  });
});
