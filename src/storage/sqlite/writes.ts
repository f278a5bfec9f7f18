// One write's compare-and-swap inside a group-commit transaction. A failed precondition returns
// a StorageError instead of throwing, so it fails that write alone and the batch commits.
import { StorageError, type KeyValue, type WatchEvent, type WriteOp } from "../interface.js";
import { expiryOf } from "../common/expiry.js";
import { rowToKv, type Statements } from "./statements.js";

export type { WriteOp };

export type WriteOutcome = { ok: true; kv: KeyValue; event: WatchEvent } | { ok: false; error: StorageError };

/**
 * The keys whose live value was written with a TTL (kept in memory: every write asks), with the
 * changes of a transaction staged until it commits, so a rolled-back one leaves them as they were.
 */
export class ExpiringKeys {
  private readonly keys: Set<string>;
  private readonly staged = new Map<string, boolean>();

  constructor(keys: Iterable<string>) {
    this.keys = new Set(keys);
  }

  has(key: string): boolean {
    return this.staged.get(key) ?? this.keys.has(key);
  }

  stage(key: string, expiring: boolean): void {
    this.staged.set(key, expiring);
  }

  commit(): void {
    for (const [key, expiring] of this.staged) {
      if (expiring) this.keys.add(key);
      else this.keys.delete(key);
    }
    this.staged.clear();
  }

  rollback(): void {
    this.staged.clear();
  }
}

/** Apply `op` as revision `rev` (used only when the outcome is ok). */
export function applyWrite(st: Statements, op: WriteOp, rev: number, expiring: ExpiringKeys, now = Date.now()): WriteOutcome {
  const row = st.current.get(op.key);
  const cur = row ? rowToKv(row) : undefined;
  if (op.kind === "create") {
    if (cur) return { ok: false, error: new StorageError("KeyExists", op.key) };
    st.insertLog.run(rev, op.key, op.value, rev, 0, 0);
    st.setCurrent.run(op.key, rev);
    setExpiry(st, expiring, op.key, op.ttlSeconds, now);
    const kv: KeyValue = { key: op.key, value: op.value, createRevision: rev, modRevision: rev };
    return { ok: true, kv, event: { type: "put", kv, revision: rev } };
  }
  if (!cur) return { ok: false, error: new StorageError("KeyNotFound", op.key) };
  if (op.expectedModRevision && cur.modRevision !== op.expectedModRevision) {
    const msg = `modRevision is ${cur.modRevision}, expected ${op.expectedModRevision}`;
    return { ok: false, error: new StorageError("Conflict", op.key, msg, cur) };
  }
  // A value written with a TTL is not kept once replaced (a deletion row carries it on).
  if (expiring.has(op.key)) st.deleteRow.run(cur.modRevision);
  if (op.kind === "update") {
    st.insertLog.run(rev, op.key, op.value, cur.createRevision, cur.modRevision, 0);
    st.setCurrent.run(op.key, rev);
    setExpiry(st, expiring, op.key, op.ttlSeconds, now);
    const kv: KeyValue = { key: op.key, value: op.value, createRevision: cur.createRevision, modRevision: rev };
    return { ok: true, kv, event: { type: "put", kv, prevKv: cur, revision: rev } };
  }
  // The deletion row keeps the deleted value so the delete event survives compaction of its past.
  st.insertLog.run(rev, op.key, cur.value, cur.createRevision, cur.modRevision, 1);
  st.deleteCurrent.run(op.key);
  setExpiry(st, expiring, op.key, undefined, now);
  const kv: KeyValue = { ...cur, modRevision: rev };
  return { ok: true, kv, event: { type: "delete", kv, prevKv: cur, revision: rev } };
}

/** The key's expiry after a write: set by a TTL, cleared by a write without one. */
function setExpiry(st: Statements, expiring: ExpiringKeys, key: string, ttlSeconds: number | undefined, now: number): void {
  const at = expiryOf(ttlSeconds, now);
  if (at !== undefined) {
    st.setExpiry.run(key, at);
    expiring.stage(key, true);
  } else if (expiring.has(key)) {
    st.clearExpiry.run(key);
    expiring.stage(key, false);
  }
}
