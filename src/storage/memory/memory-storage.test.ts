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
});
