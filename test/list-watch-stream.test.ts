// WATCH: start semantics, selector transitions, bookmarks, timeouts and HTTP/2 multiplexing —
// against a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { h2session, req, watchEvents } from "./support/client.js";
import { cm, create, mkns, startTuned, summary, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
beforeAll(async () => void (s = await startTuned({ watchCache: { bookmarkIntervalMs: 150 } })));
afterAll(async () => s?.stop());

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
      await p.opened;
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
    await p.opened;
    await patch(s, "ws", "b", { data: { k: "b2" } });
    await patch(s, "ws", "a", { data: { k: "a2" } });
    expect(summary(await p)).toEqual(["MODIFIED a"]);
  });

  it("an object entering the selector is ADDED, leaving it is DELETED", async () => {
    const list = (await req(s, "GET", "/api/v1/namespaces/ws/configmaps")).json;
    const p = watchEvents(s, `/api/v1/namespaces/ws/configmaps?watch=1&labelSelector=tier%3Dweb&resourceVersion=${list.metadata.resourceVersion}`, (e) => e.length >= 3);
    await p.opened;
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

  it("a negative timeoutSeconds has run out already: the stream ends at once", async () => {
    const t0 = Date.now();
    await watchEvents(s, "/api/v1/namespaces/ws/configmaps?watch=1&resourceVersion=0&timeoutSeconds=-1", () => false, 5000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("an integer parameter strconv.ParseInt refuses is a 400 in its words", async () => {
    for (const [query, value, why] of [["timeoutSeconds", "soon", "invalid syntax"], ["limit", "1.5", "invalid syntax"], ["limit", "9223372036854775808", "value out of range"]]) {
      const r = await req(s, "GET", `/api/v1/namespaces/ws/configmaps?watch=1&${query}=${value}`);
      expect([r.status, r.json?.reason, r.json?.message], query).toEqual([400, "BadRequest", `strconv.ParseInt: parsing "${value}": ${why}`]);
    }
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
    // No wait for the streams to open: each watches from the list's resourceVersion, so it is sent every later change.
    for (const n of ["x", "y", "z"]) await create(s, "h2", cm(n));
    await done;
    session.close();
    for (const names of got) expect(names).toEqual(["x", "y", "z"]);
  });
});
