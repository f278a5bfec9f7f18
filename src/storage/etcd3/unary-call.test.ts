// Unary calls made straight on the channel (unary-call.ts) through EtcdClient, against a real
// etcd: answers decoded, etcd's refusals and the deadline reported as grpc-js's Client reported
// them (the code and details EtcdCallError words kube-apiserver's errors from).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { etcdSkipReason, freePort, startEtcd, type EtcdProcess } from "../../../test/support/etcd.js";
import { EtcdCallError } from "./call-error.js";
import { EtcdClient } from "./client.js";

if (etcdSkipReason) {
  describe("etcd unary calls", () => it.skip(`skipped: ${etcdSkipReason}`, () => {}));
} else {
  let etcd: EtcdProcess;
  let client: EtcdClient;
  beforeAll(async () => {
    etcd = await startEtcd();
    client = new EtcdClient({ endpoints: [etcd.url], callTimeoutMs: 5000 });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await etcd?.cleanup();
  });

  describe("etcd unary calls", () => {
    it("decode etcd's answers: a create transaction, then a read of the key at its revision", async () => {
      const key = Buffer.from("/unary/a");
      const txn = { compare: [{ key, target: "CREATE", result: "EQUAL", create_revision: 0 }], success: [{ request_put: { key, value: Buffer.from("v1") } }] };
      const created = await client.txn(txn);
      expect(created.succeeded).toBe(true);
      const again = await client.txn(txn);
      expect(again.succeeded).toBe(false);
      expect(again.header.revision).toBe(created.header.revision);
      const read = await client.range({ key, revision: created.header.revision });
      expect(read.kvs.map((kv) => [kv.key.toString(), kv.value.toString(), kv.create_revision, kv.mod_revision])).toEqual([["/unary/a", "v1", created.header.revision, created.header.revision]]);
    });

    it("report etcd's refusal with its gRPC code and etcd's own text", async () => {
      const key = Buffer.from("/unary/b");
      const first = await client.txn({ success: [{ request_put: { key, value: Buffer.from("1") } }] });
      await client.txn({ success: [{ request_put: { key, value: Buffer.from("2") } }] });
      await client.compact(first.header.revision + 1);
      const err = await client.range({ key, revision: first.header.revision }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EtcdCallError);
      expect((err as EtcdCallError).code).toBe(grpc.status.OUT_OF_RANGE);
      expect((err as EtcdCallError).message).toBe("etcdserver: mvcc: required revision has been compacted");
    });

    it("wait for a member that does not answer until the deadline, then fail as the Go client's context does", async () => {
      const nobody = new EtcdClient({ endpoints: [`http://127.0.0.1:${await freePort()}`], callTimeoutMs: 400 });
      try {
        const started = performance.now();
        const err = await nobody.txn({ success: [{ request_put: { key: Buffer.from("/unary/c"), value: Buffer.from("x") } }] }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(EtcdCallError);
        expect((err as EtcdCallError).timedOut).toBe(true);
        expect((err as EtcdCallError).message).toBe("context deadline exceeded");
        // Waited for a connection (wait-for-ready) rather than failing at the first refusal.
        expect(performance.now() - started).toBeGreaterThanOrEqual(350);
      } finally {
        nobody.close();
      }
    });
  });
}
