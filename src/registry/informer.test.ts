import { afterEach, describe, expect, it } from "vitest";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import type { KeyValue } from "../storage/interface.js";
import { Cacher } from "../storage/cacher/cacher.js";
import type { Delivery } from "../storage/cacher/types.js";
import { Informer, type InformerHandler } from "./informer.js";

type Obj = { name: string; v: number };
const prefix = "/registry/things/";
const decode = (kv: KeyValue) => {
  const object = JSON.parse(kv.value) as Obj;
  return { object, labels: undefined, fieldsOf: (o: Obj) => ({ "metadata.name": o.name }) };
};
const spec = { prefix, namespaced: true, decode };
const key = (ns: string, name: string) => `${prefix}${ns}/${name}`;

let storage: MemoryStorage;
let cacher: Cacher<Obj>;
let informers: Informer<Obj>[] = [];
afterEach(async () => {
  for (const i of informers) i.stop();
  informers = [];
  cacher?.stop();
  await storage?.close();
});

function setup() {
  storage = new MemoryStorage();
  cacher = new Cacher<Obj>(storage);
}

const put = (ns: string, name: string, v = 1) => storage.create(key(ns, name), JSON.stringify({ name, v }));
const set = (ns: string, name: string, v: number) => storage.update(key(ns, name), JSON.stringify({ name, v }), 0);

function informer(opts: { exists?: () => boolean; errors?: unknown[]; partial?: boolean } = {}): Informer<Obj> {
  const i = new Informer<Obj>({
    prefix,
    namespaced: true,
    cache: () => cacher.get(opts.partial ? { ...spec, partial: true } : spec),
    exists: opts.exists ?? (() => true),
    onHandlerError: (e) => opts.errors?.push(e),
  });
  informers.push(i);
  return i;
}

/** Records every call as "verb name@v" (update: "update name@old->new"). */
function recorder(): InformerHandler<Obj> & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    added: (o) => log.push(`add ${o.name}@${o.v}`),
    updated: (a, b) => log.push(`update ${b.name}@${a.v}->${b.v}`),
    deleted: (o) => log.push(`delete ${o.name}@${o.v}`),
  };
}

async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("informer", () => {
  it("syncs the initial state, then reports adds, updates (old and new) and deletes", async () => {
    setup();
    await put("a", "one");
    await put("b", "two");
    const inf = informer();
    const h = recorder();
    inf.addHandler(h);
    expect(inf.hasSynced()).toBe(false);
    inf.start();
    await inf.synced;
    expect(inf.hasSynced()).toBe(true);
    // synced means the handler has already had the initial list
    expect([...h.log].sort()).toEqual(["add one@1", "add two@1"]);
    expect(inf.get("a", "one")).toEqual({ name: "one", v: 1 });
    expect(inf.get("b", "one")).toBeUndefined();
    expect(inf.list("b").map((o) => o.name)).toEqual(["two"]);
    expect(inf.list().map((o) => o.name).sort()).toEqual(["one", "two"]);

    await put("a", "three");
    await set("a", "one", 2);
    await storage.delete(key("b", "two"));
    await until(() => h.log.length === 5, "three changes");
    expect(h.log.slice(2)).toEqual(["add three@1", "update one@1->2", "delete two@1"]);
    expect(inf.get("a", "one")?.v).toBe(2);
    expect(inf.get("b", "two")).toBeUndefined();
    expect(inf.size).toBe(2);
  });

  it("hands out the cache's own entries, not copies", async () => {
    setup();
    await put("a", "one");
    const inf = informer().start();
    await inf.synced;
    const cache = await cacher.get(spec);
    const fromCache = cache.list({ prefix, namespace: "", name: "" }).items[0]!.object;
    expect(inf.get("a", "one")).toBe(fromCache);
  });

  it("keeps calling the other handlers, and later changes, when one handler throws", async () => {
    setup();
    const errors: unknown[] = [];
    const inf = informer({ errors }).start();
    await inf.synced;
    let thrown = 0;
    inf.addHandler({
      added: () => {
        thrown++;
        throw new Error("handler bug");
      },
    });
    const h = recorder();
    inf.addHandler(h);
    await put("a", "x");
    await put("a", "y");
    await until(() => h.log.length === 2, "both adds");
    expect(h.log).toEqual(["add x@1", "add y@1"]);
    expect(thrown).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["handler bug", "handler bug"]);
  });

  it("calls handlers after the cache's fan-out, with the view already updated", async () => {
    setup();
    const inf = informer().start();
    await inf.synced;
    const h = recorder();
    inf.addHandler(h);
    const cache = await cacher.get(spec);
    // A watcher registered after the informer's: the fan-out reaches it after the informer.
    const seenByWatcher: string[] = [];
    cache.watch({ prefix, namespace: "", name: "" }, {
      send: (d: Delivery<Obj>) => {
        seenByWatcher.push(`${d.entry!.object.name} view=${inf.get("a", d.entry!.object.name) ? "has" : "lacks"} handler-calls=${h.log.length}`);
        return true;
      },
      closed: () => undefined,
    }, { from: "revision", revision: cache.revision }, false);
    await put("a", "x");
    await until(() => h.log.length === 1, "the handler call");
    expect(seenByWatcher).toEqual(["x view=has handler-calls=0"]);
  });

  it("gives a handler added late the current objects once, then changes", async () => {
    setup();
    await put("a", "one");
    const inf = informer().start();
    const early = recorder();
    inf.addHandler(early);
    await inf.synced;
    const late = recorder();
    inf.addHandler(late);
    await put("a", "two");
    await until(() => late.log.length >= 2 && early.log.length >= 2, "both handlers");
    await inf.whenHandlersIdle(); // a duplicate call would be queued by now: the queues are empty
    expect(early.log).toEqual(["add one@1", "add two@1"]);
    expect(late.log).toEqual(["add one@1", "add two@1"]);
  });

  it("stops: no handler calls after stop(), while a running informer still hears the same change", async () => {
    setup();
    const stopped = informer().start();
    const running = informer().start();
    await Promise.all([stopped.synced, running.synced]);
    const hs = recorder();
    const hr = recorder();
    stopped.addHandler(hs);
    running.addHandler(hr);
    stopped.stop();
    expect(stopped.isStopped).toBe(true);
    await put("a", "sentinel");
    await until(() => hr.log.length === 1, "the sentinel on the running informer");
    expect(hr.log).toEqual(["add sentinel@1"]);
    expect(hs.log).toEqual([]);
    expect((await cacher.get(spec)).watcherCount).toBe(1); // the stopped one left the cache
  });

  it("resolves synced when stopped before syncing", async () => {
    setup();
    const inf = informer({ exists: () => true });
    inf.stop();
    await inf.synced;
    expect(inf.hasSynced()).toBe(false);
  });

  it("relists a fresh cache when its cache stops and the type still exists, reporting what changed meanwhile", async () => {
    setup();
    await put("a", "kept");
    await put("a", "changed");
    await put("a", "removed");
    const inf = informer().start();
    const h = recorder();
    inf.addHandler(h);
    await inf.synced;
    const first = cacher.peek(prefix)!;
    first.stop(); // as Cacher.drop(prefix) or a broken storage feed does
    await set("a", "changed", 2);
    await storage.delete(key("a", "removed"));
    await put("a", "added");
    await until(() => h.log.length === 6, "the relist's differences");
    expect(h.log.slice(3).sort()).toEqual(["add added@1", "delete removed@1", "update changed@1->2"]);
    const second = cacher.peek(prefix)!;
    expect(second).not.toBe(first);
    expect(second.watcherCount).toBe(1);
    // and it watches the new cache
    await put("a", "after");
    await until(() => h.log.length === 7, "a change after the relist");
    expect(h.log[6]).toBe("add after@1");
    expect(inf.isStopped).toBe(false);
  });

  it.each([false, true])("resumes from its last revision when the fresh cache still holds the events: an object made and removed in the gap is reported (partial cache: %s)", async (partial) => {
    setup();
    await put("a", "kept");
    const inf = informer({ partial }).start();
    const h = recorder();
    inf.addHandler(h);
    await inf.synced;
    cacher.peek(prefix)!.stop();
    await put("a", "brief");
    await storage.delete(key("a", "brief"));
    await until(() => h.log.length === 3, "the gap's events");
    expect(h.log).toEqual(["add kept@1", "add brief@1", "delete brief@1"]);
    expect(inf.get("a", "brief")).toBeUndefined();
  });

  it("stops, without creating a new cache, when its cache stops because the type was removed", async () => {
    setup();
    let served = true;
    const inf = informer({ exists: () => served }).start();
    await inf.synced;
    const first = cacher.peek(prefix)!;
    served = false;
    first.stop();
    await until(() => inf.isStopped, "the informer to stop");
    expect(cacher.peek(prefix)).toBe(first); // no fresh cache was asked for
    expect(first.isStopped).toBe(true);
  });

  it("retries when the cache cannot load, and syncs once it can", async () => {
    setup();
    await put("a", "x");
    let attempts = 0;
    const inf = new Informer<Obj>({
      prefix,
      namespaced: true,
      cache: () => (++attempts <= 2 ? Promise.reject(new Error("storage closing")) : cacher.get(spec)),
      exists: () => true,
    });
    informers.push(inf);
    inf.start();
    await until(() => attempts >= 1, "the first attempt");
    expect(inf.hasSynced()).toBe(false);
    await inf.synced;
    expect(attempts).toBe(3);
    expect(inf.list().map((o) => o.name)).toEqual(["x"]);
  });

  it("is not quiet between a broken feed and its relist, and quiet again once the relist is handed out", async () => {
    setup();
    await put("a", "kept");
    const inf = informer().start();
    const h = recorder();
    inf.addHandler(h);
    await inf.whenQuiet();
    expect(inf.quiet()).toBe(true);
    cacher.peek(prefix)!.stop();
    await put("a", "gap");
    // Nothing has reached the view or the handlers yet: the work is still on its way.
    expect([inf.quiet(), inf.handlersIdle()]).toEqual([false, true]);
    await inf.whenQuiet();
    expect(h.log).toEqual(["add kept@1", "add gap@1"]);
  });

  it("says why it cannot list while its attempts fail, tries again at once when asked, and is quiet once one succeeds", async () => {
    setup();
    await put("a", "x");
    let broken = true;
    const failures: unknown[] = [];
    let attempts = 0;
    const inf = new Informer<Obj>({
      prefix,
      namespaced: true,
      cache: () => (++attempts, broken ? Promise.reject(new Error("/registry/things/a/x: cannot be read")) : cacher.get(spec)),
      exists: () => true,
      onListError: (e) => failures.push(e),
    });
    informers.push(inf);
    inf.start();
    await until(() => failures.length === 1, "the first failure");
    expect((inf.failure()?.error as Error).message).toBe("/registry/things/a/x: cannot be read");
    expect(inf.quiet()).toBe(false);
    // The next attempt waits out a backoff (50 ms): asked, it comes now, and clears the failure
    // until it ends.
    inf.retryNow();
    expect(attempts).toBe(2);
    expect(inf.failure()).toBeUndefined();
    await until(() => failures.length === 2, "the second failure");
    broken = false;
    inf.retryNow();
    await inf.whenQuiet();
    expect([attempts, inf.failure(), inf.list().map((o) => o.name)]).toEqual([3, undefined, ["x"]]);
    inf.retryNow(); // nothing failed: no attempt
    expect(attempts).toBe(3);
  });
});
