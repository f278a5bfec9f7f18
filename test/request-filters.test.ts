// The filter chain against a real server: the request deadline (`timeout` parameter → 504),
// errors in the encoding the client accepts, and max-in-flight (429) when priority and fairness is
// turned off (test/apf*.test.ts cover it on).
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { req, startTestServer, type TestServer } from "./support/client.js";

async function currentRevision(s: TestServer): Promise<number> {
  const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps");
  return Number(r.json.metadata.resourceVersion);
}

describe("request deadline and error encoding", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  it("answers 504 Timeout at the `timeout` deadline, before a wait for a future version ends", async () => {
    const future = (await currentRevision(s)) + 1000;
    const t0 = Date.now();
    const r = await req(s, "GET", `/api/v1/namespaces/default/configmaps/none?resourceVersion=${future}&timeout=1s`);
    const took = Date.now() - t0;
    expect(r.status).toBe(504);
    expect(r.json).toMatchObject({ status: "Failure", reason: "Timeout", code: 504, message: "Timeout: request did not complete within the allotted timeout" });
    // The storage wait alone would last 3 s and end in "Too large resource version".
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(2500);
    // The server goes on serving (the abandoned wait ended with the signal).
    expect((await req(s, "GET", "/api/v1/namespaces/default")).status).toBe(200);
  });

  it("refuses a `timeout` that is not a duration with 400", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps?timeout=5");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: "BadRequest", message: 'invalid timeout specified in the request URL - time: missing unit in duration "5"' });
  });

  it("writes an error as YAML when the client accepts YAML", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps/missing", { headers: { accept: "application/yaml" } });
    expect(r.status).toBe(404);
    expect(r.headers["content-type"]).toBe("application/yaml");
    expect(parse(r.text)).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", message: 'configmaps "missing" not found', code: 404 });
  });

  it("writes an error as JSON when the client accepts nothing served (the 406 itself)", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps/missing", { headers: { accept: "text/html" } });
    expect(r.status).toBe(406);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json).toMatchObject({ kind: "Status", reason: "NotAcceptable" });
  });
});

describe("max-in-flight with a limit of 1 (priority and fairness turned off)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ options: { maxRequestsInflight: 1, enablePriorityAndFairness: false } });
  });
  afterAll(async () => s?.stop());

  it("answers a second concurrent read 429 with Retry-After, exempting system:masters and watches", async () => {
    // An anonymous read that stays in flight: it waits for a version the store has not reached.
    const future = (await currentRevision(s)) + 1000;
    const held = req(s, "GET", `/api/v1/namespaces/default/configmaps/none?resourceVersion=${future}&timeout=2s`, { creds: s.anonymous });
    await sleep(300);

    const refused = await req(s, "GET", "/api/v1/namespaces", { creds: s.anonymous });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.text).toBe("Too many requests, please try again later.\n");

    const admin = await req(s, "GET", "/api/v1/namespaces"); // system:masters
    expect(admin.status).toBe(200);
    const watch = await req(s, "GET", "/api/v1/namespaces?watch=true&timeoutSeconds=1", { creds: s.anonymous });
    expect(watch.status).toBe(200);
    // Writes have their own limit (200 by default).
    const write = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { creds: s.anonymous, body: { metadata: { name: "while-full" } } });
    expect(write.status).toBe(201);

    // At its 2 s deadline the held request is answered 504 and its wait (3 s on its own) stops,
    // freeing the slot; the slot is held until the handler has finished, as upstream's is.
    expect((await held).status).toBe(504);
    await sleep(200);
    expect((await req(s, "GET", "/api/v1/namespaces", { creds: s.anonymous })).status).toBe(200);
  });
});
