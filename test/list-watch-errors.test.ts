// WATCH errors: 410 Expired inside the stream for a version older than the history, 504 for a
// version the server does not have yet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, watchEvents } from "./support/client.js";
import { cm, create, mkns, sleep, startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
let tiny: PartsServer;
beforeAll(async () => void ([s, tiny] = await Promise.all([startTuned(), startTuned({ storageHistoryWindowMs: 200 })])));
afterAll(async () => Promise.all([s?.stop(), tiny?.stop()]));

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
