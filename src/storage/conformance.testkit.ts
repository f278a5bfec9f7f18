// The one behavioural suite every Storage implementation must pass: each backend, and the watch
// cache over each backend (cacher/cached-storage.testkit.ts). Test files call
// runStorageConformance with a factory and the implementation's capabilities; where an
// implementation legitimately differs, the case asserts the behaviour its capabilities declare.
// Behaviour that only a persistent backend has (reopen) runs when the factory supplies `reopen`
// and is reported as skipped otherwise.
import { afterEach, describe, expect, it } from "vitest";
import { StorageError, type Storage, type StorageErrorCode, type WatchEvent } from "./interface.js";

export interface StorageHarness {
  storage: Storage;
  /**
   * Lets `ms` pass for keys written with a TTL: kapi's backends run their expiry sweep as at that
   * time from now; etcd, whose leases expire on its own clock, is waited for.
   */
  passTime(ms: number): Promise<void>;
  /** Close the store (if still open) and open the same data again. */
  reopen?: () => Promise<Storage>;
  cleanup: () => Promise<void>;
}

export interface HarnessOptions {
  historyWindowMs?: number;
  /** For an implementation with its own event window: the most events it keeps. */
  eventWindow?: number;
}

/** What an implementation under test declares about itself where implementations may differ. */
export interface StorageCapabilities {
  /**
   * It keeps its own bounded window of recent events (a watch cache's ring), sized by the
   * harness option `eventWindow`: a watch from before that window fails with Compacted naming the
   * oldest revision it can still replay, even while the backend under it holds the history.
   * Reads at such revisions are still answered. Without it, watches reach back to the
   * compacted revision, however many events came since.
   */
  ownEventWindow: boolean;
  /**
   * Writes issued concurrently may commit in another order than they were issued (etcd: each
   * write is its own request, applied as the server takes them). Without it, issue order is
   * commit order.
   */
  unorderedConcurrentWrites?: boolean;
  /**
   * The writes of one transaction share one revision, each still its own event (etcd: one
   * transaction is one revision), and a transaction writes each key at most once. Without it,
   * each write of a transaction has its own revision.
   */
  transactionSharesRevision?: boolean;
}

export type StorageFactory = (opts?: HarnessOptions) => Promise<StorageHarness>;

async function expectCode(p: Promise<unknown> | (() => unknown), code: StorageErrorCode): Promise<StorageError> {
  let err: unknown;
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected StorageError ${code}`).toBeInstanceOf(StorageError);
  expect((err as StorageError).code).toBe(code);
  return err as StorageError;
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000, errors?: readonly Error[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) {
      const ended = errors?.length ? ` (the watch ended: ${errors.map((e) => e.message).join("; ")})` : "";
      throw new Error(`timed out waiting for ${what}${ended}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Let queued deliveries run, so "nothing more arrived" assertions mean something. */
const settle = () => new Promise((r) => setTimeout(r, 30));

function collect(storage: Storage, prefix: string, afterRevision: number) {
  const events: WatchEvent[] = [];
  const errors: Error[] = [];
  const watcher = storage.watch(prefix, { afterRevision }, (ev) => events.push(ev), (err) => errors.push(err));
  return { events, errors, watcher };
}

export function runStorageConformance(name: string, factory: StorageFactory, capabilities: StorageCapabilities): void {
  describe(`Storage conformance: ${name}`, () => {
    let h: StorageHarness;
    let s: Storage;
    const harnesses: StorageHarness[] = [];
    const open = async (opts?: HarnessOptions) => {
      h = await factory(opts);
      harnesses.push(h);
      s = h.storage;
      return s;
    };
    afterEach(async () => {
      for (const x of harnesses.splice(0)) await x.cleanup();
    });

    it("create is create-if-absent and assigns create and mod revision", async () => {
      await open();
      const kv = await s.create("/registry/pods/ns/a", "v1");
      expect(kv).toEqual({ key: "/registry/pods/ns/a", value: "v1", createRevision: 1, modRevision: 1 });
      await expectCode(s.create("/registry/pods/ns/a", "v2"), "KeyExists");
      expect((await s.get("/registry/pods/ns/a"))?.value).toBe("v1");
      // A failed write consumes no revision.
      expect(await s.currentRevision()).toBe(1);
      expect((await s.create("/registry/pods/ns/b", "v")).modRevision).toBe(2);
    });

    it("get returns the current value or undefined", async () => {
      await open();
      expect(await s.get("/k")).toBeUndefined();
      await s.create("/k", "x");
      expect(await s.get("/k")).toEqual({ key: "/k", value: "x", createRevision: 1, modRevision: 1 });
      expect(await s.get("/k/")).toBeUndefined();
    });

    it("update is compare-and-swap on modRevision", async () => {
      await open();
      const a = await s.create("/k", "v1");
      const b = await s.update("/k", "v2", a.modRevision);
      expect(b).toEqual({ key: "/k", value: "v2", createRevision: a.createRevision, modRevision: a.modRevision + 1 });
      const conflict = await expectCode(s.update("/k", "v3", a.modRevision), "Conflict");
      expect(conflict.current).toEqual(b);
      expect((await s.get("/k"))?.value).toBe("v2");
      const c = await s.update("/k", "v4", 0); // 0 = unconditional
      expect(c.value).toBe("v4");
      expect(c.modRevision).toBe(b.modRevision + 1);
      await expectCode(s.update("/missing", "v", 0), "KeyNotFound");
      await expectCode(s.update("/missing", "v", 7), "KeyNotFound");
    });

    it("concurrent updates with the same precondition: exactly one wins", async () => {
      await open();
      const a = await s.create("/k", "v0");
      const results = await Promise.allSettled([1, 2, 3].map((i) => s.update("/k", `v${i}`, a.modRevision)));
      const ok = results.filter((r) => r.status === "fulfilled");
      expect(ok).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") expect((r.reason as StorageError).code).toBe("Conflict");
      }
      expect(await s.currentRevision()).toBe(a.modRevision + 1);
    });

    it("delete without precondition returns the deleted value at the delete revision", async () => {
      await open();
      const a = await s.create("/k", "v1");
      const d = await s.delete("/k");
      expect(d).toEqual({ key: "/k", value: "v1", createRevision: a.createRevision, modRevision: a.modRevision + 1 });
      expect(await s.get("/k")).toBeUndefined();
      expect(await s.currentRevision()).toBe(d.modRevision);
      await expectCode(s.delete("/k"), "KeyNotFound");
      // The key can be created again, as a new object.
      const again = await s.create("/k", "v2");
      expect(again.createRevision).toBe(d.modRevision + 1);
    });

    it("delete with a precondition", async () => {
      await open();
      const a = await s.create("/k", "v1");
      const b = await s.update("/k", "v2", a.modRevision);
      const err = await expectCode(s.delete("/k", a.modRevision), "Conflict");
      expect(err.current).toEqual(b);
      expect(await s.get("/k")).toEqual(b);
      const d = await s.delete("/k", b.modRevision);
      expect(d.value).toBe("v2");
      await expectCode(s.delete("/k", b.modRevision), "KeyNotFound");
    });

    it("range returns exactly the keys under the prefix, sorted by key", async () => {
      await open();
      for (const k of [
        "/registry/pods/ns/b",
        "/registry/podsx/ns/a",
        "/registry/pods/ns/a",
        "/registry/pods",
        "/registry/pod/ns/a",
        "/registry/pods/other/z",
        "/registry/pods0",
      ]) {
        await s.create(k, k);
      }
      const r = await s.range("/registry/pods/");
      expect(r.items.map((i) => i.key)).toEqual([
        "/registry/pods/ns/a",
        "/registry/pods/ns/b",
        "/registry/pods/other/z",
      ]);
      expect(r.items[0]!.value).toBe("/registry/pods/ns/a");
      expect(r).toMatchObject({ revision: 7, more: false, remaining: 0 });
      expect((await s.range("/registry/pods/ns/")).items).toHaveLength(2);
      expect((await s.range("/nothing/")).items).toEqual([]);
      expect((await s.range("")).items).toHaveLength(7);
    });

    it("range sorts in byte order, beyond ASCII too", async () => {
      await open();
      const keys = ["/p/\u{1F600}", "/p/\uFFFD", "/p/z", "/p/\u00e9", "/p/A"];
      for (const k of keys) await s.create(k, "v");
      // UTF-8 byte order == code point order: A < z < é < U+FFFD < U+1F600.
      expect((await s.range("/p/")).items.map((i) => i.key)).toEqual([
        "/p/A",
        "/p/z",
        "/p/\u00e9",
        "/p/\uFFFD",
        "/p/\u{1F600}",
      ]);
      expect((await s.range("/p/\uFFFD")).items.map((i) => i.key)).toEqual(["/p/\uFFFD"]);
    });

    it("range pages with startAfter and limit, reporting more and remaining", async () => {
      await open();
      for (const n of ["a", "b", "c", "d", "e"]) await s.create(`/r/${n}`, n);
      await s.create("/s/a", "outside");
      const p1 = await s.range("/r/", { limit: 2 });
      expect(p1.items.map((i) => i.value)).toEqual(["a", "b"]);
      expect(p1).toMatchObject({ more: true, remaining: 3 });
      const p2 = await s.range("/r/", { limit: 2, startAfter: "/r/b" });
      expect(p2.items.map((i) => i.value)).toEqual(["c", "d"]);
      expect(p2).toMatchObject({ more: true, remaining: 1 });
      const p3 = await s.range("/r/", { limit: 2, startAfter: "/r/d" });
      expect(p3.items.map((i) => i.value)).toEqual(["e"]);
      expect(p3).toMatchObject({ more: false, remaining: 0 });
      const exact = await s.range("/r/", { limit: 5 });
      expect(exact).toMatchObject({ more: false, remaining: 0 });
      expect(exact.items).toHaveLength(5);
      // startAfter before the prefix does not widen the range.
      expect((await s.range("/r/", { startAfter: "/a" })).items).toHaveLength(5);
      expect((await s.range("/r/", { startAfter: "/r/bb" })).items.map((i) => i.value)).toEqual(["c", "d", "e"]);
    });

    it("range without countRemaining pages the same items and says when there are more", async () => {
      await open();
      for (const n of ["a", "b", "c"]) await s.create(`/r/${n}`, n);
      const p1 = await s.range("/r/", { limit: 2, countRemaining: false });
      expect(p1.items.map((i) => i.value)).toEqual(["a", "b"]);
      expect(p1.more).toBe(true);
      const p2 = await s.range("/r/", { limit: 2, startAfter: "/r/b", countRemaining: false });
      expect(p2.items.map((i) => i.value)).toEqual(["c"]);
      expect(p2).toMatchObject({ more: false, remaining: 0 });
    });

    it("get and range at an older revision inside the window", async () => {
      await open();
      const a1 = await s.create("/r/a", "a1"); // 1
      const a2 = await s.update("/r/a", "a2", a1.modRevision); // 2
      await s.create("/r/b", "b1"); // 3
      await s.delete("/r/a"); // 4
      await s.create("/r/c", "c1"); // 5
      expect(await s.get("/r/a", { revision: 1 })).toEqual(a1);
      expect(await s.get("/r/a", { revision: 2 })).toEqual(a2);
      expect(await s.get("/r/a", { revision: 3 })).toEqual(a2);
      expect(await s.get("/r/a", { revision: 4 })).toBeUndefined();
      expect(await s.get("/r/b", { revision: 2 })).toBeUndefined();
      const r3 = await s.range("/r/", { revision: 3 });
      expect(r3.revision).toBe(3);
      expect(r3.items.map((i) => `${i.key}=${i.value}@${i.modRevision}`)).toEqual(["/r/a=a2@2", "/r/b=b1@3"]);
      const r4 = await s.range("/r/", { revision: 4, limit: 1 });
      expect(r4.items.map((i) => i.key)).toEqual(["/r/b"]);
      expect(r4).toMatchObject({ more: false, remaining: 0 });
      const r5 = await s.range("/r/", { revision: 5, limit: 1 });
      expect(r5).toMatchObject({ more: true, remaining: 1 });
      const r2 = await s.range("/r/", { revision: 2, startAfter: "/r/a" });
      expect(r2.items).toEqual([]);
      const cur = await s.range("/r/");
      expect(cur.revision).toBe(5);
      expect(cur.items.map((i) => i.key)).toEqual(["/r/b", "/r/c"]);
    });

    it("reads newer than the current revision fail with FutureRevision", async () => {
      await open();
      await s.create("/k", "v");
      await expectCode(s.get("/k", { revision: 2 }), "FutureRevision");
      await expectCode(s.range("/", { revision: 9 }), "FutureRevision");
      await expectCode(s.compact(5), "FutureRevision");
      expect((await s.get("/k", { revision: 1 }))?.value).toBe("v");
    });

    it("compact drops older history but keeps current values", async () => {
      await open();
      const a1 = await s.create("/r/a", "a1"); // 1
      await s.update("/r/a", "a2", a1.modRevision); // 2
      await s.create("/r/b", "b1"); // 3
      await s.create("/r/gone", "g"); // 4
      await s.delete("/r/gone"); // 5
      const a3 = await s.update("/r/a", "a3", 2); // 6
      await s.compact(5);
      expect(s.compactedRevision()).toBe(5);
      const err = await expectCode(s.get("/r/a", { revision: 4 }), "Compacted");
      expect(err.revision).toBe(5);
      await expectCode(s.range("/r/", { revision: 1 }), "Compacted");
      // The compacted revision itself is still readable, and so is everything after it.
      expect((await s.get("/r/a", { revision: 5 }))?.value).toBe("a2");
      expect(await s.get("/r/gone", { revision: 5 })).toBeUndefined();
      expect((await s.range("/r/", { revision: 5 })).items.map((i) => i.value)).toEqual(["a2", "b1"]);
      expect((await s.range("/r/")).items.map((i) => i.value)).toEqual(["a3", "b1"]);
      expect(await s.get("/r/a")).toEqual(a3);
      expect(await s.count("/r/")).toBe(2);
      // Compacting to an older revision is a no-op; compacting further works.
      await s.compact(3);
      expect(s.compactedRevision()).toBe(5);
      await s.compact(6);
      await expectCode(s.get("/r/a", { revision: 5 }), "Compacted");
      expect((await s.range("/r/", { revision: 6 })).items.map((i) => i.value)).toEqual(["a3", "b1"]);
      expect((await s.create("/r/new", "n")).modRevision).toBe(7);
    });

    it("history older than the window is compacted periodically", async () => {
      await open({ historyWindowMs: 40 });
      const a = await s.create("/r/a", "a1"); // 1
      await s.update("/r/a", "a2", a.modRevision); // 2
      await new Promise((r) => setTimeout(r, 150));
      await s.create("/r/b", "b1"); // 3
      await waitFor(() => s.compactedRevision() >= 2, "periodic compaction");
      await expectCode(s.get("/r/a", { revision: 1 }), "Compacted");
      expect((await s.get("/r/a"))?.value).toBe("a2");
      expect((await s.get("/r/b"))?.value).toBe("b1");
    });

    it("watch rejects revisions older than the compacted revision synchronously", async () => {
      await open();
      for (let i = 0; i < 5; i++) await s.create(`/w/${i}`, "v");
      // A current read first: a cache still loading when history is compacted away starts past
      // the compaction and rightly cannot replay revision 4 (upstream's cacher answers 410 too).
      expect(await s.count("/w/")).toBe(5);
      await s.compact(4);
      await expectCode(() => s.watch("/w/", { afterRevision: 2 }, () => {}), "Compacted");
      const err = await expectCode(() => s.watch("/w/", { afterRevision: 0 }, () => {}), "Compacted");
      expect(err.revision).toBe(4);
      // Events from the compacted revision on are still there.
      const w = collect(s, "/w/", 3);
      await waitFor(() => w.events.length === 2, "replay", 5000, w.errors);
      expect(w.events.map((e) => e.revision)).toEqual([4, 5]);
      w.watcher.stop();
    });

    it(`a watch reaches back ${capabilities.ownEventWindow ? "only as far as the implementation's own event window" : "to the compacted revision"}`, async () => {
      await open({ eventWindow: 3 });
      for (let i = 1; i <= 10; i++) await s.create(`/e/${i}`, `v${i}`);
      // A current read: every write above has reached whatever answers reads.
      expect(await s.count("/e/")).toBe(10);
      if (capabilities.ownEventWindow) {
        // Events 8, 9 and 10 are kept: a watch can start after 7 at the earliest.
        const err = await expectCode(() => s.watch("/e/", { afterRevision: 6 }, () => {}), "Compacted");
        expect(err.revision).toBe(8);
        const w = collect(s, "/e/", 7);
        await waitFor(() => w.events.length === 3, "replay of the window");
        expect(w.events.map((e) => e.revision)).toEqual([8, 9, 10]);
        w.watcher.stop();
      } else {
        const w = collect(s, "/e/", 0);
        await waitFor(() => w.events.length === 10, "replay of all history");
        expect(w.events.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        w.watcher.stop();
      }
      // Reads at those older revisions are answered either way.
      expect((await s.get("/e/1", { revision: 2 }))?.value).toBe("v1");
      expect((await s.range("/e/", { revision: 2 })).items.map((i) => i.value)).toEqual(["v1", "v2"]);
    });

    it("watch replays exactly the missed events then live ones, with concurrent writes", async () => {
      await open();
      const watchers: { after: number; w: ReturnType<typeof collect> }[] = [];
      // Writers race with watch registrations: some writes are committed, some queued, some
      // not yet issued when each watcher starts.
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i++) {
        writes.push(s.create(`/w/k${i}`, `v${i}`));
        writes.push(s.create(`/x/k${i}`, `x${i}`));
        if (i % 3 === 0) writes.push(s.update(`/w/k${i}`, `u${i}`, 0).catch(() => undefined));
        if (i % 10 === 5) {
          const after = await s.currentRevision();
          watchers.push({ after, w: collect(s, "/w/", after) });
        }
        if (i % 7 === 0) await Promise.resolve(); // let some writes commit between issues
        if (i % 11 === 0) await new Promise((r) => setImmediate(r));
      }
      await Promise.all(writes);
      for (let i = 0; i < 60; i += 4) await s.delete(`/w/k${i}`);
      const last = await s.currentRevision();
      const all = collect(s, "/", 0);
      await waitFor(() => all.events.at(-1)?.revision === last, "full replay");
      for (const { after, w } of watchers) {
        const expected = all.events
          .filter((e) => e.revision > after && e.kv.key.startsWith("/w/"))
          .map((e) => e.revision);
        await waitFor(() => w.events.length >= expected.length, `watcher after ${after}`);
        await settle();
        expect(w.events.map((e) => e.revision)).toEqual(expected);
        expect(w.errors).toEqual([]);
        w.watcher.stop();
      }
      // The global stream is gap-free: every revision 1..last exactly once.
      expect(all.events.map((e) => e.revision)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      all.watcher.stop();
    });

    it("watch filters by prefix and stops on stop()", async () => {
      await open();
      const w = collect(s, "/registry/pods/", 0);
      await s.create("/registry/pods/ns/a", "a");
      await s.create("/registry/podsx/ns/a", "x");
      await s.create("/registry/pods", "bare");
      await s.create("/registry/pods/ns/b", "b");
      await waitFor(() => w.events.length === 2, "two events");
      await settle();
      expect(w.events.map((e) => e.kv.key)).toEqual(["/registry/pods/ns/a", "/registry/pods/ns/b"]);
      expect(w.events.map((e) => e.revision)).toEqual([1, 4]);
      // A second watcher seeing `c` shows it was delivered: the stopped one must not have it.
      const control = collect(s, "/registry/pods/", 4);
      w.watcher.stop();
      await s.create("/registry/pods/ns/c", "c");
      await waitFor(() => control.events.length === 1, "control watcher sees c");
      await settle();
      expect(w.events).toHaveLength(2);
      control.watcher.stop();
    });

    it("watch events carry values: put with prevKv, delete with the previous value", async () => {
      await open();
      const w = collect(s, "/k", 0);
      const a = await s.create("/k", "v1");
      const b = await s.update("/k", "v2", a.modRevision);
      const d = await s.delete("/k", b.modRevision);
      await waitFor(() => w.events.length === 3, "three events");
      const [c, u, del] = w.events;
      expect(c).toEqual({ type: "put", kv: a, revision: 1 });
      expect(u).toEqual({ type: "put", kv: b, prevKv: a, revision: 2 });
      expect(del).toEqual({ type: "delete", kv: d, prevKv: b, revision: 3 });
      expect(del!.kv.value).toBe("v2");
      // The same events come back from replay.
      const r = collect(s, "/k", 0);
      await waitFor(() => r.events.length === 3, "replay");
      expect(r.events).toEqual(w.events);
      w.watcher.stop();
      r.watcher.stop();
    });

    it("a watch from a future revision delivers only later events", async () => {
      await open();
      await s.create("/k/1", "v");
      const w = collect(s, "/k/", 2);
      await s.create("/k/2", "v"); // 2: not after 2
      await s.create("/k/3", "v"); // 3
      await waitFor(() => w.events.length === 1, "one event");
      await settle();
      expect(w.events.map((e) => e.revision)).toEqual([3]);
      w.watcher.stop();
    });

    it("revisions are global and strictly increasing across keys", async () => {
      await open();
      const kvs = await Promise.all(Array.from({ length: 50 }, (_, i) => s.create(`/k/${i % 5}/${i}`, "v")));
      const revs = kvs.map((k) => k.modRevision);
      expect(new Set(revs).size).toBe(50);
      expect([...revs].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      // Issue order is commit order.
      if (!capabilities.unorderedConcurrentWrites) expect(revs).toEqual([...revs].sort((x, y) => x - y));
      expect(await s.currentRevision()).toBe(50);
      let prev = 50;
      for (let i = 0; i < 5; i++) {
        const kv = await s.update(`/k/${i}/${i}`, "w", 0);
        expect(kv.modRevision).toBe(prev + 1);
        prev = kv.modRevision;
      }
    });

    it(`a transaction writes all or nothing, ${capabilities.transactionSharesRevision ? "one revision for all its writes" : "one revision per write"}, one ordinary event per write`, async () => {
      await open();
      const a = await s.create("/t/a", "a1");
      const b = await s.create("/t/b", "b1");
      const w = collect(s, "/t/", 2);
      const shared = capabilities.transactionSharesRevision;
      const done = await s.transaction([
        { kind: "delete", key: "/t/a", expectedModRevision: a.modRevision },
        { kind: "update", key: "/t/b", value: "b2", expectedModRevision: b.modRevision },
        { kind: "create", key: "/t/c", value: "c1" },
        // One key twice in a transaction only where each write has its own revision.
        ...(shared ? [] : [{ kind: "update" as const, key: "/t/c", value: "c2", expectedModRevision: 5 }]),
      ]);
      const revs = shared ? [3, 3, 3] : [3, 4, 5, 6];
      expect(done.map((kv) => kv.modRevision)).toEqual(revs);
      expect(done.at(-1)).toEqual(shared ? { key: "/t/c", value: "c1", createRevision: 3, modRevision: 3 } : { key: "/t/c", value: "c2", createRevision: 5, modRevision: 6 });
      await waitFor(() => w.events.length === revs.length, "an event per write");
      expect(w.events.map((e) => [e.type, e.kv.key, e.revision])).toEqual(
        [["delete", "/t/a"], ["put", "/t/b"], ["put", "/t/c"], ["put", "/t/c"]].slice(0, revs.length).map((x, i) => [...x, revs[i]]),
      );
      expect(w.events[1]!.prevKv).toEqual(b);
      const last = revs.at(-1)!;
      // A failed check anywhere leaves everything as it was, and consumes no revision.
      await expectCode(
        s.transaction([
          { kind: "create", key: "/t/d", value: "d" },
          { kind: "update", key: "/t/b", value: "b3", expectedModRevision: b.modRevision },
        ]),
        "Conflict",
      );
      await expectCode(s.transaction([{ kind: "delete", key: "/t/x", expectedModRevision: 0 }]), "KeyNotFound");
      await expectCode(s.transaction([{ kind: "create", key: "/t/b", value: "again" }]), "KeyExists");
      expect(await s.currentRevision()).toBe(last);
      expect(await s.get("/t/d")).toBeUndefined();
      expect((await s.get("/t/b"))?.value).toBe("b2");
      expect(await s.transaction([])).toEqual([]);
      await settle();
      expect(w.events).toHaveLength(revs.length);
      w.watcher.stop();
    });

    it("count counts live keys under the prefix", async () => {
      await open();
      expect(await s.count("/c/")).toBe(0);
      for (let i = 0; i < 7; i++) await s.create(`/c/${i}`, "v");
      await s.create("/cx/1", "v");
      await s.delete("/c/3");
      expect(await s.count("/c/")).toBe(6);
      expect(await s.count("/")).toBe(7);
      expect(await s.count("")).toBe(7);
    });

    it("close finishes pending writes, ends watchers, then refuses everything", async () => {
      await open();
      const w = collect(s, "/", 0);
      const pending = [s.create("/a", "1"), s.create("/b", "2")];
      await s.close();
      const done = await Promise.all(pending);
      const doneRevs = done.map((kv) => kv.modRevision);
      expect(capabilities.unorderedConcurrentWrites ? doneRevs.sort((x, y) => x - y) : doneRevs).toEqual([1, 2]);
      await waitFor(() => w.errors.length === 1, "watcher closed");
      expect(w.events.map((e) => e.revision)).toEqual([1, 2]);
      expect((w.errors[0] as StorageError).code).toBe("Closed");
      await expectCode(s.create("/c", "3"), "Closed");
      await expectCode(s.update("/a", "3", 0), "Closed");
      await expectCode(s.delete("/a"), "Closed");
      await expectCode(s.get("/a"), "Closed");
      await expectCode(s.range("/"), "Closed");
      await expectCode(s.count("/"), "Closed");
      await expectCode(s.currentRevision(), "Closed");
      await expectCode(s.compact(1), "Closed");
      await expectCode(() => s.watch("/", { afterRevision: 0 }, () => {}), "Closed");
      await s.close(); // idempotent
    });

    describe("persistence", () => {
      it("reopen keeps data, history and the revision counter", async (ctx) => {
        await open();
        if (!h.reopen) return ctx.skip();
        const a = await s.create("/r/a", "a1"); // 1
        await s.update("/r/a", "a2", a.modRevision); // 2
        await s.create("/r/b", "b"); // 3
        await s.compact(2);
        await s.create("/r/z", "z"); // 4
        await s.delete("/r/z"); // 5: the newest revision belongs to a deletion
        s = await h.reopen();
        expect(await s.currentRevision()).toBe(5);
        expect(s.compactedRevision()).toBe(2);
        expect((await s.range("/r/")).items.map((i) => i.value)).toEqual(["a2", "b"]);
        expect((await s.get("/r/z", { revision: 4 }))?.value).toBe("z");
        await expectCode(s.get("/r/a", { revision: 1 }), "Compacted");
        const w = collect(s, "/r/", 2);
        await waitFor(() => w.events.length === 3, "replay after reopen");
        expect(w.events.map((e) => `${e.type}@${e.revision}`)).toEqual(["put@3", "put@4", "delete@5"]);
        expect((await s.create("/r/c", "c")).modRevision).toBe(6);
        await waitFor(() => w.events.length === 4, "live after reopen");
        w.watcher.stop();
      });

      it("a revision is never reused after the newest write was a deletion and history was compacted", async (ctx) => {
        await open();
        if (!h.reopen) return ctx.skip();
        await s.create("/k", "v"); // 1
        await s.delete("/k"); // 2
        await s.compact(2);
        s = await h.reopen();
        expect(await s.currentRevision()).toBe(2);
        expect((await s.create("/k", "again")).createRevision).toBe(3);
      });
    });
  });
}
