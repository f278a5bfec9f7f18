// etcd refuses a write request larger than its --max-request-bytes (1.5 MiB by default) with
// "etcdserver: request is too large". The backends without such a limit of their own (memory,
// SQLite) keep the same one, so that what one backend stores every other one stores too.
import { StorageError, type WriteOp } from "../interface.js";

/** etcd's default --max-request-bytes. */
export const maxRequestBytes = 1.5 * 1024 * 1024;
/** etcd's words (rpctypes.ErrRequestTooLarge), which kube-apiserver passes on. */
export const requestTooLargeMessage = "etcdserver: request is too large";

/** A string's UTF-8 size; a string short enough that even 3 bytes a unit fit is not measured. */
const utf8Bytes = (s: string) => (s.length * 3 < maxRequestBytes ? s.length : Buffer.byteLength(s));

/** Throws TooLarge when one put's key and value pass the limit. */
export function checkPutSize(key: string, value: string): void {
  if (utf8Bytes(key) + utf8Bytes(value) > maxRequestBytes) throw tooLarge(key);
}

/** Throws TooLarge when the keys and values of a transaction's ops together pass the limit. */
export function checkTransactionSize(ops: readonly WriteOp[]): void {
  let bytes = 0;
  for (const op of ops) bytes += utf8Bytes(op.key) + (op.kind === "delete" ? 0 : utf8Bytes(op.value));
  if (bytes > maxRequestBytes) throw tooLarge(ops[0]!.key);
}

const tooLarge = (key: string) => new StorageError("TooLarge", key, requestTooLargeMessage);
