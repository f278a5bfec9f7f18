import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "../../../test/support/etcd.js";
import { runCachedStorageConformance } from "../cacher/cached-storage.testkit.js";
import { runStorageConformance } from "../conformance.testkit.js";
import { etcd3Harness } from "./etcd3-harness.testkit.js";
import { CachedStorage } from "../cacher/cached-storage.js";
import { StorageError, type WatchEvent } from "../interface.js";

async function until(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let etcd: EtcdProcess | undefined;
const harness = etcd3Harness(() => etcd!.url);

if (etcdSkipReason) {
  describe("Storage conformance: etcd3", () => {
    it.skip(`skipped: ${etcdSkipReason}`, () => {});
  });
} else {
  beforeAll(async () => {
    etcd = await startEtcd();
  }, 60_000);
  afterAll(async () => {
    await etcd?.cleanup();
  });
  const etcdCapabilities = { unorderedConcurrentWrites: true, transactionSharesRevision: true };
  runStorageConformance("etcd3", harness, { ownEventWindow: false, ...etcdCapabilities });
  runCachedStorageConformance("etcd3", harness, etcdCapabilities);

  describe("Etcd3Storage", () => {
    // etcd's Go client, which kube-apiserver keeps, takes answers of any size (MaxCallRecvMsgSize
    // math.MaxInt32: "range response can easily exceed request send limits"); grpc-js stops at 4 MiB.
    it("reads a range whose answer passes 4 MiB (an unpaged list of a large store)", async () => {
      const h = await harness();
      try {
        const s = h.storage;
        const value = "x".repeat(1024 * 1024);
        for (let i = 0; i < 5; i++) await s.create(`/large/${i}`, value);
        const all = await s.range("/large/");
        expect(all.items.map((kv) => kv.key)).toEqual([0, 1, 2, 3, 4].map((i) => `/large/${i}`));
        expect(all.items.every((kv) => kv.value.length === value.length)).toBe(true);
      } finally {
        await h.cleanup();
      }
    });

    it("progress on a quiet range holding keys reaches etcd's revision moved by writes elsewhere", async () => {
      const h = await harness();
      try {
        const s = h.storage;
        for (let i = 0; i < 3; i++) await s.create(`/quiet/${i}`, "v");
        const w = s.watch("/quiet/", { afterRevision: 0 }, () => {});
        for (let i = 0; i < 3; i++) await s.create(`/elsewhere/${i}`, "v");
        const current = await s.currentRevision();
        expect(await w.progress!()).toBeGreaterThanOrEqual(current);
        w.stop();
      } finally {
        await h.cleanup();
      }
    });

    // close() drains each watch up to etcd's last revision before it ends it; a watch whose range
    // was quiet reaches that revision only by a progress check, which must still read etcd while
    // the store closes (else close() waits out its 2 s drain limit on every such watch).
    it("close ends a watch on a quiet range without waiting out the drain limit", async () => {
      const h = await harness();
      const s = h.storage;
      const errors: Error[] = [];
      s.watch("/quiet/", { afterRevision: await s.currentRevision() }, () => {}, (e) => errors.push(e));
      for (let i = 0; i < 3; i++) await s.create(`/elsewhere/${i}`, "v");
      const started = Date.now();
      await h.cleanup();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(errors.map((e) => (e as StorageError).code)).toEqual(["Closed"]);
    });

    // A replica that starts (or restarts) while others write: its cache replays etcd's history
    // and reaches the present while events keep coming. etcd before 3.4.31/3.5.13 (Debian's
    // 3.4.23 here) answers progress requests ahead of the events it has not sent yet; a cache
    // that trusted the answer skipped those events.
    it("a watch cache started under concurrent writes delivers every event etcd recorded, in order", async () => {
      const h = await harness();
      try {
        const s = h.storage;
        const truth: string[] = [];
        const raw = s.watch("/under-load/", { afterRevision: 0 }, (ev) => truth.push(`${ev.revision} ${ev.type} ${ev.kv.key}`));
        let stop = false;
        let written = 0;
        const writer = async (w: number) => {
          for (let i = 0; !stop; i++) {
            const kv = await s.create(`/under-load/${w}-${i}`, "v");
            if (i % 3 === 0) await s.delete(kv.key, kv.modRevision);
            written++;
          }
        };
        const writers = Array.from({ length: 16 }, (_, w) => writer(w));
        await until(() => written >= 2000, "history to replay");
        const cache = new CachedStorage(s, { prefix: "/under-load/" });
        const seen: string[] = [];
        const watched = cache.watch("/under-load/", { afterRevision: 0 }, (ev: WatchEvent) => seen.push(`${ev.revision} ${ev.type} ${ev.kv.key}`));
        // Consistent reads meanwhile (each waits for the cache to reach etcd's revision).
        for (let i = 0; i < 5; i++) await cache.count("/under-load/");
        stop = true;
        await Promise.all(writers);
        const last = await s.currentRevision();
        expect(await cache.count("/under-load/")).toBe((await s.range("/under-load/")).items.length);
        const lastOf = (xs: string[]) => Number(xs.at(-1)?.split(" ")[0] ?? 0);
        await until(() => lastOf(seen) >= last && lastOf(truth) >= last, "both watches to reach the last write");
        watched.stop();
        raw.stop();
        expect(seen).toEqual(truth);
        await cache.close();
      } finally {
        await h.cleanup();
      }
    }, 60_000);

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
