// A failed etcd call reads as kube-apiserver's etcd client error: etcd's own errors by their
// description, a connection lost under a call as grpc-go words it, a deadline as the context's.
// The last test loses a real member under a write: etcd stopped (SIGSTOP) with the write sent,
// then killed.
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { etcdSkipReason, startEtcd } from "../../../test/support/etcd.js";
import { StorageError } from "../interface.js";
import { goClientMessage } from "./call-error.js";
import { Etcd3Storage } from "./etcd3-storage.js";

describe("goClientMessage", () => {
  it("gives etcd's own errors by their description (clientv3's EtcdError)", () => {
    expect(goClientMessage(status.UNAVAILABLE, "etcdserver: request timed out, possibly due to previous leader failure", "127.0.0.1:2379")).toBe(
      "etcdserver: request timed out, possibly due to previous leader failure",
    );
    expect(goClientMessage(status.UNAVAILABLE, "etcdserver: leader changed", "127.0.0.1:2379")).toBe("etcdserver: leader changed");
  });

  it("words a connection lost under the call as grpc-go does: EOF when closed, the socket error when reset", () => {
    expect(goClientMessage(status.UNAVAILABLE, "Connection dropped", "127.0.0.1:2379")).toBe("rpc error: code = Unavailable desc = error reading from server: EOF");
    expect(goClientMessage(status.UNAVAILABLE, "read ECONNRESET", "127.0.0.1:2379")).toBe(
      "rpc error: code = Unavailable desc = error reading from server: read tcp 127.0.0.1:2379: read: connection reset by peer",
    );
    expect(goClientMessage(status.UNAVAILABLE, "No connection established", "127.0.0.1:2379")).toBe("rpc error: code = Unavailable desc = No connection established");
    expect(goClientMessage(status.RESOURCE_EXHAUSTED, "grpc: received message larger than max", "h:1")).toBe("rpc error: code = ResourceExhausted desc = grpc: received message larger than max");
  });

  it("gives a call that ran out of time the context's error", () => {
    expect(goClientMessage(status.DEADLINE_EXCEEDED, "Deadline exceeded after 1.001s", "h:1")).toBe("context deadline exceeded");
  });
});

describe.skipIf(etcdSkipReason)(`a write to a member that dies under it${etcdSkipReason ? ` (skipped: ${etcdSkipReason})` : ""}`, () => {
  it("fails Unavailable with the text kube-apiserver's client gives (not a timeout)", async () => {
    const etcd = await startEtcd();
    const s = await Etcd3Storage.open({ endpoints: [etcd.url], prefix: "/dying", keyRoot: "", callTimeoutMs: 20_000, compactionIntervalMs: 0 });
    try {
      await s.create("/k/before", "v");
      await etcd.pause();
      const started = Date.now();
      const write = s.create("/k/during", "v").then(
        () => undefined,
        (e: unknown) => e,
      );
      // The request goes out on the connection already up; the stopped etcd holds it unread.
      await new Promise((r) => setTimeout(r, 300));
      process.kill(etcd.pid(), "SIGKILL");
      const err = await write;
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).code).toBe("Unavailable");
      const address = etcd.url.replace(/^http:\/\//, "");
      // The kill resets the connection when the held request is still unread, and closes it
      // (EOF) when the kernel had nothing pending: grpc-go words both, and which one comes
      // depends on timing on a loaded machine.
      const lost = [`read tcp ${address}: read: connection reset by peer`, "EOF"].map((d) => `rpc error: code = Unavailable desc = error reading from server: ${d}`);
      expect(lost).toContain((err as StorageError).message);
      // Answered when the connection went, long before the call's deadline.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await s.close();
      await etcd.cleanup();
    }
  }, 60_000);
});
