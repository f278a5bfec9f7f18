import { afterEach, describe, expect, it } from "vitest";
import { type Storage, StorageError } from "../interface.js";
import { memoryHarness } from "../memory/memory-harness.testkit.js";
import { MemoryStorage } from "../memory/memory-storage.js";
import { sqliteHarnesses } from "../sqlite/sqlite-harness.testkit.js";
import { CachedStorage } from "./cached-storage.js";
import { runCachedStorageConformance } from "./cached-storage.testkit.js";

runCachedStorageConformance("memory", memoryHarness);
for (const { name, harness } of sqliteHarnesses()) runCachedStorageConformance(name, harness);

/** The backend's reads, counted: what the cache answers itself never reaches them. */
function countingReads(backend: Storage) {
  const calls = { get: 0, range: 0, count: 0, watch: 0 };
  const spy: Storage = {
    currentRevision: () => backend.currentRevision(),
    compactedRevision: () => backend.compactedRevision(),
    get: (...a) => (calls.get++, backend.get(...a)),
    range: (...a) => (calls.range++, backend.range(...a)),
    count: (...a) => (calls.count++, backend.count(...a)),
    watch: (...a) => (calls.watch++, backend.watch(...a)),
    create: (...a) => backend.create(...a),
    update: (...a) => backend.update(...a),
    delete: (...a) => backend.delete(...a),
    transaction: (...a) => backend.transaction(...a),
    compact: (...a) => backend.compact(...a),
    close: () => backend.close(),
  };
  return { spy, calls };
}

describe("CachedStorage", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function setup(prefix: string, cache = {}) {
    const backend = new MemoryStorage();
    const { spy, calls } = countingReads(backend);
    const cached = new CachedStorage(spy, { prefix, cache });
    cleanups.push(() => cached.close());
    return { backend, cached, calls };
  }

  it("answers reads under its prefix from the cache: the backend only feeds it", async () => {
    const { cached, calls } = setup("/registry/pods/");
    const a = await cached.create("/registry/pods/ns/a", "a1");
    await cached.update("/registry/pods/ns/a", "a2", a.modRevision);
    await cached.create("/registry/pods/ns/b", "b1");
    expect((await cached.get("/registry/pods/ns/a"))?.value).toBe("a2");
    expect((await cached.get("/registry/pods/ns/a", { revision: a.modRevision }))?.value).toBe("a1");
    expect((await cached.range("/registry/pods/ns/")).items.map((i) => i.value)).toEqual(["a2", "b1"]);
    expect((await cached.range("/registry/pods/", { revision: 1 })).items.map((i) => i.value)).toEqual(["a1"]);
    expect(await cached.count("/registry/pods/")).toBe(2);
    // One watch (the cache's feed), no range (the store was empty when the cache started), no get, no count.
    expect(calls).toEqual({ get: 0, range: 0, count: 0, watch: 1 });
  });

  it("a read whose progress request meets the end of the cache's feed is answered by a fresh cache", async () => {
    // etcd's feed reports progress on request; compaction can end the feed while a read waits
    // for that answer (the feed's error arrives first, then the request fails).
    const backend = new MemoryStorage();
    let endFeedAtNextProgress = false;
    const feedEnding: Storage = {
      ...countingReads(backend).spy,
      watch: (prefix, opts, onEvent, onError) => {
        const inner = backend.watch(prefix, opts, onEvent, onError);
        return {
          stop: () => inner.stop(),
          progress: async () => {
            if (!endFeedAtNextProgress) return backend.currentRevision();
            endFeedAtNextProgress = false;
            inner.stop();
            onError?.(new StorageError("Compacted", prefix, "compacted under the feed"));
            throw new StorageError("Closed", "", "watch ended");
          },
        };
      },
    };
    const cached = new CachedStorage(feedEnding, { prefix: "/registry/pods/", cache: {} });
    cleanups.push(() => cached.close());
    await cached.create("/registry/pods/ns/a", "a1");
    expect((await cached.get("/registry/pods/ns/a"))?.value).toBe("a1");
    endFeedAtNextProgress = true;
    expect((await cached.get("/registry/pods/ns/a"))?.value).toBe("a1");
    expect(endFeedAtNextProgress).toBe(false);
  });

  it("reads outside its prefix, and older than its ring, go to the backend", async () => {
    const { cached, calls } = setup("/registry/pods/", { maxEvents: 2 });
    await cached.create("/registry/services/ns/s", "s");
    for (let i = 0; i < 5; i++) await cached.create(`/registry/pods/ns/p${i}`, `p${i}`);
    expect((await cached.get("/registry/services/ns/s"))?.value).toBe("s");
    expect((await cached.range("/registry/")).items).toHaveLength(6);
    expect(calls).toMatchObject({ get: 1, range: 1 });
    // The ring keeps revisions 5 and 6 only: revision 3 is rebuilt by the backend, 5 by the cache.
    expect((await cached.range("/registry/pods/", { revision: 3 })).items.map((i) => i.value)).toEqual(["p0", "p1"]);
    expect(calls.range).toBe(2);
    expect((await cached.range("/registry/pods/", { revision: 5 })).items.map((i) => i.value)).toEqual(["p0", "p1", "p2", "p3"]);
    expect(calls.range).toBe(2);
  });

  it("rebuilds every past revision its ring holds exactly as the backend has it", async () => {
    const { backend, cached, calls } = setup("/r/");
    const a = await cached.create("/r/a", "a1");
    await cached.create("/r/b", "b1");
    await cached.update("/r/a", "a2", a.modRevision);
    await cached.delete("/r/a");
    await cached.create("/r/a", "a3"); // the same key, recreated
    await cached.update("/r/b", "b2", 0);
    await cached.delete("/r/b");
    await cached.create("/r/c", "c1");
    const last = await backend.currentRevision();
    for (let rev = 1; rev <= last; rev++) {
      expect(await cached.range("/r/", { revision: rev }), `range at ${rev}`).toEqual(await backend.range("/r/", { revision: rev }));
      expect(await cached.range("/r/", { revision: rev, limit: 1, startAfter: "/r/a" }), `page at ${rev}`).toEqual(
        await backend.range("/r/", { revision: rev, limit: 1, startAfter: "/r/a" }),
      );
      for (const key of ["/r/a", "/r/b", "/r/c"]) {
        expect(await cached.get(key, { revision: rev }), `${key} at ${rev}`).toEqual(await backend.get(key, { revision: rev }));
      }
    }
    expect(calls).toMatchObject({ get: 0, range: 0 });
  });

  it("a cache started after compaction watches from the revision it loaded", async () => {
    const backend = new MemoryStorage();
    for (let i = 0; i < 4; i++) await backend.create(`/k/${i}`, "v");
    await backend.compact(3);
    const cached = new CachedStorage(backend, { prefix: "/k/" });
    cleanups.push(() => cached.close());
    // The backend could replay revision 3; the cache loaded the state at 3 and has no event for it.
    const seen: number[] = [];
    const errors: Error[] = [];
    cached.watch("/k/", { afterRevision: 2 }, (ev) => seen.push(ev.revision), (err) => errors.push(err));
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ code: "Compacted", revision: 4 });
    const w = cached.watch("/k/", { afterRevision: 3 }, (ev) => seen.push(ev.revision));
    await backend.create("/k/new", "v");
    await expect.poll(() => seen).toEqual([4, 5]);
    w.stop();
  });
});
