// An etcd watch over a three-member cluster: when the member serving its stream is killed, the
// watch goes on from another member at the first revision it had not delivered, so its consumer
// sees every event once and in order; reads fail over too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etcdSkipReason, startEtcdCluster, type EtcdCluster } from "../../../test/support/etcd.js";
import { EtcdClient, type RawKeyValue } from "./client.js";
import { EtcdWatch } from "./etcd-watch.js";
import { rangeCount } from "./checked-progress.js";
import type { WatchEvent } from "../interface.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;

describeEtcd("EtcdWatch over an etcd cluster", () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await startEtcdCluster(3);
  }, 60_000);
  afterAll(async () => {
    await cluster?.cleanup();
  });

  it("kill -9 of the member serving the stream: the watch resumes on another member without gap or duplicate", async () => {
    const client = new EtcdClient({ endpoints: cluster.members.map((m) => m.url), callTimeoutMs: 10_000 });
    const key = (i: number) => Buffer.from(`/w/${String(i).padStart(3, "0")}`);
    const put = (i: number) => client.txn({ success: [{ request_put: { key: key(i), value: Buffer.from(String(i)) } }] }).then((r) => r.header.revision);
    const start = (await client.range({ key: Buffer.from("/w/") })).header.revision;
    const events: WatchEvent[] = [];
    const errors: Error[] = [];
    const resumed: string[] = [];
    const toKeyValue = (kv: RawKeyValue) => ({ key: kv.key.toString(), value: kv.value.toString(), createRevision: kv.create_revision, modRevision: kv.mod_revision });
    const range = { key: Buffer.from("/w/"), range_end: Buffer.from("/w0") };
    const watch = new EtcdWatch(client, {
      range,
      afterRevision: start,
      orderedProgress: false,
      count: rangeCount(range, (req) => client.range(req)),
      currentRevision: async () => (await client.range({ key: Buffer.from("/w-revision") })).header.revision,
      toKeyValue,
      onEvent: (ev) => events.push(ev),
      onError: (e) => errors.push(e),
      onCompacted: () => new Error("compacted"),
      onResumed: (endpoint) => resumed.push(endpoint),
    });
    try {
      const acked: number[] = [];
      for (let i = 0; i < 20; i++) acked.push(await put(i));
      const victim = cluster.members.find((m) => m.url === watch.endpoint)!;
      await cluster.kill(victim);
      for (let i = 20; i < 40; i++) {
        // A put in flight when the member went may fail; it is tried again (it may have landed).
        for (let tries = 0; ; tries++) {
          try {
            acked.push(await put(i));
            break;
          } catch (e) {
            if (tries > 50) throw e;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
      const deadline = Date.now() + 20_000;
      while (!acked.every((rev) => events.some((e) => e.revision === rev)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(errors).toEqual([]);
      expect(resumed).toHaveLength(1);
      expect(resumed[0]).not.toBe(victim.url);
      expect(watch.endpoint).toBe(resumed[0]);
      const revs = events.map((e) => e.revision);
      expect(revs).toEqual([...revs].sort((a, b) => a - b));
      expect(new Set(revs).size).toBe(revs.length);
      for (const rev of acked) expect(revs).toContain(rev);
      expect(new Set(events.map((e) => e.kv.key))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => key(i).toString())));
      // A progress request answered by the new member: every event up to its revision is in.
      expect(await watch.progress()).toBeGreaterThanOrEqual(revs.at(-1)!);
      // Reads go to the members still up.
      expect((await client.range({ key: Buffer.from("/w/"), range_end: Buffer.from("/w0"), count_only: true })).count).toBe(40);
    } finally {
      watch.stop();
      client.close();
    }
  }, 60_000);
});
