// The soak's record of what happened: every write etcd applied under the watched key prefix, in
// revision order, read from etcd itself through its own watch (kept open for the whole run: etcd
// is never killed, and a watch already running is not affected by compaction).
import { EtcdClient, type RawWatchResponse, type WatchStream } from "../../src/storage/etcd3/client.js";

/** One write under the prefix as etcd recorded it. */
export interface StoredEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  name: string;
  /** The write's revision (the object's resourceVersion after it; for a delete, the deleting revision). */
  rev: number;
  /** The revision of the value it replaced (0 for a create). */
  prevRev: number;
  /** The writer's sequence number carried in the value (undefined for a delete). */
  seq: number | undefined;
}

export class EtcdHistory {
  readonly events: StoredEvent[] = [];
  private readonly client: EtcdClient;
  private stream: WatchStream | undefined;
  failure: string | undefined;
  private stopped = false;

  constructor(
    endpoint: string,
    /** The etcd key prefix of the watched objects, e.g. "/registry/configmaps/soak/". */
    private readonly prefix: string,
    private readonly seqOf: (value: string) => number | undefined,
  ) {
    this.client = new EtcdClient({ endpoints: [endpoint], callTimeoutMs: 10_000 });
  }

  /** Starts recording after the current revision; resolves once etcd has created the watch. */
  async start(): Promise<number> {
    const rev = (await this.client.status()).header.revision;
    const key = Buffer.from(this.prefix);
    const end = Buffer.from(this.prefix);
    end[end.length - 1]!++;
    this.stream = this.client.watchStream()!.stream;
    return new Promise((resolve, reject) => {
      this.stream!.on("data", (res: RawWatchResponse) => {
        if (res.created) return resolve(rev);
        if (res.canceled || res.compact_revision > 0) this.failure ??= `etcd ended the history watch: ${res.cancel_reason || `compacted at ${res.compact_revision}`}`;
        for (const ev of res.events) this.record(ev);
      });
      this.stream!.on("error", (e: Error) => {
        if (this.stopped) return;
        this.failure ??= `history watch failed: ${e.message}`;
        reject(e);
      });
      this.stream!.write({ create_request: { key, range_end: end, start_revision: rev + 1, prev_kv: true } });
    });
  }

  /** The newest revision recorded. */
  get revision(): number {
    return this.events.at(-1)?.rev ?? 0;
  }

  stop(): void {
    this.stopped = true;
    this.stream?.cancel();
    this.client.close();
  }

  private record(ev: RawWatchResponse["events"][number]): void {
    const name = ev.kv.key.toString("utf8").slice(this.prefix.length);
    const rev = ev.kv.mod_revision;
    if (ev.type === "DELETE") {
      this.events.push({ type: "DELETED", name, rev, prevRev: ev.prev_kv?.mod_revision ?? 0, seq: undefined });
      return;
    }
    const type = ev.kv.create_revision === rev ? "ADDED" : "MODIFIED";
    this.events.push({ type, name, rev, prevRev: ev.prev_kv?.mod_revision ?? 0, seq: this.seqOf(ev.kv.value.toString("utf8")) });
  }
}
