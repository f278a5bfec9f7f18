// Streaming lists (WATCH with sendInitialEvents) behind the WatchList gate — against a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, watchEvents } from "./support/client.js";
import { cm, create, mkns, startTuned, summary, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
let gated: PartsServer;
beforeAll(async () => void ([s, gated] = await Promise.all([startTuned(), startTuned({ featureGates: "WatchList=true" })])));
afterAll(async () => Promise.all([s?.stop(), gated?.stop()]));

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
    await p.opened;
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
    await p.opened;
    await create(gated, "sl", cm("d"));
    expect(summary(await p)).toEqual(["ADDED d"]);
  });
});
