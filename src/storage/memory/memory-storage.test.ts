import { describe, expect, it } from "vitest";
import { runStorageConformance } from "../conformance.testkit.js";
import { memoryHarness } from "./memory-harness.testkit.js";
import { MemoryStorage } from "./memory-storage.js";

runStorageConformance("memory", memoryHarness, { ownEventWindow: false });

describe("MemoryStorage", () => {
  it("compaction releases the history of deleted keys", async () => {
    const s = new MemoryStorage();
    for (let i = 0; i < 10; i++) await s.create(`/k/${i}`, "v");
    for (let i = 0; i < 10; i++) await s.delete(`/k/${i}`);
    const before = await s.range("/k/", { revision: 10 });
    expect(before.items).toHaveLength(10);
    await s.compact(20);
    expect((await s.range("/k/", { revision: 20 })).items).toEqual([]);
    // Internals are private; observable proxy: a watch from the compacted revision replays only
    // the newest event, and ranges at the compacted revision see nothing.
    const seen: number[] = [];
    const w = s.watch("/k/", { afterRevision: 19 }, (ev) => seen.push(ev.revision));
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([20]);
    w.stop();
    await s.close();
  });

  it("keeps no history of a key written with a TTL, and expires it with a sweep", async () => {
    const s = new MemoryStorage();
    const first = await s.create("/ev", "v0", { ttlSeconds: 60 });
    let rev = first.modRevision;
    for (let i = 1; i <= 3; i++) rev = (await s.update("/ev", `v${i}`, rev, { ttlSeconds: 60 })).modRevision;
    expect(await s.get("/ev", { revision: first.modRevision })).toBeUndefined();
    const replay: string[] = [];
    const w = s.watch("/ev", { afterRevision: 0 }, (e) => replay.push(`${e.type} ${e.kv.value} ${e.prevKv ? "prev" : "-"}`));
    await new Promise((r) => setImmediate(r));
    expect(replay).toEqual(["put v3 -"]);
    expect(await s.expiry.sweep(Date.now() + 59_000)).toBe(0);
    expect(await s.expiry.sweep(Date.now() + 61_000)).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(replay).toEqual(["put v3 -", "delete v3 prev"]);
    w.stop();
    await s.close();
  });
});
