// Periodic compaction of etcd's history, kube-apiserver's way, so that several servers on one
// etcd compact once per interval between them: every interval, a transaction puts the revision
// seen at the previous interval into the shared key `compact_rev_key`, on condition that the
// key's version is still the one this server last saw. The server whose transaction succeeds
// compacts to that revision; the others learn the key's new version and try again next time.
// History is therefore kept for between one and two intervals.
import type { EtcdClient } from "./client.js";

/** The key every kube-apiserver (and kapi) on an etcd cluster shares, outside any prefix. */
export const compactRevKey = Buffer.from("compact_rev_key");

export class Compactor {
  private timer: NodeJS.Timeout | undefined;
  /** The version of compact_rev_key this server expects (0: not seen yet). */
  private version = 0;
  /** The revision current at the previous interval: the next compaction target. */
  private revision = 0;
  private running = false;

  constructor(
    private readonly client: EtcdClient,
    private readonly intervalMs: number,
    private readonly compacted: (revision: number) => void,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One interval's step; failures (etcd away) are retried at the next interval. */
  async tick(): Promise<void> {
    if (this.running || !this.timer) return;
    this.running = true;
    try {
      const target = this.revision;
      const r = await this.client.txn({
        compare: [{ key: compactRevKey, target: "VERSION", result: "EQUAL", version: this.version }],
        success: [{ request_put: { key: compactRevKey, value: Buffer.from(String(target)) } }],
        failure: [{ request_range: { key: compactRevKey } }],
      });
      this.revision = r.header.revision;
      if (!r.succeeded) {
        this.version = r.responses[0]?.response_range?.kvs[0]?.version ?? 0;
        return;
      }
      this.version++;
      if (target === 0 || !this.timer) return;
      await this.client.compact(target);
      this.compacted(target);
    } catch {
      // etcd unreachable, or compacted further by hand: the next interval tries again.
    } finally {
      this.running = false;
    }
  }
}
