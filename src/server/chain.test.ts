import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { toApiError } from "../handlers/errors.js";
import type { Authorizer } from "../authz/authorizer.js";
import { jsonCodec, yamlCodec } from "../encoding/codec.js";
import { CodecSet } from "../encoding/negotiate.js";
import { recordingExchange } from "../http/recording-exchange.testkit.js";
import { memoryAuditing } from "../observability/audit/memory-backend.testkit.js";
import { buildHandlerChain, type ChainConfig } from "./chain.js";
import type { Filter } from "./filters/filter.js";
import { isLongRunning } from "./long-running.js";

/** A chain whose every seam records when it runs, so order and outcomes can be read back. */
function chain(over: Partial<ChainConfig> = {}) {
  const log: string[] = [];
  const seam = (name: string): Filter => async (ctx, next) => (log.push(name), next(ctx));
  const authorizer: Authorizer = {
    authorize: (a) => {
      log.push(`authorize ${a.verb} ${a.user.name}`);
      return { decision: a.user.name === "mallory" && a.verb !== "impersonate" ? "deny" : "allow", reason: "" };
    },
  };
  const handle = buildHandlerChain({
    toApiError,
    codecs: new CodecSet([jsonCodec, yamlCodec]),
    requestTimeoutMs: 60_000,
    isLongRunning,
    authenticate: async (req) => (log.push("authenticate"), req.headers["authorization"] === "Bearer good" ? { user: { name: "alice", groups: [] } } : { error: "bad" }),
    audit: memoryAuditing("Metadata", (r) => log.push(`audit ${r.stage}`)),
    authorizer,
    flowControl: seam("flow control"),
    router: async (ctx) => {
      log.push(`router ${ctx.user!.name}`);
      ctx.ex.head(200, {});
      ctx.ex.end("ok");
    },
    ...over,
  });
  return { log, handle };
}

const good = { authorization: "Bearer good" };

describe("the handler chain", () => {
  it("passes a request through every stage in kube-apiserver's order", async () => {
    const { log, handle } = chain();
    const rec = recordingExchange({ path: "/api/v1/namespaces/a/pods", headers: { ...good, "impersonate-user": "bob" } });
    await handle(rec.ex);
    expect(rec.status).toBe(200);
    expect(log).toEqual(["authenticate", "audit RequestReceived", "authorize impersonate alice", "flow control", "authorize list bob", "router bob", "audit ResponseComplete"]);
  });

  it("stops at authentication with 401, before audit's stage, flow control and authorization; audit records the refusal as it starts", async () => {
    const { log, handle } = chain();
    const rec = recordingExchange({ path: "/api/v1/pods" });
    await handle(rec.ex);
    expect(rec.status).toBe(401);
    expect(rec.json()).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    expect(log).toEqual(["authenticate", "audit ResponseStarted"]);
  });

  it("refuses requests while draining before anyone is authenticated, health probes excepted", async () => {
    let draining = false;
    const { log, handle } = chain({ shutdown: { draining: () => draining, sendRetryAfter: true }, goawayChance: 0.02 });
    draining = true;
    const refused = recordingExchange({ path: "/api/v1/namespaces/a/pods", headers: good });
    await handle(refused.ex);
    expect(refused.status).toBe(429);
    expect(log).toEqual([]);
    const probe = recordingExchange({ path: "/readyz", headers: good });
    await handle(probe.ex);
    expect(log).toContain("router alice");
  });

  it("writes a refusal in the encoding the client accepts", async () => {
    const { handle } = chain();
    const rec = recordingExchange({ path: "/api/v1/pods", headers: { ...good, "impersonate-user": "mallory", accept: "application/yaml" } });
    await handle(rec.ex);
    expect(rec.status).toBe(403);
    expect(rec.headers["content-type"]).toBe("application/yaml");
    expect(rec.body()).toContain("reason: Forbidden");
  });

  it("answers 504 when the router outlives the request's timeout", async () => {
    const { handle } = chain({ router: () => sleep(100) });
    const rec = recordingExchange({ path: "/api/v1/pods", query: "timeout=20ms", headers: good });
    await handle(rec.ex);
    expect(rec.status).toBe(504);
    expect(rec.json()).toMatchObject({ reason: "Timeout", message: "Timeout: request did not complete within the allotted timeout" });
  });

  it("turns a malformed path into 400 and a crash into 500, never a rejection", async () => {
    const { handle } = chain({
      router: async () => {
        throw new RangeError("bug");
      },
    });
    const bad = recordingExchange({ path: "/api/v1/namespaces/%/pods", headers: good });
    await handle(bad.ex);
    expect(bad.status).toBe(400);
    const crash = recordingExchange({ path: "/api/v1/pods", headers: good });
    const reported = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      await expect(handle(crash.ex)).resolves.toBeUndefined();
      expect(reported).toHaveBeenCalledOnce();
    } finally {
      reported.mockRestore();
    }
    expect(crash.status).toBe(500);
  });
});
