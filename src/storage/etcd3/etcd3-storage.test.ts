import { afterAll, beforeAll, describe, it } from "vitest";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "../../../test/support/etcd.js";
import { runCachedStorageConformance } from "../cacher/cached-storage.testkit.js";
import { runStorageConformance } from "../conformance.testkit.js";
import { etcd3Harness } from "./etcd3-harness.testkit.js";

let etcd: EtcdProcess | undefined;
const harness = etcd3Harness(() => etcd!.url);

if (etcdSkipReason) {
  describe("Storage conformance: etcd3", () => {
    it.skip(`skipped: ${etcdSkipReason}`, () => {});
  });
} else {
  beforeAll(async () => {
    etcd = await startEtcd();
  }, 30_000);
  afterAll(async () => {
    await etcd?.cleanup();
  });
  const etcdCapabilities = { unorderedConcurrentWrites: true, transactionSharesRevision: true };
  runStorageConformance("etcd3", harness, { ownEventWindow: false, ...etcdCapabilities });
  runCachedStorageConformance("etcd3", harness, etcdCapabilities);
}
