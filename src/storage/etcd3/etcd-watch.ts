// One etcd watch on its own gRPC stream: events under a key range from a revision on, each with
// the value it replaced (prev_kv), so a delete carries the object it removed. A stream whose
// member goes away is opened again on another member of the cluster from the first revision not
// yet delivered, as etcd's Go client resumes its watches, so the consumer sees nothing of it.
// When no other member answers (etcd gone), or etcd ends the watch itself (compaction past it,
// cancellation), the watch ends with an error once: the consumer relists and watches again, as
// kube-apiserver's watch cache does. progress() asks etcd for a progress notification, which
// tells how far the watch has got on a quiet range.
import { StorageError, type KeyValue, type WatchEvent } from "../interface.js";
import type { EtcdClient, OpenWatchStream, RawKeyValue, RawWatchResponse } from "./client.js";

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
  /** Told when the watch went on from another member (where, from which revision, why). */
  onResumed?: (endpoint: string, fromRevision: number, why: string) => void;
}

const legacyCatchUpMs = 250;

export class EtcdWatch {
  private open: OpenWatchStream;
  /** When the current stream was opened (it catches up from then on). */
  private openedAt = Date.now();
  private done = false;
  /** The newest revision whose events have all been delivered. */
  private delivered: number;
  private waiters: { resolve: (rev: number) => void; reject: (err: Error) => void }[] = [];
  /** Streams that failed since one last answered: past one per member, etcd is gone. */
  private failures = 0;

  constructor(
    private readonly client: EtcdClient,
    private readonly spec: EtcdWatchSpec,
  ) {
    this.delivered = spec.afterRevision;
    this.open = this.start(client.watchStream()!);
  }

  /** The member serving the watch now. */
  get endpoint(): string {
    return this.open.endpoint;
  }

  /** Attaches to `open` and asks it for the events after the last delivered revision. */
  private start(open: OpenWatchStream): OpenWatchStream {
    const { stream } = open;
    this.openedAt = Date.now();
    const current = () => this.open === open && !this.done;
    stream.on("data", (res: RawWatchResponse) => {
      if (current()) this.receive(res);
    });
    stream.on("error", (err: Error) => {
      if (current()) this.lost(`etcd watch failed: ${err.message}`);
    });
    stream.on("end", () => {
      if (current()) this.lost("etcd closed the watch stream");
    });
    stream.write({
      create_request: { ...this.spec.range, start_revision: this.delivered + 1, prev_kv: true, progress_notify: true },
    });
    return open;
  }

  /** The stream's member went away: go on from another, else end. */
  private lost(why: string): void {
    const from = this.open;
    const next = ++this.failures < this.client.endpointCount ? this.client.watchStream(from.endpoint) : undefined;
    if (!next) return this.fail(new StorageError("Unavailable", "", why));
    // Switched before the old stream is cancelled: what it still reports is no longer heard.
    this.open = this.start(next);
    from.stream.cancel();
    this.spec.onResumed?.(next.endpoint, this.delivered + 1, why);
    // Progress asked of the lost stream is asked again of this one, once it has caught up where
    // etcd may answer early (see progress()).
    const open = this.open;
    const ask = () => {
      if (this.open === open && !this.done && this.waiters.length > 0) open.stream.write({ progress_request: {} });
    };
    if (this.spec.orderedProgress) ask();
    else setTimeout(ask, legacyCatchUpMs).unref();
  }

  /** Resolves with a revision up to which every event has been delivered. */
  async progress(): Promise<number> {
    if (!this.spec.orderedProgress) {
      // etcd before 3.4.31 / 3.5.13 answers a progress request at once, even while a new watch
      // is still catching up (its sync loop runs every 100 ms) and possibly ahead of events
      // already queued (etcd#15220). Ask only once the watch has had time to catch up, and take
      // the first answer after a second round trip has let the queued events out.
      const wait = this.openedAt + legacyCatchUpMs - Date.now();
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
      this.open.stream.write({ progress_request: {} });
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
    this.open.stream.cancel();
  }

  /** End with `err` (the store closing). */
  end(err: Error): void {
    this.fail(err);
  }

  private receive(res: RawWatchResponse): void {
    if (this.done) return;
    this.failures = 0;
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
    this.open.stream.cancel();
    this.spec.onError(err);
  }

  private rejectWaiters(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}
