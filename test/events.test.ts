// Events end to end: core/v1 and events.k8s.io/v1 are one stored kind served in two shapes (the
// spec's field mapping), with upstream's validation for each version and core's field selectors
// for both; --event-ttl deletes them (a DELETED event for watchers) on memory, SQLite and a real
// etcd, each write restarting the time, and on SQLite an event's updates leave no history behind.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultOptions } from "../src/server/options.js";
import { newStyleEvent, oldStyleEvent } from "../src/types/event.testkit.js";
import { sqliteDriver } from "../src/storage/sqlite/drivers.js";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const coreEvents = (ns: string) => `/api/v1/namespaces/${ns}/events`;
const v1Events = (ns: string) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;

function clients(s: EmbeddedTestServer) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), events: kc.makeApiClient(k8s.EventsV1Api) };
}

const v1Event = (name: string, extra: Record<string, unknown> = {}) => ({ ...newStyleEvent(name, "ev"), ...extra });
const coreEvent = (name: string, about = "ev") => ({ ...oldStyleEvent(name, about), metadata: { name } });

describe("core/v1 and events.k8s.io/v1 Events over one storage", () => {
  let s: EmbeddedTestServer;
  let api: ReturnType<typeof clients>;
  beforeAll(async () => {
    s = await startTestServer();
    api = clients(s);
    await api.core.createNamespace({ body: { metadata: { name: "ev" } } });
  });
  afterAll(async () => s?.stop());

  it("serves an event written through core/v1 as events.k8s.io/v1, with the spec's field mapping", async () => {
    const written = await api.core.createNamespacedEvent({ namespace: "ev", body: coreEvent("backoff") as unknown as k8s.CoreV1Event });
    const read = await api.events.readNamespacedEvent({ namespace: "ev", name: "backoff" });
    expect(read.metadata!.uid).toBe(written.metadata!.uid);
    expect(read.metadata!.resourceVersion).toBe(written.metadata!.resourceVersion);
    expect(read.regarding).toEqual({ kind: "Pod", namespace: "ev", name: "web-1", apiVersion: "v1" });
    expect(read.note).toBe("Back-off restarting failed container");
    expect(read.deprecatedSource).toEqual({ component: "kubelet", host: "node-1" });
    expect(read.deprecatedCount).toBe(4);
    expect(read.deprecatedFirstTimestamp).toEqual(new Date("2025-01-01T00:00:00Z"));
    expect(read.deprecatedLastTimestamp).toEqual(new Date("2025-01-01T00:05:00Z"));
    const raw = await req(s, "GET", `${v1Events("ev")}/backoff`);
    expect(raw.json).toMatchObject({ kind: "Event", apiVersion: "events.k8s.io/v1", eventTime: null, reason: "BackOff", type: "Warning" });
    for (const coreName of ["involvedObject", "message", "source", "count", "firstTimestamp", "reportingComponent"]) expect(raw.json).not.toHaveProperty(coreName);
  });

  it("serves an event written through events.k8s.io/v1 as core/v1", async () => {
    await api.events.createNamespacedEvent({ namespace: "ev", body: v1Event("synced") as unknown as k8s.EventsV1Event });
    const read = await api.core.readNamespacedEvent({ namespace: "ev", name: "synced" });
    expect(read.involvedObject).toEqual({ kind: "Deployment", namespace: "ev", name: "web", apiVersion: "apps/v1" });
    expect(read.message).toBe("synced");
    expect(read.reportingComponent).toBe("example.com/controller");
    expect(read.reportingInstance).toBe("controller-0");
    expect(read.action).toBe("Reconcile");
    expect(read.eventTime).toBe("2025-01-01T00:00:00.000000Z"); // a MicroTime: client-node keeps the text
    const raw = await req(s, "GET", `${coreEvents("ev")}/synced`);
    expect(raw.json).toMatchObject({ source: {}, firstTimestamp: null, lastTimestamp: null });
  });

  it("lists both in both versions, and selects on core's field names in both", async () => {
    expect((await api.core.listNamespacedEvent({ namespace: "ev" })).items.map((e) => e.metadata!.name).sort()).toEqual(["backoff", "synced"]);
    expect((await api.events.listNamespacedEvent({ namespace: "ev" })).items.map((e) => e.metadata!.name).sort()).toEqual(["backoff", "synced"]);
    const byObject = await api.events.listNamespacedEvent({ namespace: "ev", fieldSelector: "involvedObject.name=web" });
    expect(byObject.items.map((e) => e.metadata!.name)).toEqual(["synced"]);
    // source falls back to the reporting controller (upstream's selectable fields).
    const bySource = await req(s, "GET", `${coreEvents("ev")}?fieldSelector=source%3Dexample.com%2Fcontroller`);
    expect(bySource.json.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual(["synced"]);
    const renamed = await req(s, "GET", `${v1Events("ev")}?fieldSelector=regarding.name%3Dweb`);
    expect(renamed.status).toBe(400);
    expect(renamed.json.message).toBe("field label not supported: regarding.name");
  });

  it("shows a watch through events.k8s.io/v1 the events written through core/v1", async () => {
    const w = watchEvents(s, `${v1Events("ev")}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dwatched`, (evs) => evs.length >= 1);
    await w.opened;
    await api.core.createNamespacedEvent({ namespace: "ev", body: coreEvent("watched") as unknown as k8s.CoreV1Event });
    const [ev] = await w;
    expect(ev.type).toBe("ADDED");
    expect(ev.object).toMatchObject({ apiVersion: "events.k8s.io/v1", metadata: { name: "watched" }, regarding: { name: "web-1" }, note: "Back-off restarting failed container" });
  });

  it("validates events.k8s.io/v1 writes strictly and core/v1 ones as upstream's legacy rules", async () => {
    const bad = await req(s, "POST", v1Events("ev"), { body: { ...v1Event("bad"), eventTime: undefined, type: "Bogus", deprecatedCount: 2 } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe('Event.events.k8s.io "bad" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Bogus, count: Invalid value: "": needs to be unset]');
    // With an eventTime, the reporter and action are asked for (paths are upstream's internal names).
    const unnamed = await req(s, "POST", v1Events("ev"), { body: { ...v1Event("unnamed"), reportingController: undefined, action: undefined } });
    expect(unnamed.status).toBe(422);
    expect(unnamed.json.message).toContain("[reportingController: Required value, ");
    expect(unnamed.json.message).toContain(", action: Required value]");
    // Through core/v1 an old-style event needs no reporter; a new-style one does.
    expect((await req(s, "POST", coreEvents("ev"), { body: coreEvent("legacy-ok") })).status).toBe(201);
    const elsewhere = await req(s, "POST", coreEvents("ev"), { body: coreEvent("elsewhere", "other") });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json.message).toContain('involvedObject.namespace: Invalid value: "other": does not match event.namespace');
  });

  it("lets an update through events.k8s.io/v1 change the series only, while core/v1 may change the rest", async () => {
    const path = `${v1Events("ev")}/synced`;
    const series = await req(s, "PATCH", path, { body: { series: { count: 2, lastObservedTime: "2025-01-01T00:01:00.000000Z" } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(series.status).toBe(200);
    expect(series.json.series).toEqual({ count: 2, lastObservedTime: "2025-01-01T00:01:00.000000Z" });
    const note = await req(s, "PATCH", path, { body: { note: "changed" }, headers: { "content-type": "application/merge-patch+json" } });
    expect(note.status).toBe(422);
    expect(note.json.message).toBe('Event.events.k8s.io "synced" is invalid: message: Invalid value: "changed": field is immutable');
    const core = await req(s, "PATCH", `${coreEvents("ev")}/synced`, { body: { message: "changed" }, headers: { "content-type": "application/merge-patch+json" } });
    expect(core.status).toBe(200);
    expect((await api.events.readNamespacedEvent({ namespace: "ev", name: "synced" })).note).toBe("changed");
  });

  it("prints both through kubectl", async () => {
    if (!kubectlBin) return;
    const file = join(mkdtempSync(join(tmpdir(), "kapi-events-")), "kubeconfig");
    writeFileSync(file, s.kubeconfig);
    const core = await kubectl(kubectlBin, file, ["get", "events", "-n", "ev", "-o", "name"]);
    expect(core.code, core.stderr).toBe(0);
    expect(core.stdout.split("\n").filter(Boolean).sort()).toEqual(["event/backoff", "event/legacy-ok", "event/synced", "event/watched"]);
    const v1 = await kubectl(kubectlBin, file, ["get", "events.v1.events.k8s.io", "-n", "ev", "--field-selector", "involvedObject.kind=Deployment"]);
    expect(v1.code, v1.stderr).toBe(0);
    expect(v1.stdout).toMatch(/Normal +Synced +deployment\/web +changed/);
    expect(v1.stdout).not.toMatch(/BackOff/);
  });
});

/** Starts a server on `backend` whose events last 2 s. */
type Backend = { name: string; start: () => Promise<EmbeddedTestServer>; dataDir?: string };

let etcd: EtcdProcess | undefined;
const sqliteDir = mkdtempSync(join(tmpdir(), "kapi-events-sqlite-"));
const backends: Backend[] = [
  { name: "memory", start: () => startTestServer({ options: { eventTtlSeconds: 2 } }) },
  { name: "sqlite", dataDir: sqliteDir, start: () => startTestServer({ storage: "sqlite", dataDir: sqliteDir, options: { eventTtlSeconds: 2 } }) },
  ...(etcdSkipReason
    ? []
    : [
        {
          name: "etcd3",
          start: async () => {
            etcd ??= await startEtcd();
            const defaults = defaultOptions();
            return startTestServer({ storage: "etcd3", options: { eventTtlSeconds: 2, etcdServers: [etcd.url], etcd: { ...defaults.etcd, prefix: "/kapi-events" } } });
          },
        },
      ]),
];
afterAll(async () => etcd?.cleanup());
if (etcdSkipReason) describe(`--event-ttl on etcd3 (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

for (const b of backends) {
  describe(`--event-ttl on ${b.name}`, () => {
    let s: EmbeddedTestServer;
    beforeAll(async () => {
      s = await b.start();
      await clients(s).core.createNamespace({ body: { metadata: { name: "ev" } } });
    }, 60_000);
    afterAll(async () => s?.stop());

    it("deletes events the TTL after their last write, with a DELETED event, and leaves other objects", async () => {
      const deletedAt = new Map<string, number>();
      const w = watchEvents(s, `${coreEvents("ev")}?watch=true`, (evs) => {
        for (const e of evs) if (e.type === "DELETED" && !deletedAt.has(e.object.metadata.name)) deletedAt.set(e.object.metadata.name, Date.now());
        return deletedAt.size === 3;
      }, 20_000);
      await w.opened;
      const written = new Map<string, number>();
      const create = async (path: string, body: object, name: string) => {
        expect((await req(s, "POST", path, { body })).status).toBe(201);
        written.set(name, Date.now());
      };
      await create(coreEvents("ev"), coreEvent("core-event"), "core-event");
      await create(v1Events("ev"), v1Event("v1-event"), "v1-event");
      await create(coreEvents("ev"), coreEvent("touched"), "touched");
      expect((await req(s, "POST", "/api/v1/namespaces/ev/configmaps", { body: { metadata: { name: "stays" } } })).status).toBe(201);
      // A second write a second later starts the event's time again.
      await new Promise((r) => setTimeout(r, 1000));
      expect((await req(s, "PATCH", `${coreEvents("ev")}/touched`, { body: { count: 5 }, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
      written.set("touched", Date.now());
      await w;
      expect([...deletedAt.keys()].sort()).toEqual(["core-event", "touched", "v1-event"]);
      for (const [name, at] of deletedAt) expect(at - written.get(name)!, name).toBeGreaterThanOrEqual(1900);
      for (const path of [`${coreEvents("ev")}/core-event`, `${v1Events("ev")}/v1-event`]) expect((await req(s, "GET", path)).status).toBe(404);
      expect((await req(s, "GET", "/api/v1/namespaces/ev/configmaps/stays")).status).toBe(200);
    });

    if (b.dataDir) {
      it("leaves no history of an event's updates in the store: one row while it lives, its deletion row once expired", async () => {
        expect((await req(s, "POST", coreEvents("ev"), { body: coreEvent("busy") })).status).toBe(201);
        for (let i = 5; i < 15; i++) {
          expect((await req(s, "PATCH", `${coreEvents("ev")}/busy`, { body: { count: i }, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
        }
        const rows = () => {
          const db = sqliteDriver().open(join(b.dataDir!, "kapi.db"), { readonly: true });
          try {
            return db.prepare("SELECT deleted FROM log WHERE key = '/registry/events/ev/busy'").all().map((r) => (r as { deleted: number }).deleted);
          } finally {
            db.close();
          }
        };
        expect(rows()).toEqual([0]);
        const w = watchEvents(s, `${coreEvents("ev")}?watch=true&fieldSelector=metadata.name%3Dbusy`, (evs) => evs.some((e) => e.type === "DELETED"), 20_000);
        await w;
        expect(rows()).toEqual([1]);
      });
    }
  });
}
