// One etcd watch on its own gRPC stream: events under a key range from a revision on, each with
// the value it replaced (prev_kv), so a delete carries the object it removed. A stream that
// breaks (etcd gone, compaction past the watch, cancellation) ends the watch with an error once:
// the consumer relists and watches again, as kube-apiserver's watch cache does. progress() asks
// etcd for a progress notification, which tells how far the watch has got on a quiet range.
import { StorageError, type KeyValue, type WatchEvent } from "../interface.js";
import type { EtcdClient, RawKeyValue, RawWatchResponse, WatchStream } from "./client.js";

export interface EtcdWatchSpec {
  range: { key: Buffer; range_end: Buffer };
  afterRevision: number;
  toKeyValue: (kv: RawKeyValue) => KeyValue;
  onEvent: (ev: WatchEvent) => void;
  onError: (err: Error) => void;
  /** etcd answers progress requests in order with events, only once the watch has caught up (3.4.31+, 3.5.13+). */
  orderedProgress: boolean;
  /** The error to end with when etcd has compacted past the watch (and learns the revision). */
  onCompacted: (compactRevision: number) => Error;
}

const legacyCatchUpMs = 250;

export class EtcdWatch {
  private readonly createdAt = Date.now();
  private readonly stream: WatchStream;
  private done = false;
  /** The newest revision whose events have all been delivered. */
  private delivered: number;
  private waiters: { resolve: (rev: number) => void; reject: (err: Error) => void }[] = [];

  constructor(
    private readonly client: EtcdClient,
    private readonly spec: EtcdWatchSpec,
  ) {
    this.delivered = spec.afterRevision;
    this.stream = client.watchStream();
    this.stream.on("data", (res: RawWatchResponse) => this.receive(res));
    this.stream.on("error", (err: Error) => {
      client.failover();
      this.fail(new StorageError("Unavailable", "", `etcd watch failed: ${err.message}`));
    });
    this.stream.on("end", () => this.fail(new StorageError("Unavailable", "", "etcd closed the watch stream")));
    this.stream.write({
      create_request: { ...spec.range, start_revision: spec.afterRevision + 1, prev_kv: true, progress_notify: true },
    });
  }

  /** Resolves with a revision up to which every event has been delivered. */
  async progress(): Promise<number> {
    if (!this.spec.orderedProgress) {
      // etcd before 3.4.31 / 3.5.13 answers a progress request at once, even while a new watch
      // is still catching up (its sync loop runs every 100 ms) and possibly ahead of events
      // already queued (etcd#15220). Ask only once the watch has had time to catch up, and take
      // the first answer after a second round trip has let the queued events out.
      const wait = this.createdAt + legacyCatchUpMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const rev = await this.requestProgress();
      await this.requestProgress();
      return rev;
    }
    return this.requestProgress();
  }

  private requestProgress(): Promise<number> {
    if (this.done) return Promise.reject(new StorageError("Closed", "", "watch ended"));
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.stream.write({ progress_request: {} });
    });
  }

  /** Wait (at most timeoutMs) until every event up to `rev` has been delivered. */
  async drainTo(rev: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.done && this.delivered < rev && Date.now() < deadline) {
      await Promise.race([this.progress(), new Promise((r) => setTimeout(r, Math.max(1, deadline - Date.now())).unref())]).catch(() => {});
    }
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.rejectWaiters(new StorageError("Closed", "", "watch stopped"));
    this.stream.cancel();
  }

  /** End with `err` (the store closing). */
  end(err: Error): void {
    this.fail(err);
  }

  private receive(res: RawWatchResponse): void {
    if (this.done) return;
    if (res.compact_revision > 0) return this.fail(this.spec.onCompacted(res.compact_revision));
    if (res.canceled) return this.fail(new StorageError("Unavailable", "", `etcd cancelled the watch: ${res.cancel_reason || "no reason given"}`));
    if (res.created) return;
    if (res.events.length === 0) {
      // A progress notification: no event up to the header's revision is still to come.
      const rev = res.header.revision;
      if (rev > this.delivered) this.delivered = rev;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w.resolve(this.delivered);
      return;
    }
    // The writes of one etcd transaction share a revision and arrive in one response together.
    const floor = this.delivered;
    try {
      for (const ev of res.events) {
        const converted = this.convert(ev);
        if (converted.revision <= floor) continue;
        this.delivered = converted.revision;
        this.spec.onEvent(converted);
        if (this.done) return;
      }
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private convert(ev: RawWatchResponse["events"][number]): WatchEvent {
    const prevKv = ev.prev_kv ? this.spec.toKeyValue(ev.prev_kv) : undefined;
    const revision = ev.kv.mod_revision;
    if (ev.type === "PUT") return { type: "put", kv: this.spec.toKeyValue(ev.kv), prevKv, revision };
    // etcd's delete event has only the key and the deleting revision; the object is prev_kv.
    const gone = this.spec.toKeyValue(ev.kv);
    const kv = prevKv ? { ...prevKv, modRevision: revision } : { ...gone, createRevision: 0, modRevision: revision };
    return { type: "delete", kv, prevKv, revision };
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.rejectWaiters(err);
    this.stream.cancel();
    this.spec.onError(err);
  }

  private rejectWaiters(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}
