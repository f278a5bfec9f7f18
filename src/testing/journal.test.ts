import { describe, expect, it } from "vitest";
import { Journal, type JournalEntry } from "./journal.js";

const entry = (over: Partial<JournalEntry> = {}): Omit<JournalEntry, "seq"> => ({
  time: new Date(0).toISOString(),
  method: "GET",
  path: "/api/v1/namespaces/a/pods/p",
  verb: "get",
  apiGroup: "",
  apiVersion: "v1",
  resource: "pods",
  subresource: "",
  namespace: "a",
  name: "p",
  user: "u",
  fieldManager: "",
  dryRun: false,
  patchType: "",
  code: 200,
  durationMs: 1,
  ...over,
});

describe("Journal", () => {
  it("finds by matcher (values or lists of values) and by predicate, oldest first", () => {
    const j = new Journal();
    j.record(entry({ verb: "update", resource: "deployments", apiGroup: "apps" }));
    j.record(entry({ verb: "get" }));
    j.record(entry({ verb: "update", resource: "pods", code: 409 }));
    expect(j.find({ verb: "update", resource: "deployments" }).map((e) => e.seq)).toEqual([1]);
    expect(j.find({ verb: ["get", "update"], resource: "pods" }).map((e) => e.seq)).toEqual([2, 3]);
    expect(j.find({ code: 409 }).map((e) => e.seq)).toEqual([3]);
    expect(j.find((e) => e.code >= 400).map((e) => e.seq)).toEqual([3]);
    expect(j.find({ subresource: "" })).toHaveLength(3);
    expect(j.find({ subresource: "status" })).toHaveLength(0);
  });

  it("is bounded: past its capacity the oldest entries go, and seq keeps counting", () => {
    const j = new Journal({ capacity: 3 });
    for (let i = 0; i < 5; i++) j.record(entry({ name: `p${i}` }));
    expect(j.entries().map((e) => e.name)).toEqual(["p2", "p3", "p4"]);
    expect(j.dropped).toBe(2);
    expect(JSON.parse(JSON.stringify(j)).map((e: JournalEntry) => e.seq)).toEqual([3, 4, 5]);
    j.clear();
    expect(j.entries()).toEqual([]);
    expect(j.record(entry()).seq).toBe(6);
  });

  it("refuses a malformed matcher, naming the key", () => {
    const j = new Journal();
    expect(() => j.find({ verbs: "get" } as never)).toThrow(/unknown key "verbs"/);
    expect(() => j.find({ code: "409" } as never)).toThrow(/match\.code: must be a number/);
    expect(() => j.find({ verb: [] } as never)).toThrow(/match\.verb/);
    expect(() => new Journal({ capacity: 0 })).toThrow(/capacity must be a whole number/);
  });

  it("waitFor resolves with an entry already there, or the first to come, without polling", async () => {
    const j = new Journal();
    j.record(entry({ verb: "create" }));
    await expect(j.waitFor({ verb: "create" })).resolves.toMatchObject({ seq: 1 });
    const later = j.waitFor({ verb: "delete" }, { timeout: 1000 });
    j.record(entry({ verb: "get" }));
    const e = j.record(entry({ verb: "delete", name: "x" }));
    await expect(later).resolves.toBe(e);
  });

  it("waitFor wakes when a recorded entry changes (a watch's later event)", async () => {
    const j = new Journal();
    const e = j.record(entry({ verb: "watch", events: [] }));
    const w = j.waitFor((x) => (x.events ?? []).some((ev) => ev.type === "DELETED"), { timeout: 1000 });
    e.events!.push({ type: "DELETED", name: "p" });
    j.changed(e);
    await expect(w).resolves.toBe(e);
  });

  it("waitFor rejects after its timeout naming what it waited for", async () => {
    const j = new Journal();
    await expect(j.waitFor({ verb: "update", resource: "deployments" }, { timeout: 20 })).rejects.toThrow(
      'waitFor: no journal entry matched {"verb":"update","resource":"deployments"} within 20 ms (0 requests recorded)',
    );
    await expect(j.waitFor({}, { timeout: -1 })).rejects.toThrow(/timeout must be a number/);
  });
});
