// Deliveries are shared: every watcher that sees an event the same way gets the same delivery
// (so the same byte memo, encoded once), and watchers that see it differently get their own.
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStorage } from "../memory/memory-storage.js";
import type { KeyValue } from "../interface.js";
import { Cacher } from "./cacher.js";
import type { WatchSink } from "./cache-watcher.js";
import type { Delivery, Predicate } from "./types.js";

type Obj = { name: string; labels?: Record<string, string> };
const decode = (kv: KeyValue) => {
  const object = JSON.parse(kv.value) as Obj;
  return { object, labels: object.labels, fields: { "metadata.name": object.name } };
};
const prefix = "/registry/things/";
const spec = { prefix, namespaced: true, decode };
const all: Predicate = { prefix, namespace: "", name: "" };
const web: Predicate = { ...all, matches: (l) => l?.tier === "web" };
const tick = () => new Promise((r) => setImmediate(r));

class Keep implements WatchSink<Obj> {
  got: Delivery<Obj>[] = [];
  send(d: Delivery<Obj>): boolean {
    this.got.push(d);
    return true;
  }
  closed(): void {}
}

let storage: MemoryStorage;
let cacher: Cacher<Obj>;
afterEach(async () => {
  cacher?.stop();
  await storage?.close();
});

describe("cache watcher deliveries", () => {
  it("one delivery and memo per way an event is seen, shared by the watchers that see it so", async () => {
    storage = new MemoryStorage();
    cacher = new Cacher<Obj>(storage);
    const c = await cacher.get(spec);
    const [a1, a2, w1, w2] = [new Keep(), new Keep(), new Keep(), new Keep()];
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
});
