// The replica soak's verdict (bench/soak/check.ts): what counts as a lost, duplicated, reordered
// or unexpected event, and as a missing acknowledged write, against etcd's record of the writes.
import { describe, expect, it } from "vitest";
import { checkInformer, finalState, missingAckedWrites, verdict } from "../bench/soak/check.js";
import type { StoredEvent } from "../bench/soak/history.js";
import type { SeenEvent } from "../bench/soak/informer.js";

const history: StoredEvent[] = [
  { type: "ADDED", name: "a", rev: 10, prevRev: 0, seq: 1 },
  { type: "ADDED", name: "b", rev: 11, prevRev: 0, seq: 2 },
  { type: "MODIFIED", name: "a", rev: 12, prevRev: 10, seq: 3 },
  { type: "DELETED", name: "b", rev: 13, prevRev: 11, seq: undefined },
  { type: "MODIFIED", name: "a", rev: 14, prevRev: 12, seq: 4 },
];
const seen = (h: StoredEvent[]): SeenEvent[] => h.map(({ type, name, rev }) => ({ type, name, rev }));
const informer = (events: SeenEvent[], state = new Map([["a", 14]]), listedAt = 9) => ({ name: "i", listedAt, events, state });

describe("soak verdict", () => {
  it("passes an informer that saw exactly the history after its list, and the acknowledged writes etcd holds", () => {
    const acked = [
      { op: "create" as const, name: "a", rev: 10, seq: 1 },
      { op: "update" as const, name: "a", rev: 12, seq: 3 },
      { op: "delete" as const, name: "b", rev: 11, seq: undefined },
    ];
    const v = verdict(acked, history, [informer(seen(history))]);
    expect(v.ok).toBe(true);
    expect(finalState(history)).toEqual(new Map([["a", 14]]));
  });

  it("counts lost, duplicated, reordered and unexpected events, and a wrong final state", () => {
    const truth = finalState(history);
    const [a10, b11, a12, b13, a14] = seen(history);
    expect(checkInformer(informer([a10!, b11!, a12!, a14!]), history, truth)).toMatchObject({ lost: 1, duplicated: 0, reordered: 0, unexpected: 0 });
    expect(checkInformer(informer([a10!, b11!, b11!, a12!, b13!, a14!]), history, truth)).toMatchObject({ lost: 0, duplicated: 1, reordered: 0 });
    expect(checkInformer(informer([a10!, a12!, b11!, b13!, a14!]), history, truth)).toMatchObject({ lost: 0, reordered: 1 });
    expect(checkInformer(informer([{ ...a10!, type: "MODIFIED" }, b11!, a12!, b13!, a14!]), history, truth)).toMatchObject({ lost: 1, unexpected: 1 });
    expect(checkInformer(informer(seen(history), new Map([["a", 12]])), history, truth)).toMatchObject({ stateMismatches: 1 });
    // Events before the informer's first list are not its to see.
    expect(checkInformer(informer([b13!, a14!], truth, 12), history, truth)).toMatchObject({ expected: 2, lost: 0, unexpected: 0 });
  });

  it("finds acknowledged writes etcd has no record of (or a different value at that revision)", () => {
    const missing = missingAckedWrites(
      [
        { op: "update", name: "a", rev: 12, seq: 3 },
        { op: "update", name: "a", rev: 12, seq: 99 },
        { op: "create", name: "c", rev: 15, seq: 5 },
        { op: "delete", name: "a", rev: 14, seq: undefined },
      ],
      history,
    );
    expect(missing.map((m) => `${m.op} ${m.name} ${m.rev} ${m.seq}`)).toEqual(["update a 12 99", "create c 15 5", "delete a 14 undefined"]);
  });
});
