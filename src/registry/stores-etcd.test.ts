// Stores.createAll on a real etcd, which commits at most --max-txn-ops (128) writes at once: a
// longer batch is several commits, so one that fails in a later commit leaves the earlier ones
// written. What was written must then keep its claims (a Service's cluster IP), as a create that
// succeeded does, and what was not must give them back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "../../test/support/etcd.js";
import { noAdmission } from "../admission/chain.js";
import { Etcd3Storage } from "../storage/etcd3/etcd3-storage.js";
import { ipAddressKey } from "../types/allocation/service-claims.js";
import { builtinTypeRegistry } from "../types/register.js";
import { Stores } from "./stores.js";

const types = builtinTypeRegistry((f) => f.group === "" && (f.resource === "services" || f.resource === "configmaps"));
const services = types.get("", "v1", "services")!;
const configmaps = types.get("", "v1", "configmaps")!;

describe.skipIf(etcdSkipReason)(`Stores.createAll on etcd${etcdSkipReason ? ` (skipped: ${etcdSkipReason})` : ""}`, () => {
  let etcd: EtcdProcess;
  let storage: Etcd3Storage;
  beforeAll(async () => {
    etcd = await startEtcd();
    storage = await Etcd3Storage.open({ endpoints: [etcd.url], prefix: "/stores-batch", keyRoot: "", callTimeoutMs: 20_000, compactionIntervalMs: 0 });
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
    await etcd?.cleanup();
  });

  it("a batch longer than etcd's 128 writes that fails in its second commit: the first commit's objects are stored and keep their cluster IPs, the rest give theirs back", async () => {
    const stores = new Stores(storage, noAdmission, { serviceClusterIPRange: "10.96.0.0/16" });
    await stores.for(configmaps).create("default", { metadata: { name: "taken" } }, { dryRun: false });
    const svc = (i: number) => ({ type: services, namespace: "default", object: { metadata: { name: `svc-${i}` }, spec: { ports: [{ port: 80 }] } } });
    const batch = [...Array.from({ length: 130 }, (_, i) => svc(i)), { type: configmaps, namespace: "default", object: { metadata: { name: "taken" } } }];
    await expect(stores.createAll(batch, { dryRun: false })).rejects.toMatchObject({ code: "KeyExists" });

    const stored = (await storage.range(services.keyPrefix + "default/")).items.map((kv) => JSON.parse(kv.value) as { metadata: { name: string }; spec: { clusterIP: string } });
    // etcd wrote the first commit (128 writes) and refused the second.
    expect(stored.map((s) => s.metadata.name).sort()).toEqual(Array.from({ length: 128 }, (_, i) => `svc-${i}`).sort());
    const claimed = (await storage.range("/registry/networking.k8s.io/ipaddresses/")).items.map((kv) => kv.key);
    // Every stored Service's cluster IP is claimed, and nothing else is: the two Services not
    // written gave theirs back.
    expect(claimed.sort()).toEqual(stored.map((s) => ipAddressKey(s.spec.clusterIP)).sort());
  }, 60_000);
});
