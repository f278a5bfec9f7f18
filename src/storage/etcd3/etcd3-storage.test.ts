import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "../../../test/support/etcd.js";
import { runCachedStorageConformance } from "../cacher/cached-storage.testkit.js";
import { runStorageConformance } from "../conformance.testkit.js";
import { etcd3Harness } from "./etcd3-harness.testkit.js";

let etcd: EtcdProcess | undefined;
const harness = etcd3Harness(() => etcd!.url);

if (etcdSkipReason) {
  describe("Storage conformance: etcd3", () => {
    it.skip(`skipped: ${etcdSkipReason}`, () => {});
  });
} else {
  beforeAll(async () => {
    etcd = await startEtcd();
  }, 30_000);
  afterAll(async () => {
    await etcd?.cleanup();
  });
  const etcdCapabilities = { unorderedConcurrentWrites: true, transactionSharesRevision: true };
  runStorageConformance("etcd3", harness, { ownEventWindow: false, ...etcdCapabilities });
  runCachedStorageConformance("etcd3", harness, etcdCapabilities);

  describe("Etcd3Storage", () => {
    it("writes a transaction longer than etcd's --max-txn-ops as consecutive transactions", async () => {
      const h = await harness();
      try {
        const ops = Array.from({ length: 300 }, (_, i) => ({ kind: "create" as const, key: `/big/${String(i).padStart(3, "0")}`, value: `v${i}` }));
        const done = await h.storage.transaction(ops);
        expect(new Set(done.map((kv) => kv.modRevision)).size).toBe(3);
        expect(await h.storage.count("/big/")).toBe(300);
        await expect(h.storage.transaction([{ kind: "create", key: "/x", value: "1" }, { kind: "delete", key: "/x", expectedModRevision: 0 }])).rejects.toThrow("writes each key once");
      } finally {
        await h.cleanup();
      }
    });
  });
}
