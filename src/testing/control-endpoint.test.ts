import { afterEach, describe, expect, it } from "vitest";
import { startControlEndpoint, type ControlEndpoint, type ServerControls } from "./control-endpoint.js";
import { TestHarness } from "./harness.js";
import { SettleTimeoutError } from "./settle.js";

let endpoint: ControlEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function open(controls: ServerControls = {}) {
  const harness = new TestHarness();
  endpoint = await startControlEndpoint({ harness, controls, token: "t0ken" });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(endpoint!.url + path, { method, headers: { authorization: "Bearer t0ken" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return [r.status, await r.json()] as [number, any];
  };
  return { harness, call };
}

describe("control endpoint", () => {
  it("listens on loopback only", async () => {
    await open();
    expect(endpoint!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("adds, lists, removes one and clears fault rules", async () => {
    const { harness, call } = await open();
    const [code, rule] = await call("POST", "/faults", { action: { kind: "latency", ms: 5 } });
    expect(code).toBe(201);
    await call("POST", "/faults", { action: { kind: "error", code: 500 } });
    expect((await call("GET", "/faults"))[1]).toHaveLength(2);
    expect(await call("DELETE", `/faults/${rule.id}`)).toEqual([200, { removed: rule.id }]);
    expect((await call("DELETE", `/faults/${rule.id}`))[0]).toBe(404);
    expect(harness.faults.size).toBe(1);
    await call("DELETE", "/faults");
    expect(harness.faults.size).toBe(0);
  });

  it("passes reset, snapshot, restore and settle to the server's own methods", async () => {
    const seen: unknown[] = [];
    const { call } = await open({
      reset: async () => void seen.push("reset"),
      snapshot: async () => ({ objects: 3 }),
      restore: async (s) => void seen.push(["restore", s]),
      settle: async (o) => void seen.push(["settle", o]),
    });
    expect(await call("POST", "/reset")).toEqual([200, {}]);
    expect(await call("GET", "/snapshot")).toEqual([200, { objects: 3 }]);
    expect(await call("POST", "/restore", { objects: 3 })).toEqual([200, {}]);
    expect(await call("POST", "/settle", { controllers: false })).toEqual([200, {}]);
    expect(await call("POST", "/settle")).toEqual([200, {}]);
    expect(seen).toEqual(["reset", ["restore", { objects: 3 }], ["settle", { controllers: false }], ["settle", undefined]]);
  });

  it("answers a settle that timed out 504 Timeout, its causes naming each busy controller", async () => {
    const busy = [
      { name: "garbage-collector-controller", doing: "retrying 1 failed key: 3f2c (stubborn stays)" },
      { name: "namespace-controller", doing: "working" },
    ];
    const { call } = await open({
      settle: async () => {
        throw new SettleTimeoutError("settle: not settled after 50 ms: still busy: …", busy);
      },
    });
    expect(await call("POST", "/settle", { timeoutMs: 50 })).toEqual([
      504,
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "settle: not settled after 50 ms: still busy: …",
        reason: "Timeout",
        details: { causes: [{ field: "garbage-collector-controller", message: "retrying 1 failed key: 3f2c (stubborn stays)" }, { field: "namespace-controller", message: "working" }] },
        code: 504,
      },
    ]);
  });

  it("answers unknown routes 404, wrong methods 405, a bad journal query 400", async () => {
    const { call } = await open();
    expect(await call("GET", "/nope")).toEqual([404, expect.objectContaining({ reason: "NotFound", message: expect.stringContaining("no control route /nope") })]);
    expect(await call("PUT", "/journal")).toEqual([405, expect.objectContaining({ reason: "MethodNotAllowed", message: "PUT is not supported on /journal" })]);
    expect(await call("GET", "/journal?verbs=get")).toEqual([400, expect.objectContaining({ reason: "BadRequest", message: expect.stringMatching(/^match: unknown key "verbs"/) })]);
    expect((await call("GET", "/journal?code=abc"))[1].message).toBe('match.code: must be a number or a non-empty list of numbers, got "abc"');
    expect(await call("GET", "/journal?code=404&code=409")).toEqual([200, []]);
    expect(await call("POST", "/wait", { match: {}, timeout: "soon" })).toEqual([400, expect.objectContaining({ message: 'timeout: must be a number of ms, got "soon"' })]);
  });
});
