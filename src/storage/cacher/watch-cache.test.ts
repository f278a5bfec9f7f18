import { afterEach, describe, expect, it } from "vitest";
import { MemoryStorage } from "../memory/memory-storage.js";
import type { KeyValue } from "../interface.js";
import { Cacher } from "./cacher.js";
import type { WatchSink } from "./cache-watcher.js";
import { CacheError, type WatchCacheObserver, type Delivery, type Predicate, type Selectable } from "./types.js";
import type { WatchCacheOptions } from "./watch-cache.js";

type Obj = { name: string; labels?: Record<string, string>; v?: number };
const decode = (kv: KeyValue) => {
  const object = JSON.parse(kv.value) as Obj;
  return { object, labels: object.labels, fieldsOf: (o: Obj) => ({ "metadata.name": o.name }) };
};
const prefix = "/registry/things/";
const spec = { prefix, namespaced: true, decode };
const all: Predicate = { prefix, namespace: "", name: "" };
const tick = () => new Promise((r) => setImmediate(r));

let storage: MemoryStorage;
let cacher: Cacher<Obj>;
afterEach(async () => {
  cacher?.stop();
  await storage?.close();
});

function setup(opts: Partial<WatchCacheOptions> = {}) {
  storage = new MemoryStorage();
  cacher = new Cacher<Obj>(storage, opts);
}

const put = (ns: string, name: string, extra: Partial<Obj> = {}) => storage.create(`${prefix}${ns}/${name}`, JSON.stringify({ name, ...extra }));

class Collect implements WatchSink<Obj> {
  events: { type: string; name?: string; rv: number; end?: boolean }[] = [];
  closedWith?: string;
  accept = true;
  send(d: Delivery<Obj>): boolean {
    this.events.push({ type: d.type, name: d.entry?.object.name, rv: d.revision, end: d.initialEventsEnd });
    return this.accept;
  }
  closed(reason: string) {
    this.closedWith = reason;
  }
}

describe("watch cache", () => {
  it("starts from the backend's history so older revisions can be resumed", async () => {
    setup();
    const a = await put("ns1", "a");
    await put("ns1", "b");
    const c = await cacher.get(spec);
    expect(c.objectCount).toBe(2);
    const sink = new Collect();
    c.watch(all, sink, { from: "revision", revision: a.modRevision }, false);
    expect(sink.events.map((e) => `${e.type} ${e.name}`)).toEqual(["ADDED b"]);
    await storage.update(`${prefix}ns1/a`, JSON.stringify({ name: "a", v: 2 }), 0);
    await tick();
    expect(sink.events.map((e) => `${e.type} ${e.name}`)).toEqual(["ADDED b", "MODIFIED a"]);
  });

  it("sends the state as synthetic ADDED, then the initial-events-end bookmark, then changes", async () => {
    setup();
    await put("ns1", "a");
    await put("ns2", "b");
    const c = await cacher.get(spec);
    const sink = new Collect();
    c.watch({ prefix: `${prefix}ns1/`, namespace: "ns1", name: "" }, sink, { from: "state", initialEventsEnd: true }, true);
    await put("ns1", "c");
    await put("ns2", "d");
    await tick();
    expect(sink.events.map((e) => `${e.type} ${e.name ?? ""}${e.end ? " end" : ""}`)).toEqual(["ADDED a", "BOOKMARK  end", "ADDED c"]);
  });

  it("turns selector transitions into ADDED / DELETED", async () => {
    setup();
    const c = await cacher.get(spec);
    const sink = new Collect();
    c.watch({ ...all, matches: (e) => e.labels?.tier === "web" }, sink, { from: "revision", revision: c.revision }, false);
    await put("ns", "x", { labels: { tier: "db" } });
    const kv = await storage.update(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "web" } }), 0);
    await storage.update(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "db" } }), 0);
    await tick();
    expect(sink.events.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect(sink.events[1]!.rv).toBe(kv.modRevision + 1);
  });

  it("answers too old once the history window has passed", async () => {
    setup({ windowMs: 40, bookmarkIntervalMs: 10 });
    const c = await cacher.get(spec);
    const first = await put("ns", "a");
    await put("ns", "b");
    await tick();
    expect(() => c.watch(all, new Collect(), { from: "revision", revision: first.modRevision - 1 }, false)).not.toThrow();
    await new Promise((r) => setTimeout(r, 120));
    let err: unknown;
    try {
      c.watch(all, new Collect(), { from: "revision", revision: first.modRevision - 1 }, false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CacheError);
    expect((err as CacheError).code).toBe("TooOld");
    expect((err as Error).message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it("ends a watcher whose consumer stops draining once its queue is full", async () => {
    setup({ maxQueuedPerWatcher: 5 });
    const c = await cacher.get(spec);
    const slow = new Collect();
    slow.accept = false;
    const fast = new Collect();
    c.watch(all, slow, { from: "revision", revision: c.revision }, false);
    c.watch(all, fast, { from: "revision", revision: c.revision }, false);
    for (let i = 0; i < 10; i++) await put("ns", `o${i}`);
    await tick();
    expect(slow.closedWith).toBe("slow");
    expect(slow.events).toHaveLength(1); // the one it took before saying "full"
    expect(fast.events).toHaveLength(10);
    expect(c.watcherCount).toBe(1);
  });

  it("tells its observer what it does: initialisation, capacity, events, revision, read waits, lists, init events, slow watchers", async () => {
    const told: string[] = [];
    let revision = 0;
    const observer: WatchCacheObserver = {
      initialized: () => told.push("initialized"),
      capacity: (n) => told.push(`capacity ${n}`),
      event: () => told.push("event"),
      resourceVersion: (rev) => (revision = rev),
      readWait: (seconds) => told.push(seconds >= 0 ? "readWait" : "negative wait"),
      consistentRead: (success, fallback) => told.push(`consistentRead ${success} ${fallback}`),
      listed: (fetched, returned) => told.push(`listed ${fetched}/${returned}`),
      initEvents: (n) => told.push(`initEvents ${n}`),
      terminatedWatcher: () => told.push("terminatedWatcher"),
    };
    setup({ maxEvents: 50, maxQueuedPerWatcher: 2, observe: (p) => (p === prefix ? observer : undefined) });
    await put("ns", "a");
    await put("ns", "b");
    const c = await cacher.get(spec);
    // Over a store never compacted the cache replays its history: both writes arrive as events.
    expect(told).toEqual(["event", "event", "capacity 50", "initialized"]);
    expect(revision).toBe(c.revision);
    told.length = 0;
    // A watch from the state: its two initial events, told once they are sent.
    const w = new Collect();
    c.watch(all, w, { from: "state", initialEventsEnd: false }, false);
    await put("ns", "c");
    await tick();
    expect(told).toEqual(["initEvents 2", "event"]);
    expect(revision).toBe(c.revision);
    told.length = 0;
    await c.syncToStorage();
    expect(c.list({ ...all, matches: (e) => e.labels !== undefined }).items).toEqual([]);
    expect(told).toEqual(["readWait", "listed 3/0"]);
    told.length = 0;
    // A watcher that stops draining is ended once its queue is full.
    const slow = new Collect();
    slow.accept = false;
    c.watch(all, slow, { from: "revision", revision: c.revision }, false);
    for (const n of ["d", "e", "f", "g"]) await put("ns", n);
    await tick();
    expect(slow.closedWith).toBe("slow");
    expect(told.filter((t) => t !== "event")).toEqual(["terminatedWatcher"]);
  });

  it("encodes each event once for 100 watchers", async () => {
    setup();
    const c = await cacher.get(spec);
    let encodes = 0;
    const bytes = new Set<Buffer>();
    const sinkFor = (): WatchSink<Obj> => ({
      send(d) {
        let b = d.memo.get("json") as Buffer | undefined;
        if (!b) {
          encodes++;
          b = Buffer.from(JSON.stringify({ type: d.type, object: d.entry?.object }));
          d.memo.set("json", b);
        }
        bytes.add(b);
        return true;
      },
      closed() {},
    });
    for (let i = 0; i < 100; i++) c.watch(all, sinkFor(), { from: "revision", revision: c.revision }, false);
    for (let i = 0; i < 20; i++) await put("ns", `o${i}`);
    await tick();
    expect(encodes).toBe(20);
    expect(bytes.size).toBe(20);
  });

  it("dispatches only to watchers whose namespace or name could match", async () => {
    setup();
    const c = await cacher.get(spec);
    const calls: string[] = [];
    const mk = (tag: string, p: Predicate) => {
      const pred = { ...p, matches: (e: Selectable) => (calls.push(tag), p.name ? e.fields["metadata.name"] === p.name : true) };
      c.watch(pred, new Collect(), { from: "revision", revision: c.revision }, false);
    };
    mk("ns1", { prefix: `${prefix}ns1/`, namespace: "ns1", name: "" });
    mk("ns2", { prefix: `${prefix}ns2/`, namespace: "ns2", name: "" });
    mk("name-b", { prefix, namespace: "", name: "b" });
    await put("ns1", "a");
    await tick();
    expect(calls).toEqual(["ns1"]);
  });

  it("lists pages from a snapshot while the state moves on", async () => {
    setup();
    for (let i = 0; i < 10; i++) await put("ns", `o${i}`);
    const c = await cacher.get(spec);
    await c.syncToStorage();
    const rev = c.snapshotForPaging();
    const p1 = c.list(all, { limit: 4 });
    expect(p1.items.map((e) => e.object.name)).toEqual(["o0", "o1", "o2", "o3"]);
    expect(p1.more).toBe(true);
    expect(p1.remaining).toBe(6);
    await put("ns", "o35");
    await tick();
    const snap = c.snapshotAt(rev)!;
    const p2 = c.list(all, { after: p1.lastKey, limit: 4, snapshot: snap, revision: rev });
    expect(p2.items.map((e) => e.object.name)).toEqual(["o4", "o5", "o6", "o7"]);
    const p3 = c.list(all, { after: p2.lastKey, limit: 4, snapshot: snap, revision: rev });
    expect(p3.items.map((e) => e.object.name)).toEqual(["o8", "o9"]);
    expect(p3.more).toBe(false);
    expect(c.list(all).items).toHaveLength(11);
  });

  it("waits for a future revision, then gives up with TooLarge", async () => {
    setup({ freshnessTimeoutMs: 100 });
    const c = await cacher.get(spec);
    const target = c.revision + 1;
    const waiting = c.waitUntilFresh(target);
    await storage.create("/registry/other/x", "{}"); // another prefix moves the global revision
    await waiting;
    expect(c.revision).toBeGreaterThanOrEqual(target);
    await expect(c.waitUntilFresh(c.revision + 5)).rejects.toMatchObject({ code: "TooLarge" });
  });

  it("sends bookmarks only to idle watchers that asked for them", async () => {
    setup();
    const c = await cacher.get(spec);
    const yes = new Collect();
    const no = new Collect();
    c.watch(all, yes, { from: "revision", revision: c.revision }, true);
    c.watch(all, no, { from: "revision", revision: c.revision }, false);
    await put("ns", "a");
    await tick();
    c.bookmarkNow();
    expect(yes.events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    expect(yes.events[1]!.rv).toBe(c.revision);
    expect(no.events.map((e) => e.type)).toEqual(["ADDED"]);
  });

  it("drop ends the prefix's watches and a later get starts a fresh cache", async () => {
    setup();
    await put("ns1", "a");
    const c = await cacher.get(spec);
    const sink = new Collect();
    c.watch(all, sink, { from: "state", initialEventsEnd: false }, false);
    cacher.drop(prefix);
    expect(sink.closedWith).toBe("stopped");
    expect(c.isStopped).toBe(true);
    expect(cacher.peek(prefix)).toBeUndefined();
    cacher.drop(prefix); // dropping what is not cached is a no-op
    const fresh = await cacher.get(spec);
    expect(fresh).not.toBe(c);
    expect(fresh.objectCount).toBe(1);
  });

  it("replays no history from before historyFrom (the server's start): a watch from before it is too old", async () => {
    storage = new MemoryStorage();
    const a = await put("ns1", "a");
    for (let v = 1; v <= 5; v++) await storage.update(`${prefix}ns1/a`, JSON.stringify({ name: "a", v }), 0);
    const start = await storage.currentRevision();
    let decoded = 0;
    cacher = new Cacher<Obj>(storage, { historyFrom: () => start });
    await put("ns1", "b");
    const c = await cacher.get({ ...spec, decode: (kv) => (decoded++, decode(kv)) });
    // The state at the start (a) and the history since (b): not the six versions of a.
    expect(decoded).toBe(2);
    expect(c.lookup(`${prefix}ns1/a`)!.object.v).toBe(5);
    expect(() => c.watch(all, new Collect(), { from: "revision", revision: a.modRevision }, false)).toThrow(CacheError);
    const sink = new Collect();
    c.watch(all, sink, { from: "revision", revision: start }, false);
    expect(sink.events.map((e) => `${e.type} ${e.name}`)).toEqual(["ADDED b"]);
  });

  it("fills a large type in pages at one revision, letting the event loop run between them", async () => {
    storage = new MemoryStorage();
    const n = 1300;
    await storage.transaction(Array.from({ length: n }, (_, i) => ({ kind: "create" as const, key: `${prefix}ns/o${String(i).padStart(4, "0")}`, value: JSON.stringify({ name: `o${i}` }) })));
    // A restarted server: what was stored before it started is read as state, not replayed.
    const start = await storage.currentRevision();
    cacher = new Cacher<Obj>(storage, { historyFrom: () => start });
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const ready = cacher.get(spec);
    // Written while the cache fills: not part of the state read, heard as an event after it.
    await tick();
    const late = await storage.update(`${prefix}ns/o0000`, JSON.stringify({ name: "o0", v: 2 }), 0);
    const c = await ready;
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(c.objectCount).toBe(n);
    expect(c.lookup(`${prefix}ns/o0000`)).toMatchObject({ modRevision: late.modRevision, object: { v: 2 } });
  });

  it("hands the decoder the object a value replaces, so a new version can share what did not change", async () => {
    setup();
    await put("ns", "a", { v: 1 });
    const seen: (Obj | undefined)[] = [];
    const c = await cacher.get({ ...spec, decode: (kv, prev) => (seen.push(prev), decode(kv)) });
    const first = c.lookup(`${prefix}ns/a`)!.object;
    await storage.update(`${prefix}ns/a`, JSON.stringify({ name: "a", v: 2 }), 0);
    await put("ns", "b");
    await tick();
    // The state read has nothing to replace; the update replaces the first version; b is new.
    expect(seen).toEqual([undefined, first, undefined]);
    expect(seen[1]).toBe(first);
    expect(c.lookup(`${prefix}ns/a`)!.object.v).toBe(2);
  });

  it("keeps an event's shared deliveries in the history only while they hold encoded bytes", async () => {
    setup();
    const c = await cacher.get(spec);
    const start = c.revision;
    class Keep implements WatchSink<Obj> {
      got: Delivery<Obj>[] = [];
      constructor(private readonly encodes: boolean) {}
      send(d: Delivery<Obj>): boolean {
        this.got.push(d);
        if (this.encodes && !d.memo.has("json")) d.memo.set("json", Buffer.from(d.entry!.object.name));
        return true;
      }
      closed() {}
    }
    // Sent to a watcher that keeps no bytes: a later sender makes its own delivery.
    const plain = new Keep(false);
    c.watch(all, plain, { from: "revision", revision: start }, false);
    await put("ns", "a");
    await tick();
    const resumedPlain = new Keep(false);
    c.watch(all, resumedPlain, { from: "revision", revision: start }, false);
    expect(resumedPlain.got.map((d) => d.entry!.object.name)).toEqual(["a"]);
    expect(resumedPlain.got[0]).not.toBe(plain.got[0]);
    // Sent to one that encodes: the delivery and its bytes stay for whoever resumes.
    const encoding = new Keep(true);
    c.watch(all, encoding, { from: "revision", revision: c.revision }, false);
    const before = c.revision;
    await put("ns", "b");
    await tick();
    const resumed = new Keep(true);
    c.watch(all, resumed, { from: "revision", revision: before }, false);
    expect(resumed.got.map((d) => d.entry!.object.name)).toEqual(["b"]);
    expect(resumed.got[0]).toBe(encoding.got[0]);
    expect(resumed.got[0]!.memo.get("json")).toBe(encoding.got[0]!.memo.get("json"));
  });

  it("makes an entry's field attributes only when a field selector reads them, once, and keeps them for its deletion", async () => {
    setup();
    const made: string[] = [];
    const counting = { prefix, namespaced: true, decode: (kv: KeyValue) => ({ ...decode(kv), fieldsOf: (o: Obj) => (made.push(o.name), { "metadata.name": o.name }) }) };
    await put("ns", "a", { labels: { tier: "web" } });
    await put("ns", "b");
    const c = await cacher.get(counting);
    const byLabel = { ...all, matches: (e: Selectable) => e.labels?.tier === "web" };
    const byName = { ...all, matches: (e: Selectable) => e.fields["metadata.name"] === "b" };
    expect(c.list(all).items).toHaveLength(2);
    expect(c.list(byLabel).items.map((e) => e.object.name)).toEqual(["a"]);
    expect(made).toEqual([]);
    expect(c.list(byName).items.map((e) => e.object.name)).toEqual(["b"]);
    expect(c.list(byName).items).toHaveLength(1);
    expect(made).toEqual(["a", "b"]);
    // A watch by name sees b's deletion: the deleted state is the entry's, with the attributes it had.
    const sink = new Collect();
    c.watch(byName, sink, { from: "revision", revision: c.revision }, false);
    await storage.delete(`${prefix}ns/b`);
    await tick();
    expect(sink.events.map((e) => `${e.type} ${e.name}`)).toEqual(["DELETED b"]);
    expect(made).toEqual(["a", "b"]);
  });
});

// Deliveries are shared: every watcher that sees an event the same way gets the same delivery
// (so the same byte memo, encoded once), and watchers that see it differently get their own.
class Keep implements WatchSink<Obj> {
  got: Delivery<Obj>[] = [];
  send(d: Delivery<Obj>): boolean {
    this.got.push(d);
    return true;
  }
  closed(): void {}
}

describe("cache watcher deliveries", () => {
  it("one delivery and memo per way an event is seen, shared by the watchers that see it so", async () => {
    setup();
    const c = await cacher.get(spec);
    const [a1, a2, w1, w2] = [new Keep(), new Keep(), new Keep(), new Keep()];
    const web: Predicate = { ...all, matches: (e) => e.labels?.tier === "web" };
    for (const [p, s] of [[all, a1], [all, a2], [web, w1], [web, w2]] as const) c.watch(p, s, { from: "revision", revision: c.revision }, false);
    await storage.create(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "web" } }));
    await storage.update(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "db" } }), 0);
    await tick();
    expect(a1.got.map((d) => d.type)).toEqual(["ADDED", "MODIFIED"]);
    expect(w1.got.map((d) => d.type)).toEqual(["ADDED", "DELETED"]);
    // The same view of an event: the very same delivery, so bytes memoised by one serve the other.
    expect(a2.got[1]).toBe(a1.got[1]);
    expect(w2.got[1]).toBe(w1.got[1]);
    a1.got[1]!.memo.set("k", "bytes");
    expect(a2.got[1]!.memo.get("k")).toBe("bytes");
    // Another view: its own delivery and memo; leaving the selector sends the previous object at this revision.
    expect(w1.got[1]).not.toBe(a1.got[1]);
    expect(w1.got[1]!.memo.get("k")).toBeUndefined();
    expect(w1.got[1]!.entry!.object.labels).toEqual({ tier: "web" });
    expect(w1.got[1]!.revision).toBe(a1.got[1]!.revision);
    // ADDED is seen the same way by both selectors.
    expect(w1.got[0]).toBe(a1.got[0]);
  });

  it("watchers of one scope without selectors share a predicate; each event is matched once per predicate, and each watcher sees it as its own predicate says", async () => {
    setup();
    const c = await cacher.get(spec);
    const scoped = (ns: string): Predicate => ({ prefix: `${prefix}${ns}/`, namespace: ns, name: "" });
    const [a, b, other] = [new Keep(), new Keep(), new Keep()];
    const wa = c.watch(scoped("ns"), a, { from: "revision", revision: c.revision }, false);
    const wb = c.watch(scoped("ns"), b, { from: "revision", revision: c.revision }, false);
    const wo = c.watch(scoped("other"), other, { from: "revision", revision: c.revision }, false);
    expect(wb.pred).toBe(wa.pred);
    expect(wo.pred).not.toBe(wa.pred);
    // Selectors are never shared, and watchers with different selectors, met in turn on one event,
    // each get their own answer (the event remembers only the last predicate it was matched with).
    const calls: string[] = [];
    const selecting = (tier: string) => ({ ...scoped("ns"), matches: (e: Selectable) => (calls.push(tier), e.labels?.tier === tier) });
    const [web, db, web2] = [new Keep(), new Keep(), new Keep()];
    const ww = c.watch(selecting("web"), web, { from: "revision", revision: c.revision }, false);
    c.watch(selecting("db"), db, { from: "revision", revision: c.revision }, false);
    const ww2 = c.watch(selecting("web"), web2, { from: "revision", revision: c.revision }, false);
    expect(ww2.pred).not.toBe(ww.pred);
    await storage.create(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "web" } }));
    await storage.update(`${prefix}ns/x`, JSON.stringify({ name: "x", labels: { tier: "db" } }), 0);
    await storage.create(`${prefix}other/y`, JSON.stringify({ name: "y" }));
    await tick();
    for (const k of [a, b]) expect(k.got.map((d) => `${d.type} ${d.entry!.object.name}`)).toEqual(["ADDED x", "MODIFIED x"]);
    expect(other.got.map((d) => `${d.type} ${d.entry!.object.name}`)).toEqual(["ADDED y"]);
    for (const k of [web, web2]) expect(k.got.map((d) => d.type)).toEqual(["ADDED", "DELETED"]);
    expect(db.got.map((d) => d.type)).toEqual(["ADDED"]);
    // ADDED: cur only (3 selectors); MODIFIED: cur and prev (3 selectors each).
    expect(calls.length).toBe(3 + 6);
  });
});
