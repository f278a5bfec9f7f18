import { describe, expect, it } from "vitest";
import { FaultInjector, type FaultRuleInput } from "./faults.js";
import type { RequestFacts } from "./request-matcher.js";

const req = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  verb: "get",
  apiGroup: "",
  resource: "pods",
  subresource: "",
  namespace: "a",
  name: "p",
  user: "alice",
  fieldManager: "",
  ...over,
});

describe("FaultInjector", () => {
  it("asks rules in the order added; the first that matches wins", () => {
    const f = new FaultInjector();
    f.add({ match: { resource: "pods", name: "p" }, action: { kind: "error", code: 500 } });
    f.add({ match: { resource: "pods" }, action: { kind: "error", code: 503 } });
    expect(f.take(req())?.action).toEqual({ kind: "error", code: 500 });
    expect(f.take(req({ name: "q" }))?.action).toEqual({ kind: "error", code: 503 });
    expect(f.take(req({ resource: "secrets" }))).toBeUndefined();
  });

  it("matches verb, resource, subresource, namespace, name, user and field manager", () => {
    const f = new FaultInjector();
    f.add({ match: { verb: "patch", subresource: "status", namespace: "a", user: "alice", fieldManager: "ctl" }, action: { kind: "latency", ms: 1 } });
    expect(f.take(req({ verb: "patch", subresource: "status", fieldManager: "ctl" }))).toBeDefined();
    expect(f.take(req({ verb: "patch", subresource: "status", fieldManager: "other" }))).toBeUndefined();
    expect(f.take(req({ verb: "patch", subresource: "", fieldManager: "ctl" }))).toBeUndefined();
    expect(f.take(req({ verb: "patch", subresource: "status", fieldManager: "ctl", user: "bob" }))).toBeUndefined();
  });

  it("counts down `times` and retires the rule", () => {
    const f = new FaultInjector();
    const r = f.add({ times: 2, action: { kind: "error", code: 429 } });
    expect(f.list()).toMatchObject([{ id: r.id, times: 2, fired: 0 }]);
    expect(f.take(req())).toBeDefined();
    expect(f.list()).toMatchObject([{ times: 1, fired: 1 }]);
    expect(f.take(req())).toBeDefined();
    expect(f.take(req())).toBeUndefined();
    expect(f.list()).toEqual([]);
  });

  it("fires with its probability; a rule that does not fire lets later rules be asked", () => {
    const rolls = [0.7, 0.2];
    const f = new FaultInjector(() => rolls.shift()!);
    f.add({ probability: 0.5, action: { kind: "error", code: 500 } });
    f.add({ action: { kind: "error", code: 503 } });
    expect(f.take(req())?.action).toMatchObject({ code: 503 }); // 0.7 ≥ 0.5: not this time
    expect(f.take(req())?.action).toMatchObject({ code: 500 }); // 0.2 < 0.5
    const never = new FaultInjector(() => 0);
    never.add({ probability: 0, action: { kind: "error", code: 500 } });
    expect(never.take(req())).toBeUndefined();
  });

  it("watch faults meet watches only, 410 lists and watches only, timeoutAfterCommit writes only", () => {
    const f = new FaultInjector();
    f.add({ action: { kind: "dropWatch", afterEvents: 1 } });
    f.add({ action: { kind: "error", code: 410 } });
    f.add({ action: { kind: "timeoutAfterCommit" } });
    expect(f.take(req({ verb: "watch" }))?.action.kind).toBe("dropWatch");
    expect(f.take(req({ verb: "list" }))?.action).toMatchObject({ code: 410 });
    expect(f.take(req({ verb: "create" }))?.action.kind).toBe("timeoutAfterCommit");
    expect(f.take(req({ verb: "get" }))).toBeUndefined();
  });

  it("clear() and remove(id)", () => {
    const f = new FaultInjector();
    const a = f.add({ action: { kind: "error", code: 500 } });
    f.add({ action: { kind: "error", code: 503 } });
    expect(f.remove(a.id)).toBe(true);
    expect(f.remove(a.id)).toBe(false);
    expect(f.size).toBe(1);
    f.clear();
    expect(f.size).toBe(0);
  });

  const bad: [string, unknown, RegExp][] = [
    ["unknown kind", { action: { kind: "explode" } }, /action\.kind: unknown fault kind "explode" \(known: error, latency, dropWatch, expireWatch, timeoutAfterCommit\)/],
    ["no action", { match: {} }, /action: must be an object with a "kind"/],
    ["status code not allowed", { action: { kind: "error", code: 418 } }, /action\.code: 418 is not an injectable status \(allowed: 409, 410, 422, 429, 500, 503, 504\)/],
    ["probability above 1", { probability: 1.5, action: { kind: "error", code: 500 } }, /probability: must be a number from 0 to 1, got 1\.5/],
    ["probability below 0", { probability: -0.1, action: { kind: "error", code: 500 } }, /probability: must be a number from 0 to 1/],
    ["times 0", { times: 0, action: { kind: "error", code: 500 } }, /times: must be a whole number ≥ 1, got 0/],
    ["unknown matcher key", { match: { verbs: "get" }, action: { kind: "error", code: 500 } }, /match: unknown key "verbs"/],
    ["matcher value not a string", { match: { name: 3 }, action: { kind: "error", code: 500 } }, /match\.name: must be a string or a non-empty list of strings, got 3/],
    ["matcher not an object", { match: "pods", action: { kind: "error", code: 500 } }, /match must be an object, got "pods"/],
    ["unknown rule key", { action: { kind: "error", code: 500 }, count: 2 }, /fault rule: unknown key "count"/],
    ["option of another kind", { action: { kind: "latency", ms: 5, code: 500 } }, /action: "code" does not apply to a latency fault \(it takes: ms\)/],
    ["negative latency", { action: { kind: "latency", ms: -1 } }, /action\.ms: must be a number of ms/],
    ["retryAfter on a 409", { action: { kind: "error", code: 409, retryAfterSeconds: 1 } }, /only a 429, 503 or 504 asks the client to retry, not a 409/],
    ["watch fault on a list", { match: { verb: "list" }, action: { kind: "dropWatch" } }, /a dropWatch fault applies to watch requests only, not "list"/],
    ["410 on a get", { match: { verb: ["list", "get"] }, action: { kind: "error", code: 410 } }, /an error 410 applies to list, watch requests only, not "get"/],
  ];
  it.each(bad)("refuses %s, naming the problem", (_what, input, message) => {
    const f = new FaultInjector();
    expect(() => f.add(input as FaultRuleInput)).toThrow(message);
    expect(f.size).toBe(0);
  });
});
