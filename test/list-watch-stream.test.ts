// WATCH: start semantics, selector transitions, bookmarks, timeouts, 410/504, streaming lists
// behind the WatchList gate, HTTP/2 multiplexing — against a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { h2session, req, watchEvents } from "./support/client.js";
import { cm, create, mkns, sleep, startTuned, type PartsServer } from "./list-watch-support.js";

let s: PartsServer;
let gated: PartsServer;
let tiny: PartsServer;

beforeAll(async () => {
  [s, gated, tiny] = await Promise.all([
    startTuned({ watchCache: { bookmarkIntervalMs: 150 } }),
    startTuned({ featureGates: "WatchList=true" }),
    startTuned({ storageHistoryWindowMs: 200 }),
  ]);
});
afterAll(async () => {
  await Promise.all([s?.stop(), gated?.stop(), tiny?.stop()]);
});

const summary = (evs: any[]) => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ""}`.trim());
const patch = (srv: PartsServer, ns: string, name: string, body: unknown) =>
  req(srv, "PATCH", `/api/v1/namespaces/${ns}/configmaps/${name}`, { body, headers: { "content-type": "application/merge-patch+json" } });

describe("watch start semantics", () => {
  beforeAll(async () => {
    await mkns(s, "ws");
    await create(s, "ws", cm("a"));
    await create(s, "ws", cm("b"));
  });

  for (const rv of ["", "0"]) {
    it(`resourceVersion "${rv}": synthetic ADDED for the state, then changes`, async () => {
      const name = `n${rv || "unset"}`;
      const p = watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=1${rv ? `&resourceVersion=${rv}` : ""}`, (e) => e.length >= 5);
      await sleep(150);
      await create(s, "ws", cm(name));
      await patch(s, "ws", name, { data: { k: "2" } });
      await req(s, "DELETE", `/api/v1/namespaces/ws/configmaps/${name}`);
      const evs = await p;
      expect(summary(evs)).toEqual(["ADDED a", "ADDED b", `ADDED ${name}`, `MODIFIED ${name}`, `DELETED ${name}`]);
      const rvs = evs.slice(2).map((e) => Number(e.object.metadata.resourceVersion));
      expect(rvs[1]).toBeGreaterThan(rvs[0]!);
      expect(rvs[2]).toBeGreaterThan(rvs[1]!);
    });
  }

  it("resourceVersion N: only changes after N, no synthetic events", async () => {
    const c = await create(s, "ws", cm("after1"));
    await create(s, "ws", cm("after2"));
    const evs = await watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=1&resourceVersion=${c.metadata.resourceVersion}`, (e) => e.length >= 1, 1500);
    expect(summary(evs)).toEqual(["ADDED after2"]);
  });

  it("a single object through fieldSelector=metadata.name", async () => {
    const list = (await req(s, "GET", "/api/v1/namespaces/ws/configmaps")).json;
    const p = watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=true&fieldSelector=metadata.name%3Da&resourceVersion=${list.metadata.resourceVersion}`, (e) => e.length >= 1);
    await sleep(100);
    await patch(s, "ws", "b", { data: { k: "b2" } });
    await patch(s, "ws", "a", { data: { k: "a2" } });
    expect(summary(await p)).toEqual(["MODIFIED a"]);
  });

  it("an object entering the selector is ADDED, leaving it is DELETED", async () => {
    const list = (await req(s, "GET", "/api/v1/namespaces/ws/configmaps")).json;
    const p = watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=1&labelSelector=tier%3Dweb&resourceVersion=${list.metadata.resourceVersion}`, (e) => e.length >= 3);
    await sleep(100);
    await create(s, "ws", cm("mover", { tier: "db" }));
    await patch(s, "ws", "mover", { metadata: { labels: { tier: "web" } } });
    await patch(s, "ws", "mover", { data: { k: "x" } });
    const left = await patch(s, "ws", "mover", { metadata: { labels: { tier: "db" } } });
    const evs = await p;
    expect(summary(evs)).toEqual(["ADDED mover", "MODIFIED mover", "DELETED mover"]);
    expect(evs[2].object.metadata.resourceVersion).toBe(left.json.metadata.resourceVersion);
    expect(evs[2].object.metadata.labels).toEqual({ tier: "web" }); // the last state it matched
  });

  it("allowWatchBookmarks: periodic BOOKMARK with only metadata.resourceVersion", async () => {
    const c = await create(s, "ws", cm("bm"));
    const evs = await watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${Number(c.metadata.resourceVersion) - 1}`, (e) => e.some((x) => x.type === "BOOKMARK"), 3000);
    expect(summary(evs)[0]).toBe("ADDED bm");
    const bm = evs.find((e) => e.type === "BOOKMARK");
    expect(bm.object).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: bm.object.metadata.resourceVersion } });
    expect(Number(bm.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(c.metadata.resourceVersion));
  });

  it("timeoutSeconds ends the stream", async () => {
    const t0 = Date.now();
    const evs = await watchEvents(s, "/api/v1/namespaces/ws/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1", () => false, 5000);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(evs.length).toBeGreaterThan(0);
  });
});

describe("watch errors", () => {
  it("a version older than the history: 200, then an ERROR event 410 Expired", async () => {
    await mkns(tiny, "old");
    const c = await create(tiny, "old", cm("x"));
    for (let i = 0; i < 3; i++) await create(tiny, "old", cm(`y${i}`));
    await sleep(600);
    await create(tiny, "old", cm("z"));
    const evs = await watchEvents(tiny, `/api/v1/namespaces/old/configmaps?watch=1&resourceVersion=${c.metadata.resourceVersion}`, () => false, 3000);
    expect(evs).toHaveLength(1);
    expect(evs[0].type).toBe("ERROR");
    expect(evs[0].object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
    expect(evs[0].object.message).toMatch(new RegExp(`^too old resource version: ${c.metadata.resourceVersion} \\(\\d+\\)$`));
  });

  it("a version newer than the server has: waits, then 504 with Retry-After", async () => {
    const t0 = Date.now();
    const r = await req(s, "GET", "/api/v1/namespaces/ws/configmaps?watch=1&resourceVersion=99999999");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2500);
    expect(r.status).toBe(504);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.json.message).toContain("Too large resource version");
  }, 10_000);
});

describe("streaming list (sendInitialEvents)", () => {
  const q = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";

  it("is 422 while the WatchList gate is off (its 1.34 default)", async () => {
    const r = await req(s, "GET", `/api/v1/namespaces/default/configmaps?${q}`);
    expect(r.status).toBe(422);
    expect(r.json.details.causes[0]).toMatchObject({ field: "sendInitialEvents", message: expect.stringContaining("WatchList feature gate") });
  });

  it("with the gate on: ADDED for the state, the initial-events-end BOOKMARK, then a normal watch", async () => {
    await mkns(gated, "sl");
    const a = await create(gated, "sl", cm("a"));
    await create(gated, "sl", cm("b"));
    const p = watchEvents(gated, `/api/v1/namespaces/sl/configmaps?${q}&resourceVersion=${a.metadata.resourceVersion}`, (e) => e.length >= 4);
    await sleep(150);
    await create(gated, "sl", cm("c"));
    const evs = await p;
    expect(summary(evs)).toEqual(["ADDED a", "ADDED b", "BOOKMARK", "ADDED c"]);
    expect(evs[2].object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
    expect(Number(evs[2].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(evs[1].object.metadata.resourceVersion));
    expect(Number(evs[3].object.metadata.resourceVersion)).toBeGreaterThan(Number(evs[2].object.metadata.resourceVersion));
  });

  it("requires resourceVersionMatch=NotOlderThan", async () => {
    const r = await req(gated, "GET", "/api/v1/namespaces/sl/configmaps?watch=1&sendInitialEvents=true");
    expect(r.status).toBe(422);
    expect(r.json.message).toContain("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  });

  it("sendInitialEvents=false with resourceVersion 0 starts at the current state without synthetic events", async () => {
    const p = watchEvents(gated, "/api/v1/namespaces/sl/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0", (e) => e.length >= 1);
    await sleep(150);
    await create(gated, "sl", cm("d"));
    expect(summary(await p)).toEqual(["ADDED d"]);
  });
});

describe("HTTP/2", () => {
  it("serves many watches multiplexed on one connection", async () => {
    await mkns(s, "h2");
    const list = (await req(s, "GET", "/api/v1/namespaces/h2/configmaps")).json;
    const session = h2session(s);
    const streams = 20;
    const got: string[][] = Array.from({ length: streams }, () => []);
    const done = Promise.all(
      got.map(
        (names) =>
          new Promise<void>((resolve, reject) => {
            const st = session.request({ ":path": `/api/v1/namespaces/h2/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}` });
            let buf = "";
            st.on("data", (c: Buffer) => {
              buf += c.toString();
              let nl;
              while ((nl = buf.indexOf("\n")) >= 0) {
                names.push(JSON.parse(buf.slice(0, nl)).object.metadata.name);
                buf = buf.slice(nl + 1);
              }
              if (names.length >= 3) {
                st.close();
                resolve();
              }
            });
            st.on("error", reject);
          }),
      ),
    );
    await sleep(200);
    for (const n of ["x", "y", "z"]) await create(s, "h2", cm(n));
    await done;
    session.close();
    for (const names of got) expect(names).toEqual(["x", "y", "z"]);
  });
});
