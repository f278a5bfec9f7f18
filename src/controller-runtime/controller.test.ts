import { afterEach, describe, expect, it } from "vitest";
import { Cacher } from "../storage/cacher/cacher.js";
import type { KeyValue } from "../storage/interface.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { Informer } from "../registry/informer.js";
import { runController, type Controller, type ControllerDefinition } from "./controller.js";
import { itemExponentialRateLimiter } from "./rate-limiter.js";

const running: Controller[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) c.stop();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function run(def: ControllerDefinition): Controller {
  const c = runController(def);
  running.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for `check` (timers run late on a loaded machine: poll rather than sleep a fixed time). */
async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe("controller runtime", () => {
  it("reconciles a key queued several times while it waits once, and is idle after", async () => {
    const seen: string[] = [];
    const c = run({
      name: "t",
      setup: (ctx) => ["a", "b", "a", "a"].forEach((k) => ctx.enqueue(k)),
      reconcile: async (key) => void seen.push(key),
    });
    expect(c.idle()).toBe(false);
    await c.whenIdle();
    expect(c.idle()).toBe(true);
    expect(seen).toEqual(["a", "b"]);
  });

  it("a key queued while it is being reconciled runs once more afterwards", async () => {
    const seen: string[] = [];
    const gate = deferred();
    const c = run({
      name: "t",
      setup: (ctx) => ctx.enqueue("a"),
      reconcile: async (key, ctx) => {
        seen.push(key);
        if (seen.length === 1) {
          ctx.enqueue("a");
          await gate.promise;
        }
      },
    });
    await sleep(20);
    expect(c.idle()).toBe(false); // working
    gate.resolve();
    await c.whenIdle();
    expect(seen).toEqual(["a", "a"]);
  });

  it("retries a failed key with the limiter's backoff, and forgets its failures on success", async () => {
    const times: number[] = [];
    const errors: string[] = [];
    const limiter = itemExponentialRateLimiter(20, 1000);
    const done = deferred();
    run({
      name: "t",
      retry: limiter,
      onError: (key, err) => errors.push(`${key}: ${(err as Error).message}`),
      setup: (ctx) => ctx.enqueue("k"),
      reconcile: async () => {
        times.push(Date.now());
        if (times.length < 4) throw new Error(`try ${times.length}`);
        done.resolve();
      },
    });
    await done.promise;
    expect(errors).toEqual(["k: try 1", "k: try 2", "k: try 3"]);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(35);
    expect(gaps[2]).toBeGreaterThanOrEqual(75);
    await sleep(5);
    expect(limiter.retries("k")).toBe(0);
  });

  it("does not retry when told not to: no limiter, or retryIf refusing", async () => {
    let none = 0;
    let refused = 0;
    const a = run({ name: "a", retry: false, setup: (ctx) => ctx.enqueue("k"), reconcile: async () => {
        none++;
      } });
    const b = run({
      name: "b",
      retry: itemExponentialRateLimiter(1, 1),
      retryIf: (e) => (e as Error).message !== "gone",
      setup: (ctx) => ctx.enqueue("k"),
      reconcile: async () => {
        refused++;
        throw new Error("gone");
      },
    });
    const c = run({
      name: "c",
      retry: false,
      setup: (ctx) => ctx.enqueue("k"),
      reconcile: async () => {
        none++;
        throw new Error("x");
      },
    });
    await Promise.all([a.whenIdle(), b.whenIdle(), c.whenIdle()]);
    await sleep(30);
    expect(none).toBe(2);
    expect(refused).toBe(1);
  });

  it("requeues a key when reconcile asks to, and a delayed key does not count as queued work", async () => {
    let n = 0;
    const c = run({ name: "t", setup: (ctx) => ctx.enqueue("k"), reconcile: async () => (++n === 1 ? { requeueAfterMs: 40 } : undefined) });
    const t0 = Date.now();
    await c.whenIdle();
    expect(n).toBe(1);
    expect(c.idle()).toBe(true);
    await until(() => n === 2, "the requeued key");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(35);
  });

  it("tells a failure's pending retry (with its error) from a scheduled requeue, and when the retry comes due", async () => {
    let n = 0;
    const c = run({
      name: "t",
      retry: itemExponentialRateLimiter(30, 30),
      setup: (ctx) => {
        ctx.enqueue("fails-once");
        ctx.enqueueAfter("later", 60_000);
      },
      reconcile: async (k) => {
        if (k === "fails-once" && ++n === 1) throw new Error("not yet");
      },
    });
    await c.whenIdle();
    expect(c.idle()).toBe(true);
    expect(c.retrying().map((r) => [r.key, (r.error as Error).message])).toEqual([["fails-once", "not yet"]]);
    await c.whenRetryDue();
    await c.whenIdle();
    expect(n).toBe(2);
    expect(c.retrying()).toEqual([]);
    c.stop();
    await c.whenRetryDue(); // at once after stop
  });

  it("resyncs: queues the declared keys every period", async () => {
    const seen: string[] = [];
    run({ name: "t", resync: { everyMs: 20, keys: () => ["x", "y"] }, reconcile: async (k) => void seen.push(k) });
    await until(() => seen.length >= 4, "two resyncs");
    expect(new Set(seen)).toEqual(new Set(["x", "y"]));
  });

  it("holds queued keys until what setup asked to wait for settles", async () => {
    const seen: string[] = [];
    const ready = deferred();
    const c = run({
      name: "t",
      setup: (ctx) => {
        ctx.holdUntil(ready.promise);
        ctx.enqueue("k");
      },
      reconcile: async (k) => void seen.push(k),
    });
    await sleep(20);
    expect(seen).toEqual([]);
    expect(c.idle()).toBe(false);
    ready.resolve();
    await c.whenIdle();
    expect(seen).toEqual(["k"]);
  });

  it("stop ends everything: no more reconciles, resync, retries or teardown left, and idle at once", async () => {
    let n = 0;
    let tornDown = 0;
    const c = run({
      name: "t",
      resync: { everyMs: 10, keys: () => ["r"] },
      setup: (ctx) => {
        ctx.onStop(() => tornDown++);
        ctx.enqueueAfter("later", 30);
      },
      reconcile: async () => {
        n++;
        throw new Error("again");
      },
    });
    await sleep(25);
    c.stop();
    const after = n;
    expect(tornDown).toBe(1);
    expect(c.idle()).toBe(true);
    await c.whenIdle();
    await sleep(60);
    expect(n).toBe(after);
  });

  describe("following informers", () => {
    type Obj = { name: string; v: number };
    const prefix = "/registry/things/";
    const decode = (kv: KeyValue) => {
      const object = JSON.parse(kv.value) as Obj;
      return { object, labels: undefined, fieldsOf: (o: Obj) => ({ "metadata.name": o.name }) };
    };

    function world() {
      const storage = new MemoryStorage();
      const cacher = new Cacher<Obj>(storage);
      const informer = new Informer<Obj>({ prefix, namespaced: false, cache: () => cacher.get({ prefix, namespaced: false, decode }), exists: () => true });
      cleanups.push(() => storage.close(), () => cacher.stop(), () => informer.stop());
      const put = (name: string, v: number) => storage.create(`${prefix}${name}`, JSON.stringify({ name, v }));
      return { informer, put, storage };
    }

    it("queues the keys each change maps to, is not idle before the initial list, and stops listening at stop", async () => {
      const w = world();
      await w.put("a", 1);
      await w.put("b", 2);
      const seen: string[] = [];
      const c = run({
        name: "t",
        watches: [{ informer: w.informer, added: (o) => o.v > 1 && o.name, updated: (_o, n) => [n.name, `${n.name}-too`], deleted: (o) => o.name }],
        reconcile: async (k) => void seen.push(k),
      });
      expect(c.idle()).toBe(false); // the informer has not listed yet
      w.informer.start();
      await c.whenIdle();
      expect(seen).toEqual(["b"]);
      await w.storage.update(`${prefix}a`, JSON.stringify({ name: "a", v: 3 }), 0);
      await until(() => seen.length >= 3, "the update's keys");
      await c.whenIdle();
      expect(seen).toEqual(["b", "a", "a-too"]);
      c.stop();
      await w.put("c", 9);
      await sleep(30);
      expect(seen).toEqual(["b", "a", "a-too"]);
    });

    it("is not idle while a change its informer took still waits in the handler queue, and whenIdle waits for it", async () => {
      const w = world();
      await w.put("a", 1);
      const seen: string[] = [];
      // Registered first, so it hears each change before the controller's handler does.
      const observed: { idleOnArrival: boolean; seenWhenIdle: Promise<string[]> }[] = [];
      let c: Controller | undefined;
      w.informer.addHandler({
        updated: () => void observed.push({ idleOnArrival: c!.idle(), seenWhenIdle: c!.whenIdle().then(() => [...seen]) }),
      });
      c = run({ name: "t", watches: [{ informer: w.informer, updated: (_o, n) => n.name }], reconcile: async (k) => void seen.push(k) });
      w.informer.start();
      await c.whenIdle();
      expect(c.idle()).toBe(true);
      await w.storage.update(`${prefix}a`, JSON.stringify({ name: "a", v: 2 }), 0);
      await until(() => observed.length === 1, "the update reaching the first handler");
      expect(observed[0]!.idleOnArrival).toBe(false);
      expect(await observed[0]!.seenWhenIdle).toEqual(["a"]);
    });

    it("a view-only controller (follow, no reconcile) is idle once its informer listed, and hears nothing after stop", async () => {
      const w = world();
      await w.put("a", 1);
      const view = new Map<string, number>();
      const c = run({ name: "view", setup: (ctx) => void ctx.follow(w.informer, { added: (o) => view.set(o.name, o.v), deleted: (o) => view.delete(o.name) }) });
      expect(c.idle()).toBe(false);
      w.informer.start();
      await c.whenIdle();
      expect([...view]).toEqual([["a", 1]]);
      c.stop();
      await w.put("b", 2);
      await sleep(30);
      expect([...view]).toEqual([["a", 1]]);
    });
  });
});
