// EtcdWatch against a scripted watch stream: how progress is established on an etcd that answers
// progress requests out of order (before 3.4.31/3.5.13), and what happens to an event that
// arrives behind a revision already reported complete.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { KeyValue, WatchEvent } from "../interface.js";
import type { EtcdClient, RawKeyValue, RawWatchResponse } from "./client.js";
import { EtcdWatch } from "./etcd-watch.js";

class ScriptedStream extends EventEmitter {
  readonly written: object[] = [];
  write(req: object): boolean {
    this.written.push(req);
    return true;
  }
  cancel(): void {}
  send(res: Partial<RawWatchResponse>): void {
    this.emit("data", { header: { revision: 0, member_id: 1 }, watch_id: 0, created: false, canceled: false, compact_revision: 0, cancel_reason: "", events: [], ...res });
  }
}

/** etcd's state under the watched range: key → [create_revision, mod_revision], by revision. */
class FakeEtcd {
  revision = 0;
  private readonly history: { rev: number; key: string; deleted: boolean; created: number }[] = [];

  put(key: string): RawWatchResponse["events"][number] {
    const rev = ++this.revision;
    const cur = this.at(rev - 1).get(key);
    const created = cur ? cur[0] : rev;
    this.history.push({ rev, key, deleted: false, created });
    return { type: "PUT", kv: raw(key, created, rev) };
  }

  delete(key: string): RawWatchResponse["events"][number] {
    const rev = ++this.revision;
    const cur = this.at(rev - 1).get(key)!;
    this.history.push({ rev, key, deleted: true, created: cur[0] });
    return { type: "DELETE", kv: raw(key, 0, rev), prev_kv: raw(key, cur[0], cur[1]) };
  }

  at(rev: number): Map<string, [number, number]> {
    const m = new Map<string, [number, number]>();
    for (const h of this.history) {
      if (h.rev > rev) break;
      if (h.deleted) m.delete(h.key);
      else m.set(h.key, [h.created, h.rev]);
    }
    return m;
  }

  readonly count = async ({ revision = 0, minModRevision = 0 }) => {
    const state = [...this.at(revision || this.revision).values()];
    return { count: state.filter(([, mod]) => mod >= minModRevision).length, revision: revision || this.revision };
  };
}

function raw(key: string, create: number, mod: number): RawKeyValue {
  return { key: Buffer.from(key), value: Buffer.from("v"), create_revision: create, mod_revision: mod, version: 1 };
}

function open(etcd: FakeEtcd, orderedProgress: boolean, afterRevision = 0, currentRevision = async () => etcd.revision) {
  const stream = new ScriptedStream();
  const client = { watchStream: () => ({ stream, endpoint: "scripted" }), endpointCount: 1 } as unknown as EtcdClient;
  const events: WatchEvent[] = [];
  const errors: Error[] = [];
  const w = new EtcdWatch(client, {
    range: { key: Buffer.from("/"), range_end: Buffer.from("0") },
    afterRevision,
    orderedProgress,
    count: etcd.count,
    currentRevision,
    toKeyValue: (kv): KeyValue => ({ key: kv.key.toString(), value: kv.value.toString(), createRevision: kv.create_revision, modRevision: kv.mod_revision }),
    onEvent: (ev) => events.push(ev),
    onError: (err) => errors.push(err),
    onCompacted: () => new Error("compacted"),
  });
  return { w, stream, events, errors };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("EtcdWatch progress on an etcd that answers progress requests out of order", () => {
  it("reports a revision only once the events up to it have been delivered", async () => {
    const etcd = new FakeEtcd();
    const evs = [etcd.put("/a"), etcd.put("/b"), etcd.put("/a"), etcd.delete("/b")];
    const { w, stream, events } = open(etcd, false);
    let reported: number | undefined;
    void w.progress().then((rev) => (reported = rev));
    // No progress request goes out: its answer would be etcd's revision, whatever was sent.
    await new Promise((r) => setTimeout(r, 120));
    expect(stream.written.some((r) => "progress_request" in r)).toBe(false);
    expect(reported).toBeUndefined();
    stream.send({ events: evs.slice(0, 3) });
    await new Promise((r) => setTimeout(r, 120));
    // Three of four delivered: the delete of /b is still to come.
    expect(reported).toBeUndefined();
    stream.send({ events: evs.slice(3) });
    await new Promise((r) => setTimeout(r, 120));
    expect(reported).toBe(4);
    expect(events.map((e) => e.revision)).toEqual([1, 2, 3, 4]);
  });

  it("reports etcd's revision at once on a quiet range, and never less than it when called", async () => {
    const etcd = new FakeEtcd();
    etcd.put("/a");
    const { w, stream } = open(etcd, false, 1);
    await tick();
    // Writes elsewhere move etcd's revision; nothing under the range changes.
    etcd.revision += 5;
    expect(await w.progress()).toBe(6);
    stream.send({ events: [etcd.put("/c")] });
    expect(await w.progress()).toBe(7);
  });

  it("on an etcd that answers in order, reports no less than etcd's revision when called, whatever notification comes first", async () => {
    const etcd = new FakeEtcd();
    const { w, stream, events } = open(etcd, true);
    await tick();
    // A write acknowledged before the call; its event is not on the watch stream yet.
    const write = etcd.put("/a");
    let reported: number | undefined;
    void w.progress().then((rev) => (reported = rev));
    await tick();
    expect(stream.written.filter((r) => "progress_request" in r)).toHaveLength(1);
    // A notification made before the write (an earlier request's answer, or etcd's periodic one).
    stream.send({ header: { revision: 0, member_id: 1 } });
    await tick();
    expect(reported).toBeUndefined();
    // The watch asks again; the event comes, then the answer.
    expect(stream.written.filter((r) => "progress_request" in r)).toHaveLength(2);
    stream.send({ events: [write] });
    stream.send({ header: { revision: 1, member_id: 1 } });
    await tick();
    expect(reported).toBe(1);
    expect(events.map((e) => e.revision)).toEqual([1]);
  });

  it("needs no count of the range once the watch has delivered etcd's revision (a quiet range)", async () => {
    const etcd = new FakeEtcd();
    etcd.put("/a");
    const counted: object[] = [];
    const count = etcd.count;
    (etcd as { count: FakeEtcd["count"] }).count = async (o) => (counted.push(o), count(o));
    const { w, stream } = open(etcd, false, 1);
    await tick();
    counted.length = 0;
    expect(await w.progress()).toBe(1);
    expect(counted).toEqual([]);
    // Behind etcd: counted, as before.
    const late = etcd.put("/b");
    const reported = w.progress();
    await new Promise((r) => setTimeout(r, 20));
    stream.send({ events: [late] });
    expect(await reported).toBe(2);
    expect(counted.length).toBeGreaterThan(0);
  });

  it("ends the watch when an event arrives behind a revision it reported complete, rather than drop it", async () => {
    const etcd = new FakeEtcd();
    const { stream, events, errors } = open(etcd, true);
    const late = etcd.put("/a");
    // An out-of-order progress answer (what etcd#15220 describes) ahead of the event.
    stream.send({ header: { revision: 1, member_id: 1 } });
    stream.send({ events: [late] });
    await tick();
    expect(events).toEqual([]);
    expect(errors[0]?.message).toMatch(/event at revision 1 arrived after revision 1 was reported complete/);
  });

  it("delivers the writes of one revision split over two responses", async () => {
    const etcd = new FakeEtcd();
    const { stream, events, errors } = open(etcd, true);
    const a = etcd.put("/a");
    const b = { ...etcd.put("/b") };
    b.kv = { ...b.kv, mod_revision: 1, create_revision: 1 };
    stream.send({ events: [a] });
    stream.send({ events: [b] });
    await tick();
    expect(errors).toEqual([]);
    expect(events.map((e) => `${e.revision} ${e.kv.key}`)).toEqual(["1 /a", "1 /b"]);
  });
});

describe("EtcdWatch.drainTo (a closing store waits for the events of its acknowledged writes)", () => {
  it("keeps receiving while a progress check fails, and returns once the events arrived", async () => {
    const etcd = new FakeEtcd();
    const evs = [etcd.put("/a"), etcd.put("/b")];
    // Every check fails, as reads may on a store being closed: only the stream can show progress.
    const { w, stream, events } = open(etcd, false, 0, () => Promise.reject(new Error("storage closed")));
    setTimeout(() => stream.send({ events: evs }), 30);
    const started = Date.now();
    await w.drainTo(2, 5000);
    expect(events.map((e) => e.revision)).toEqual([1, 2]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("gives up at its deadline when the events never come", async () => {
    const etcd = new FakeEtcd();
    etcd.put("/a");
    const { w, events } = open(etcd, false, 0, () => Promise.reject(new Error("storage closed")));
    const started = Date.now();
    await w.drainTo(1, 200);
    expect(events).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
