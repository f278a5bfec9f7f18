// What a restart's reconciliation of bootstrap objects found last time it had nothing to do: for
// each batch (the RBAC policy's 131 objects), every object's identity as it was stored then, its
// uid and resourceVersion. Kept beside the prepared forms, per build and configuration (see
// src/server/prepared-bootstrap.ts), so the batch's desired objects are the same ones: when every
// object recorded is still stored with the same uid and resourceVersion, it has not changed since
// (any write gives it a new resourceVersion; a delete and a new create a new uid), and reconciling
// it again would change nothing. A restart then neither builds the batch nor compares it (~4–7 ms
// of the RBAC policy's start, cold code). Anything else (an object missing, changed, a store the
// record was not made on) reconciles as usual.

/** An object as stored: its kind (the type's resource), its "namespace/name", uid and resourceVersion. */
export type StoredIdentity = [resource: string, key: string, uid: string, resourceVersion: string];

export type ReconciledBatchesData = Record<string, StoredIdentity[]>;

export class ReconciledBatches {
  private readonly batches: Map<string, StoredIdentity[]>;
  private changedBatches = false;

  constructor(data?: ReconciledBatchesData) {
    this.batches = new Map(data && typeof data === "object" ? Object.entries(data) : []);
  }

  /**
   * How many objects batch `id` holds when every one recorded is stored as it was (`stored` gives
   * an object's uid and resourceVersion now); undefined when any differs or nothing is recorded.
   */
  unchanged(id: string, stored: (resource: string, key: string) => { uid?: string; resourceVersion?: string } | undefined): number | undefined {
    const recorded = this.batches.get(id);
    // Read from a file: anything but the shape written is no record.
    if (!Array.isArray(recorded) || recorded.length === 0) return undefined;
    for (const entry of recorded) {
      if (!Array.isArray(entry) || entry.length !== 4) return undefined;
      const [resource, key, uid, rv] = entry;
      const now = stored(resource, key);
      if (now?.uid !== uid || now.resourceVersion !== rv) return undefined;
    }
    return recorded.length;
  }

  /** Records batch `id` as reconciled with nothing to do, its objects as stored now. */
  record(id: string, objects: StoredIdentity[]): void {
    const before = this.batches.get(id);
    if (before && JSON.stringify(before) === JSON.stringify(objects)) return;
    this.batches.set(id, objects);
    this.changedBatches = true;
  }

  /** Whether record() changed anything since this was read (it need not be written again otherwise). */
  get changed(): boolean {
    return this.changedBatches;
  }

  toJSON(): ReconciledBatchesData {
    return Object.fromEntries(this.batches);
  }
}
