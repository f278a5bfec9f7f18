// One etcd watch on its own gRPC stream: events under a key range from a revision on, each with
// the value it replaced (prev_kv), so a delete carries the object it removed. A stream whose
// member goes away is opened again on another member of the cluster from the first revision not
// yet delivered, as etcd's Go client resumes its watches, so the consumer sees nothing of it.
// When no other member answers (etcd gone), or etcd ends the watch itself (compaction past it,
// cancellation), the watch ends with an error once: the consumer relists and watches again, as
// kube-apiserver's watch cache does. progress() tells how far the watch has got on a quiet range:
// a progress notification where etcd answers them in order with events, else a check against
// etcd's state (checked-progress.ts).
import { StorageError, type KeyValue, type WatchEvent } from "../interface.js";
import type { EtcdClient, OpenWatchStream, RawKeyValue, RawWatchResponse } from "./client.js";
import { checkedProgress, Rounds, type RangeCount } from "./checked-progress.js";

export interface EtcdWatchSpec {
  range: { key: Buffer; range_end: Buffer };
  afterRevision: number;
  toKeyValue: (kv: RawKeyValue) => KeyValue;
  onEvent: (ev: WatchEvent) => void;
  onError: (err: Error) => void;
  /** etcd answers progress requests in order with events, only once the watch has caught up (3.4.31+, 3.5.13+). */
  orderedProgress: boolean;
  /** Counts keys under the range (progress on an etcd that answers progress requests out of order). */
  count: RangeCount;
  /** etcd's current revision, read without walking the range (a single-key read's header). */
  currentRevision: () => Promise<number>;
  /** The error to end with when etcd has compacted past the watch (and learns the revision). */
  onCompacted: (compactRevision: number) => Error;
  /** Told of each progress notification (upstream's etcd bookmark count). */
  onProgressNotify?: () => void;
  /** Told when the watch went on from another member (where, from which revision, why). */
  onResumed?: (endpoint: string, fromRevision: number, why: string) => void;
}

/** How long drainTo waits before it checks progress again after a check failed. */
const drainRetryMs = 20;

export class EtcdWatch {
  private open: OpenWatchStream;
  private done = false;
  /** The newest revision whose events have all been delivered (events, or progress). */
  private delivered: number;
  /** The revision of the newest event delivered. */
  private lastEvent: number;
  private waiters: { resolve: (rev: number) => void; reject: (err: Error) => void }[] = [];
  /** Streams that failed since one last answered: past one per member, etcd is gone. */
  private failures = 0;
  /** Keys under the range at afterRevision (undefined until read), and created minus deleted since. */
  private baseKeys: number | undefined;
  private netCreated = 0;
  private settlers: (() => void)[] = [];
  /** Progress is established in rounds that every caller waiting for the next one shares. */
  private readonly checks = new Rounds(() => (this.spec.orderedProgress ? this.orderedProgress() : this.checkProgress()));

  constructor(
    private readonly client: EtcdClient,
    private readonly spec: EtcdWatchSpec,
  ) {
    this.delivered = spec.afterRevision;
    this.lastEvent = spec.afterRevision;
    if (!spec.orderedProgress) {
      // Nothing exists before revision 1 (and revision 0 would read the current state).
      if (spec.afterRevision === 0) this.baseKeys = 0;
      // Unreadable (compacted meanwhile): the check reads the count where the watch stands instead.
      else spec.count({ revision: spec.afterRevision }).then((r) => void (this.baseKeys = r.count), () => undefined);
    }
    this.open = this.start(client.watchStream()!);
  }

  /** The member serving the watch now. */
  get endpoint(): string {
    return this.open.endpoint;
  }

  /** Attaches to `open` and asks it for the events after the last delivered revision. */
  private start(open: OpenWatchStream): OpenWatchStream {
    const { stream } = open;
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
    // From the event after the last one delivered: a revision progress reported beyond it had
    // no events (or they arrive, and end the watch, as they would have on the lost stream).
    stream.write({
      create_request: { ...this.spec.range, start_revision: this.lastEvent + 1, prev_kv: true, progress_notify: true },
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
    this.spec.onResumed?.(next.endpoint, this.lastEvent + 1, why);
    // Progress asked of the lost stream is asked again of this one (checked progress asks no stream).
    if (this.waiters.length > 0) this.open.stream.write({ progress_request: {} });
  }

  /** Resolves with a revision up to which every event has been delivered (at least etcd's revision when called). */
  async progress(): Promise<number> {
    return this.checks.run();
  }

  /**
   * On an etcd that answers progress requests in order. A progress notification answers the
   * oldest request still open — or none, etcd's periodic one — so the first to arrive after a
   * call may have been made before a write the caller saw acknowledged (the write's answer and
   * the watch come on different streams): it proves nothing about etcd's revision at the call.
   * That revision is read first, then progress is asked for until the watch has delivered it (as
   * upstream's cacher reads the current revision before it waits for its watch cache).
   */
  private async orderedProgress(): Promise<number> {
    const target = await this.spec.currentRevision();
    while (this.delivered < target) await this.requestProgress();
    return this.delivered;
  }

  private async checkProgress(): Promise<number> {
    const rev = await checkedProgress(
      {
        delivered: () => this.delivered,
        liveKeys: () => (this.baseKeys === undefined ? undefined : this.baseKeys + this.netCreated),
        settle: (ms) =>
          new Promise<void>((resolve) => {
            this.settlers.push(resolve);
            setTimeout(resolve, ms).unref();
          }),
        checkLive: () => {
          if (this.done) throw new StorageError("Closed", "", "watch ended");
        },
      },
      this.spec.count,
      this.spec.currentRevision,
    );
    if (rev > this.delivered) this.delivered = rev;
    return this.delivered;
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
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => resolve(void (timedOut = true)), timeoutMs).unref();
    });
    const pause = () => new Promise<void>((resolve) => setTimeout(resolve, drainRetryMs).unref());
    try {
      while (!this.done && this.delivered < rev && !timedOut) {
        // A failed check is tried again after a pause: at once, the loop would run on promise
        // callbacks alone and starve the stream that carries the events it waits for.
        await Promise.race([this.progress().catch(pause), deadline]);
      }
    } finally {
      clearTimeout(timer);
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
      this.spec.onProgressNotify?.();
      const rev = res.header.revision;
      if (rev > this.delivered) this.delivered = rev;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w.resolve(this.delivered);
      return;
    }
    try {
      for (const ev of res.events) {
        const converted = this.convert(ev);
        const rev = converted.revision;
        // The writes of one etcd transaction share a revision (and may span responses). An event
        // older than one delivered, or than a revision progress reported complete, cannot be
        // passed on in order: end the watch so the consumer starts over, rather than drop it.
        if (rev < this.lastEvent || (rev > this.lastEvent && rev <= this.delivered)) {
          throw new StorageError("Unavailable", converted.kv.key, `etcd watch: an event at revision ${rev} arrived after revision ${this.delivered} was reported complete`);
        }
        this.lastEvent = rev;
        this.delivered = rev;
        if (ev.type === "DELETE") this.netCreated--;
        else if (ev.kv.create_revision === ev.kv.mod_revision) this.netCreated++;
        this.spec.onEvent(converted);
        if (this.done) return;
      }
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
    const settlers = this.settlers;
    this.settlers = [];
    for (const s of settlers) s();
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
