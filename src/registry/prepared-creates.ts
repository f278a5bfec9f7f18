// The stored forms of the server's own creates (bootstrap objects), kept from an earlier start of
// the same build and configuration. A bootstrap object's create — decoding, defaulting,
// managedFields, admission, validation, encoding — is a pure function of what is asked (the
// object, its type, the write options) while the store is empty at start: no stored webhook,
// policy, quota or limit can act on it yet. What differs between two starts is the uid and the
// time, so a create asked exactly as before (same input, by hash) writes the value stored then with
// a new uid and now's time, and skips the stages (~20–40 ms of a start: mostly managedFields of
// the ~140 objects). The server keeps forms only for starts whose store was empty (see
// src/server/prepared-bootstrap.ts); a create of a type that takes values from a shared pool
// (Service IPs) is never prepared.
import { createHash, randomUUID } from "node:crypto";
import { nowTimestamp, type KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";
import type { WriteOptions } from "./store.js";

/** Stand-ins for what each create makes anew, JSON strings that no bootstrap object holds. */
const uidMark = JSON.stringify("\u0000kapi-prepared-uid\u0000");
const timeMark = JSON.stringify("\u0000kapi-prepared-time\u0000");

/**
 * The file form: each prepared input's hash and its stored value with the marks in place; each
 * prepared batch's keys and marked values, in write order.
 */
export interface PreparedCreatesData {
  forms: Record<string, string>;
  batches?: Record<string, [key: string, form: string][]>;
}

export class PreparedCreates {
  private readonly forms: Map<string, string>;
  private readonly batches: Map<string, [key: string, form: string][]>;
  private added = 0;

  constructor(data?: PreparedCreatesData) {
    this.forms = new Map(Object.entries(data?.forms ?? {}));
    this.batches = new Map(Object.entries(data?.batches ?? {}));
  }

  /**
   * The writes kept for batch `id` (a new uid each, now's time), or undefined when none is kept.
   * A batch is named by its caller and holds objects that are a pure function of the build and
   * the configuration (what the file is kept per): taking it needs neither the objects nor their
   * input hashes, so the caller need not even build them.
   */
  takeBatch(id: string): { key: string; value: string }[] | undefined {
    const batch = this.batches.get(id);
    if (batch === undefined) return undefined;
    const now = JSON.stringify(nowTimestamp());
    return batch.map(([key, form]) => ({ key, value: form.replaceAll(uidMark, JSON.stringify(randomUUID())).replaceAll(timeMark, now) }));
  }

  /** Keeps batch `id`'s writes, when each value's uid and times can be told apart. */
  recordBatch(id: string, writes: readonly { key: string; value: string }[]): void {
    if (this.batches.has(id)) return;
    const batch: [string, string][] = [];
    for (const { key, value } of writes) {
      const form = formOf(value);
      if (form === undefined) return;
      batch.push([key, form]);
    }
    this.batches.set(id, batch);
    this.added++;
  }

  /**
   * The identity of a create as asked, computed before any stage touches the object (the
   * stages change it in place).
   */
  inputOf(t: ResourceType, ns: string, object: KObject, opts: WriteOptions): string {
    return createHash("sha256").update(`${t.group}/${t.version}/${t.resource}\u0000${ns}\u0000${JSON.stringify(opts)}\u0000${JSON.stringify(object)}`).digest("base64url");
  }

  /** The value to store for this input (a new uid, now's time), or undefined when none is kept. */
  take(input: string): string | undefined {
    const form = this.forms.get(input);
    if (form === undefined) return undefined;
    const now = JSON.stringify(nowTimestamp());
    return form.replaceAll(uidMark, JSON.stringify(randomUUID())).replaceAll(timeMark, now);
  }

  /** Keeps what a create of `input` stored after every stage, when its uid and times can be told apart. */
  record(input: string, value: string): void {
    if (this.forms.has(input)) return;
    const form = formOf(value);
    if (form === undefined) return;
    this.forms.set(input, form);
    this.added++;
  }

  /** Whether this start recorded forms it did not have (then they are worth saving). */
  get changed(): boolean {
    return this.added > 0;
  }

  toJSON(): PreparedCreatesData {
    return { forms: Object.fromEntries(this.forms), ...(this.batches.size ? { batches: Object.fromEntries(this.batches) } : {}) };
  }
}

/**
 * `value` with its uid and its creation and managedFields times marked, or undefined when
 * putting them back would not give `value` again (a mark would be ambiguous).
 */
function formOf(value: string): string | undefined {
  let obj: KObject;
  try {
    obj = JSON.parse(value) as KObject;
  } catch {
    return undefined;
  }
  const meta = obj.metadata;
  const uid = meta?.uid;
  const created = meta?.creationTimestamp;
  if (typeof uid !== "string" || typeof created !== "string" || value.includes(uidMark.slice(1, -1)) || value.includes(timeMark.slice(1, -1))) return undefined;
  const marked = (s: string) => JSON.parse(s) as string;
  meta.uid = marked(uidMark);
  meta.creationTimestamp = marked(timeMark);
  const times: string[] = [];
  for (const f of (meta.managedFields ?? []) as { time?: unknown }[]) {
    if (typeof f.time !== "string") continue;
    times.push(f.time);
    f.time = marked(timeMark);
  }
  const form = JSON.stringify(obj);
  // Only forms whose every managedFields time was the creation time come back exactly.
  if (times.some((t) => t !== created)) return undefined;
  const back = form.replaceAll(uidMark, JSON.stringify(uid)).replaceAll(timeMark, JSON.stringify(created));
  return back === value ? form : undefined;
}
