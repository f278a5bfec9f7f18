import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../memory/memory-storage.js";
import type { WatchEvent } from "../interface.js";
import { RoutedStorage } from "./routed-storage.js";

const until = async (ok: () => boolean) => {
  const end = Date.now() + 2000;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

function split() {
  const main = new MemoryStorage();
  const events = new MemoryStorage();
  return { main, events, s: new RoutedStorage(main, [{ prefix: "/registry/events/", storage: events }]) };
}

describe("RoutedStorage", () => {
  it("writes and reads a routed key in its own store, with that store's revisions", async () => {
    const { main, events, s } = split();
    await s.create("/registry/configmaps/ns/a", "a");
    await s.create("/registry/configmaps/ns/b", "b");
    const ev = await s.create("/registry/events/ns/e", "e");
    expect(ev.modRevision).toBe(1);
    expect(await events.get("/registry/events/ns/e")).toMatchObject({ value: "e" });
    expect(await main.get("/registry/events/ns/e")).toBeUndefined();
    expect(await s.currentRevision("/registry/events/")).toBe(1);
    expect(await s.currentRevision("/registry/configmaps/")).toBe(2);
    expect(await s.currentRevision()).toBe(2);
    const updated = await s.update("/registry/events/ns/e", "e2", 1);
    expect(updated.modRevision).toBe(2);
    expect(await s.get("/registry/events/ns/e", { revision: 1 })).toMatchObject({ value: "e" });
    await expect(s.update("/registry/events/ns/e", "e3", 1)).rejects.toMatchObject({ code: "Conflict" });
    expect((await s.range("/registry/events/ns/")).items.map((kv) => kv.value)).toEqual(["e2"]);
    expect(await s.count("/registry/events/")).toBe(1);
  });

  it("a prefix spanning stores: the range merges them (keys the main store still has under a route are not its own), the count adds up", async () => {
    const { main, s } = split();
    await main.create("/registry/events/ns/stale", "left before the route");
    await s.create("/registry/configmaps/ns/a", "a");
    await s.create("/registry/events/ns/e1", "e1");
    await s.create("/registry/events/ns/e2", "e2");
    await s.create("/registry/namespaces/ns", "ns");
    const all = await s.range("/registry/");
    expect(all.items.map((kv) => kv.key)).toEqual(["/registry/configmaps/ns/a", "/registry/events/ns/e1", "/registry/events/ns/e2", "/registry/namespaces/ns"]);
    expect(all.more).toBe(false);
    const page = await s.range("/registry/", { limit: 2 });
    expect(page.items.map((kv) => kv.key)).toEqual(["/registry/configmaps/ns/a", "/registry/events/ns/e1"]);
    expect([page.more, page.remaining]).toEqual([true, 2]);
    const next = await s.range("/registry/", { limit: 2, startAfter: "/registry/events/ns/e1" });
    expect(next.items.map((kv) => kv.key)).toEqual(["/registry/events/ns/e2", "/registry/namespaces/ns"]);
    expect(next.more).toBe(false);
    expect(await s.count("/registry/")).toBe(4);
    await expect(s.range("/registry/", { revision: 1 })).rejects.toThrow("cannot span");
  });

  it("a transaction over both stores is written to each; a watch of a spanning prefix hears both", async () => {
    const { main, events, s } = split();
    await s.create("/registry/configmaps/ns/before", "x");
    const from = await s.currentRevision();
    const heard: WatchEvent[] = [];
    const w = s.watch("/registry/", { afterRevision: from }, (ev) => heard.push(ev));
    // The routed part starts once it has read its store's revision (at once for a memory store).
    await new Promise((r) => setImmediate(r));
    const done = await s.transaction([
      { kind: "create", key: "/registry/configmaps/ns/c", value: "c" },
      { kind: "create", key: "/registry/events/ns/e", value: "e" },
    ]);
    expect(done.map((kv) => kv.key)).toEqual(["/registry/configmaps/ns/c", "/registry/events/ns/e"]);
    expect(await main.get("/registry/configmaps/ns/c")).toBeDefined();
    expect(await events.get("/registry/events/ns/e")).toBeDefined();
    await main.create("/registry/events/ns/in-main", "not the main store's own");
    await s.create("/registry/namespaces/last", "n");
    await until(() => heard.some((ev) => ev.kv.key === "/registry/namespaces/last") && heard.length >= 3);
    w.stop();
    expect(heard.map((ev) => ev.kv.key).sort()).toEqual(["/registry/configmaps/ns/c", "/registry/events/ns/e", "/registry/namespaces/last"]);
  });

  it("a transaction over both stores is one commit per store: one refused leaves the earlier store's writes, and writes nothing of its own", async () => {
    const { main, events, s } = split();
    await s.create("/registry/events/ns/taken", "t");
    const rejected = s.transaction([
      { kind: "create", key: "/registry/configmaps/ns/first", value: "1" },
      { kind: "create", key: "/registry/events/ns/new", value: "n" },
      { kind: "create", key: "/registry/events/ns/taken", value: "again" },
    ]);
    await expect(rejected).rejects.toMatchObject({ code: "KeyExists", key: "/registry/events/ns/taken" });
    expect(await main.get("/registry/configmaps/ns/first")).toMatchObject({ value: "1" });
    expect(await events.get("/registry/events/ns/new")).toBeUndefined();
    // Refused in the first store to commit: nothing anywhere.
    await expect(
      s.transaction([
        { kind: "create", key: "/registry/events/ns/taken", value: "again" },
        { kind: "create", key: "/registry/configmaps/ns/second", value: "2" },
      ]),
    ).rejects.toMatchObject({ code: "KeyExists" });
    expect(await main.get("/registry/configmaps/ns/second")).toBeUndefined();
  });

  it("closes every store", async () => {
    const { main, events, s } = split();
    await s.close();
    await expect(main.get("/x")).rejects.toMatchObject({ code: "Closed" });
    await expect(events.get("/x")).rejects.toMatchObject({ code: "Closed" });
  });
});
