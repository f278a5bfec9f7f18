// The soak's verdict, from etcd's own record of the writes: every acknowledged write is in etcd's
// history as acknowledged, and each informer saw exactly the history after its first list — no
// event lost, none twice, none out of order — and ended with the same objects as etcd.
import type { StoredEvent } from "./history.js";
import type { SeenEvent } from "./informer.js";
import type { AckedWrite } from "./writer.js";

export interface InformerRecord {
  name: string;
  listedAt: number;
  events: readonly SeenEvent[];
  state: ReadonlyMap<string, number>;
}

export interface InformerVerdict {
  name: string;
  expected: number;
  seen: number;
  lost: number;
  duplicated: number;
  /** Events whose revision is lower than the one before them. */
  reordered: number;
  /** Events etcd has no record of (or of another type). */
  unexpected: number;
  /** Objects whose final resourceVersion differs from etcd's (or that one side lacks). */
  stateMismatches: number;
  /** The first few problems, for the report. */
  examples: string[];
}

export interface Verdict {
  acked: number;
  missingAcked: AckedWrite[];
  informers: InformerVerdict[];
  ok: boolean;
}

const key = (e: { type: string; name: string; rev: number }) => `${e.rev}/${e.name}/${e.type}`;

/** The objects (name → resourceVersion) after every event of `history`, from an empty start. */
export function finalState(history: readonly StoredEvent[]): Map<string, number> {
  const state = new Map<string, number>();
  for (const e of history) {
    if (e.type === "DELETED") state.delete(e.name);
    else state.set(e.name, e.rev);
  }
  return state;
}

/** Acknowledged writes etcd has no matching record of. */
export function missingAckedWrites(acked: readonly AckedWrite[], history: readonly StoredEvent[]): AckedWrite[] {
  const puts = new Map<string, StoredEvent>();
  const deletes = new Set<string>();
  for (const e of history) {
    if (e.type === "DELETED") deletes.add(`${e.name}@${e.prevRev}`);
    else puts.set(`${e.name}@${e.rev}`, e);
  }
  return acked.filter((a) => {
    if (a.op === "delete") return !deletes.has(`${a.name}@${a.rev}`);
    const e = puts.get(`${a.name}@${a.rev}`);
    return !e || e.seq !== a.seq || e.type !== (a.op === "create" ? "ADDED" : "MODIFIED");
  });
}

export function checkInformer(inf: InformerRecord, history: readonly StoredEvent[], truth: ReadonlyMap<string, number>): InformerVerdict {
  const expected = history.filter((e) => e.rev > inf.listedAt);
  const expectedKeys = new Set(expected.map(key));
  const seenKeys = new Set<string>();
  const examples: string[] = [];
  const note = (s: string) => void (examples.length < 5 && examples.push(s));
  let duplicated = 0;
  let reordered = 0;
  let unexpected = 0;
  let prev = 0;
  for (const e of inf.events) {
    const k = key(e);
    if (seenKeys.has(k)) {
      duplicated++;
      note(`duplicate ${e.type} ${e.name} at ${e.rev}`);
    }
    seenKeys.add(k);
    if (e.rev < prev) {
      reordered++;
      note(`${e.type} ${e.name} at ${e.rev} after an event at ${prev}`);
    }
    prev = Math.max(prev, e.rev);
    if (!expectedKeys.has(k)) {
      unexpected++;
      note(`unexpected ${e.type} ${e.name} at ${e.rev}`);
    }
  }
  let lost = 0;
  for (const e of expected) {
    if (seenKeys.has(key(e))) continue;
    lost++;
    note(`lost ${e.type} ${e.name} at ${e.rev}`);
  }
  let stateMismatches = 0;
  for (const name of new Set([...truth.keys(), ...inf.state.keys()])) {
    if (truth.get(name) === inf.state.get(name)) continue;
    stateMismatches++;
    note(`${name}: etcd has ${truth.get(name) ?? "nothing"}, the informer ${inf.state.get(name) ?? "nothing"}`);
  }
  return { name: inf.name, expected: expected.length, seen: inf.events.length, lost, duplicated, reordered, unexpected, stateMismatches, examples };
}

export function verdict(acked: readonly AckedWrite[], history: readonly StoredEvent[], informers: readonly InformerRecord[]): Verdict {
  const truth = finalState(history);
  const missingAcked = missingAckedWrites(acked, history);
  const infs = informers.map((i) => checkInformer(i, history, truth));
  const ok = missingAcked.length === 0 && infs.every((v) => v.lost + v.duplicated + v.reordered + v.unexpected + v.stateMismatches === 0);
  return { acked: acked.length, missingAcked, informers: infs, ok };
}
