// The token cleaner and the bootstrap signer against a real in-memory store and informers, and
// the authenticator reading Secrets through the informer.
import { afterEach, describe, expect, it } from "vitest";
import { admissionChain } from "../../admission/chain.js";
import { detachedTokenIsValid } from "../../authn/bootstrap/jws.js";
import { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import { Stores } from "../../registry/stores.js";
import { Cacher } from "../../storage/cacher/cacher.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { controllerActivity, delayedStart } from "../../server/controllers-idle.js";
import { settle } from "../../testing/settle.js";
import { startBootstrapTokens } from "./index.js";

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function world(controllers?: string[], enableBootstrapTokenAuth = true) {
  const storage = new MemoryStorage();
  const cacher = new Cacher<KObject>(storage);
  const types = builtinTypeRegistry((f) => f.group === "" && ["namespaces", "configmaps", "secrets"].includes(f.resource));
  const informers = new InformerFactory(cacher, types, (e) => {
    throw e;
  });
  const stores = new Stores(storage, admissionChain([]));
  const logs: string[] = [];
  const b = startBootstrapTokens({ controllers, enableBootstrapTokenAuth }, { stores, types, informers, log: (m) => logs.push(m) });
  stops.push(() => storage.close(), () => cacher.stop(), () => informers.stop(), () => b.controllers.forEach((c) => c.stop()));
  const secretT = types.get("", "v1", "secrets")!;
  const cmT = types.get("", "v1", "configmaps")!;
  const nothingLater = delayedStart(() => undefined, 0);
  nothingLater.startNow();
  const activity = controllerActivity({ controllers: () => b.controllers, informers, later: nothingLater });
  return {
    /** Until the controllers have nothing left to do (the test kit's settle()); a scheduled expiry is not work at hand. */
    settle: () => settle({ ...activity, controllers: () => b.controllers, currentRevision: () => storage.currentRevision(), startDelayedControllers: () => undefined }),
    stores,
    types,
    b,
    logs,
    addToken: (id: string, data: Record<string, string>, type = "bootstrap.kubernetes.io/token", ns = "kube-system") =>
      stores.for(secretT).create(ns, { metadata: { name: `bootstrap-token-${id}` }, type, stringData: { "token-id": id, "token-secret": "0123456789abcdef", ...data } }, { dryRun: false }).then((r) => r.object),
    secret: (id: string, ns = "kube-system") => stores.for(secretT).get(ns, `bootstrap-token-${id}`).catch(() => undefined),
    setData: (id: string, key: string, value: string) =>
      stores.for(secretT).update("kube-system", `bootstrap-token-${id}`, { subresource: "", createIfMissing: false, desired: (c) => ({ ...c!, data: { ...(c as any).data, [key]: Buffer.from(value).toString("base64") } }) as KObject }, { dryRun: false }),
    deleteToken: (id: string) => stores.for(secretT).delete("kube-system", `bootstrap-token-${id}`, { dryRun: false }),
    clusterInfo: () => stores.for(cmT).get("kube-public", "cluster-info").then((c) => ((c as any).data ?? {}) as Record<string, string>, () => undefined),
    putClusterInfo: async (data: Record<string, string>) => {
      const cur = await stores.for(cmT).get("kube-public", "cluster-info").catch(() => undefined);
      if (!cur) return stores.for(cmT).create("kube-public", { metadata: { name: "cluster-info" }, data }, { dryRun: false });
      return stores.for(cmT).update("kube-public", "cluster-info", { subresource: "", createIfMissing: false, desired: (c) => ({ ...c!, data: { ...(c as any).data, ...data } }) }, { dryRun: false });
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(get: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await sleep(10);
  }
}
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: \"\"\n  cluster:\n    server: https://127.0.0.1:6443\n";

describe("token cleaner", () => {
  it("deletes an expired token Secret at once and a short-lived one at its expiration", async () => {
    const w = world();
    await w.addToken("past00", { expiration: inMs(-1000) });
    await w.addToken("soon00", { expiration: inMs(400) });
    await w.addToken("keep00", {});
    await w.addToken("keep01", { expiration: inMs(3_600_000) });
    await until(() => w.secret("past00"), (s) => !s, "the expired Secret to go");
    expect(await w.secret("soon00")).toBeDefined();
    const t0 = Date.now();
    await until(() => w.secret("soon00"), (s) => !s, "the short-lived Secret to go");
    expect(Date.now() - t0).toBeGreaterThan(100);
    expect(await w.secret("keep00")).toBeDefined();
    expect(await w.secret("keep01")).toBeDefined();
  });

  it("leaves other Secrets alone: other type, other namespace", async () => {
    const w = world();
    await w.addToken("opaque", { expiration: inMs(-1000) }, "Opaque");
    await w.addToken("elsewh", { expiration: inMs(-1000) }, "bootstrap.kubernetes.io/token", "default");
    await w.addToken("marker", { expiration: inMs(-1000) });
    await until(() => w.secret("marker"), (s) => !s, "the marker Secret to go");
    expect(await w.secret("opaque")).toBeDefined();
    expect(await w.secret("elsewh", "default")).toBeDefined();
  });

  it("re-examines a Secret whose expiration is moved", async () => {
    const w = world();
    await w.addToken("moved0", { expiration: inMs(3_600_000) });
    await w.settle(); // the cleaner has seen the first expiration (and scheduled its look an hour ahead)
    await w.setData("moved0", "expiration", inMs(200));
    await until(() => w.secret("moved0"), (s) => !s, "the Secret to go at its new expiration");
  });

  it("does not delete again a Secret already being deleted (finalizers pending)", async () => {
    const w = world();
    await w.addToken("final0", { expiration: inMs(200) });
    const secretT = w.types.get("", "v1", "secrets")!;
    await w.stores.for(secretT).update("kube-system", "bootstrap-token-final0", { subresource: "", createIfMissing: false, desired: (c) => ({ ...c!, metadata: { ...c!.metadata, finalizers: ["example.com/hold"] } }) }, { dryRun: false });
    const deleting = await until(() => w.secret("final0"), (s) => Boolean(s?.metadata.deletionTimestamp), "the deletion to be requested");
    await w.settle();
    // No further writes: the resourceVersion stayed.
    expect((await w.secret("final0"))!.metadata.resourceVersion).toBe(deleting!.metadata.resourceVersion);
  });

  it("does not run when --controllers turns it off", async () => {
    const w = world(["*", "-tokencleaner"]);
    expect(w.b.controllers).toHaveLength(1);
    await w.addToken("past00", { expiration: inMs(-1000) });
    await w.settle();
    expect(await w.secret("past00")).toBeDefined();
  });
});

describe("bootstrap signer", () => {
  it("signs cluster-info's kubeconfig for each signing token, and only for those", async () => {
    const w = world(["-tokencleaner", "*"]); // expired Secrets stay: the signer must skip them itself
    await w.addToken("signer", { "usage-bootstrap-signing": "true" });
    await w.addToken("nosign", { "usage-bootstrap-signing": "false", "usage-bootstrap-authentication": "true" });
    await w.addToken("expird", { "usage-bootstrap-signing": "true", expiration: inMs(-1000) });
    await w.addToken("opaque", { "usage-bootstrap-signing": "true" }, "Opaque");
    await w.settle();
    expect(await w.clusterInfo()).toBeUndefined(); // never created by the signer
    await w.putClusterInfo({ kubeconfig });
    const data = await until(() => w.clusterInfo(), (d) => Boolean(d?.["jws-kubeconfig-signer"]), "the signature");
    expect(Object.keys(data!).sort()).toEqual(["jws-kubeconfig-signer", "kubeconfig"]);
    expect(detachedTokenIsValid(data!["jws-kubeconfig-signer"], kubeconfig, "signer", "0123456789abcdef")).toBe(true);
  });

  it("re-signs a changed kubeconfig, adds new tokens, removes signatures of tokens that go away", async () => {
    const w = world();
    await w.putClusterInfo({ kubeconfig, "jws-kubeconfig-stale0": "left over" });
    await w.addToken("first0", { "usage-bootstrap-signing": "true" });
    await until(() => w.clusterInfo(), (d) => Boolean(d?.["jws-kubeconfig-first0"]) && !d?.["jws-kubeconfig-stale0"], "the first signature, the stale one gone");
    await w.addToken("second", { "usage-bootstrap-signing": "true" });
    await until(() => w.clusterInfo(), (d) => Boolean(d?.["jws-kubeconfig-second"]), "the second signature");
    const changed = kubeconfig + "current-context: x\n";
    await w.putClusterInfo({ kubeconfig: changed });
    await until(() => w.clusterInfo(), (d) => detachedTokenIsValid(d!["jws-kubeconfig-first0"], changed, "first0", "0123456789abcdef") && detachedTokenIsValid(d!["jws-kubeconfig-second"], changed, "second", "0123456789abcdef"), "signatures of the new content");
    await w.deleteToken("first0");
    await until(() => w.clusterInfo(), (d) => !d?.["jws-kubeconfig-first0"] && Boolean(d?.["jws-kubeconfig-second"]), "the deleted token's signature to go");
  });

  it("drops a token's signature when it expires (the cleaner deletes it; the signer also looks at expiry)", async () => {
    for (const controllers of [["*"], ["bootstrapsigner"]]) {
      const w = world(controllers);
      await w.putClusterInfo({ kubeconfig });
      await w.addToken("short0", { "usage-bootstrap-signing": "true", expiration: inMs(400) });
      await until(() => w.clusterInfo(), (d) => Boolean(d?.["jws-kubeconfig-short0"]), "the signature");
      await until(() => w.clusterInfo(), (d) => !d?.["jws-kubeconfig-short0"], "the signature to go at expiry");
    }
  });

  it("leaves a cluster-info without a kubeconfig key alone", async () => {
    const w = world();
    await w.putClusterInfo({ other: "x" });
    await w.addToken("signer", { "usage-bootstrap-signing": "true" });
    await w.settle();
    expect(await w.clusterInfo()).toEqual({ other: "x" });
  });
});

describe("bootstrap token authenticator through the informer", () => {
  const bearer = (t: string) => ({ path: "/api", headers: { authorization: `Bearer ${t}` } });
  it("sees Secrets as they are created, changed and deleted", async () => {
    const w = world(["-tokencleaner"]);
    const a = w.b.authenticators[0];
    expect(await a.authenticate(bearer("abcdef.0123456789abcdef"))).toBeUndefined();
    await w.addToken("abcdef", { "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token" });
    await until(async () => a.authenticate(bearer("abcdef.0123456789abcdef")), (r) => Boolean(r && "user" in r), "the token to authenticate");
    expect(await a.authenticate(bearer("abcdef.0123456789abcdef"))).toEqual({
      user: { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"] },
    });
    await w.deleteToken("abcdef");
    await until(async () => a.authenticate(bearer("abcdef.0123456789abcdef")), (r) => r === undefined, "the token to be declined");
  });
  it("is absent unless --enable-bootstrap-token-auth", () => {
    expect(world(undefined, false).b.authenticators).toEqual([]);
  });
  it("refuses an unknown --controllers name at start", () => {
    expect(() => world(["*", "foo"])).toThrow('--controllers: "foo" is not in the list of known controllers');
  });
});
