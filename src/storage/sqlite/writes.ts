// One write's compare-and-swap inside a group-commit transaction. A failed precondition returns
// a StorageError instead of throwing, so it fails that write alone and the batch commits.
import { StorageError, type KeyValue, type WatchEvent, type WriteOp } from "../interface.js";
import { rowToKv, type Statements } from "./statements.js";

export type { WriteOp };

export type WriteOutcome = { ok: true; kv: KeyValue; event: WatchEvent } | { ok: false; error: StorageError };

/** Apply `op` as revision `rev` (used only when the outcome is ok). */
export function applyWrite(st: Statements, op: WriteOp, rev: number): WriteOutcome {
  const row = st.current.get(op.key);
  const cur = row ? rowToKv(row) : undefined;
  if (op.kind === "create") {
    if (cur) return { ok: false, error: new StorageError("KeyExists", op.key) };
    st.insertLog.run(rev, op.key, op.value, rev, 0, 0);
    st.setCurrent.run(op.key, rev);
    const kv: KeyValue = { key: op.key, value: op.value, createRevision: rev, modRevision: rev };
    return { ok: true, kv, event: { type: "put", kv, revision: rev } };
  }
  if (!cur) return { ok: false, error: new StorageError("KeyNotFound", op.key) };
  if (op.expectedModRevision && cur.modRevision !== op.expectedModRevision) {
    const msg = `modRevision is ${cur.modRevision}, expected ${op.expectedModRevision}`;
    return { ok: false, error: new StorageError("Conflict", op.key, msg, cur) };
  }
  if (op.kind === "update") {
    st.insertLog.run(rev, op.key, op.value, cur.createRevision, cur.modRevision, 0);
    st.setCurrent.run(op.key, rev);
    const kv: KeyValue = { key: op.key, value: op.value, createRevision: cur.createRevision, modRevision: rev };
    return { ok: true, kv, event: { type: "put", kv, prevKv: cur, revision: rev } };
  }
  // The deletion row keeps the deleted value so the delete event survives compaction of its past.
  st.insertLog.run(rev, op.key, cur.value, cur.createRevision, cur.modRevision, 1);
  st.deleteCurrent.run(op.key);
  const kv: KeyValue = { ...cur, modRevision: rev };
  return { ok: true, kv, event: { type: "delete", kv, prevKv: cur, revision: rev } };
}
