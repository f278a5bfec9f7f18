import { describe, expect, it } from "vitest";
import { ApiError, forbidden } from "../../apimachinery/errors.js";
import { jsonCodec } from "../../encoding/codec.js";
import { CodecSet } from "../../encoding/negotiate.js";
import { toApiError } from "../../handlers/errors.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { writeObject } from "../../http/respond.js";
import type { RequestContext } from "../../http/context.js";
import { auditing } from "../../observability/audit/auditing.js";
import { memoryAuditing, memoryBackend } from "../../observability/audit/memory-backend.testkit.js";
import { AuditMetrics } from "../../observability/audit/metrics.js";
import { PolicyEvaluator } from "../../observability/audit/policy.js";
import type { Auditing } from "../../observability/audit/auditing.js";
import { isLongRunning } from "../long-running.js";
import { auditFilter, auditInitFilter } from "./audit.js";
import { compose, type Handler } from "./filter.js";
import { recoveryFilter } from "./recovery.js";

const alice = { name: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] };

/** auditInit → recovery → audit → `handler`, as the chain orders them (authentication done). */
function serve(a: Auditing | undefined, handler: Handler, o: Parameters<typeof recordingContext>[0] = {}) {
  const { rec, ctx } = recordingContext({ user: alice, ...o });
  const run = compose(
    [auditInitFilter(a), recoveryFilter({ toApiError, codecs: new CodecSet([jsonCodec]), log: () => undefined }), ...(a ? [auditFilter(a, { isLongRunning, toApiError })] : [])],
    handler,
  );
  return { rec, ctx, done: run(ctx) };
}

const ok: Handler = async (ctx) => writeObject(ctx.ex, 200, { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c", managedFields: [{ manager: "m" }] } }, jsonCodec);

describe("the audit stage", () => {
  it("sends every response an Audit-Id: the client's own, else a new UUID, audited or not", async () => {
    const own = serve(undefined, ok, { headers: { "audit-id": "client-chosen" } });
    await own.done;
    expect(own.rec.headers["audit-id"]).toBe("client-chosen");
    expect(own.ctx.audit).toBeUndefined();
    const fresh = serve(memoryAuditing("None"), ok);
    await fresh.done;
    expect(fresh.rec.headers["audit-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("records RequestReceived and ResponseComplete with who asked, from where, and what", async () => {
    const a = memoryAuditing("Metadata");
    const { done } = serve(a, ok, {
      method: "GET",
      path: "/api/v1/namespaces/ns/configmaps/c",
      headers: { "audit-id": "id-1", "user-agent": "kubectl/v1.34.0", "x-forwarded-for": "10.0.0.1, bogus, 10.0.0.2" },
      socket: { remoteAddress: "::ffff:127.0.0.1" },
    });
    await done;
    const [received, complete] = a.backend.events();
    expect(a.backend.records.map((r) => r.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
    expect(received).toMatchObject({
      level: "Metadata",
      auditID: "id-1",
      verb: "get",
      requestURI: "/api/v1/namespaces/ns/configmaps/c",
      user: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] },
      sourceIPs: ["10.0.0.1", "10.0.0.2", "127.0.0.1"],
      userAgent: "kubectl/v1.34.0",
      objectRef: { resource: "configmaps", namespace: "ns", name: "c", apiVersion: "v1" },
    });
    expect(received.responseStatus).toBeUndefined();
    expect(received.stageTimestamp).toBe(received.requestReceivedTimestamp);
    expect(received.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(complete.responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(complete.responseObject).toBeUndefined();
    expect(complete.stageTimestamp >= complete.requestReceivedTimestamp).toBe(true);
  });

  it("keeps the response body at RequestResponse, without managedFields when the policy says so", async () => {
    const a = memoryAuditing({ rules: [{ level: "RequestResponse", omitManagedFields: true }], omitStages: ["RequestReceived"] });
    await serve(a, ok).done;
    const [complete] = a.backend.events();
    expect(a.backend.records.map((r) => r.stage)).toEqual(["ResponseComplete"]);
    expect(complete.responseObject).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c" } });
  });

  it("records a refusal's Status; a failure nothing answered as the Panic stage", async () => {
    const a = memoryAuditing("Metadata");
    await serve(a, async () => {
      throw forbidden({ group: "", resource: "configmaps" }, "c", "no");
    }).done;
    expect(a.backend.events()[1].responseStatus).toMatchObject({ metadata: {}, status: "Failure", reason: "Forbidden", code: 403, details: { name: "c", kind: "configmaps" } });
    const p = memoryAuditing("Metadata");
    const { rec, done } = serve(p, async () => {
      throw new TypeError("boom");
    });
    await done;
    expect(rec.status).toBe(500);
    expect(p.backend.records.map((r) => r.stage)).toEqual(["RequestReceived", "Panic"]);
    expect(p.backend.events()[1].responseStatus).toEqual({ metadata: {}, status: "Failure", message: "APIServer panic'd: boom", reason: "InternalError", code: 500 });
  });

  it("gives a watch its ResponseStarted event when the head goes out, and ResponseComplete when it ends", async () => {
    const a = memoryAuditing("Metadata");
    let mid: string[] = [];
    await serve(
      a,
      async (ctx: RequestContext) => {
        ctx.ex.head(200, {});
        mid = a.backend.records.map((r) => r.stage);
        ctx.ex.end();
      },
      { path: "/api/v1/pods", query: "watch=1" },
    ).done;
    expect(mid).toEqual(["RequestReceived", "ResponseStarted"]);
    expect(a.backend.records.map((r) => r.stage)).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
  });

  it("records ResponseComplete before the response is finished, and a request the client left as closed early", async () => {
    const a = memoryAuditing("Metadata");
    let recordedBeforeEnd = false;
    const { rec, done } = serve(a, async (ctx) => {
      await null; // `rec` is assigned once serve() returns
      ctx.ex.head(200, {});
      const real = rec.ex.end.bind(rec.ex);
      rec.ex.end = (chunk) => {
        recordedBeforeEnd = a.backend.records.some((r) => r.stage === "ResponseComplete");
        real(chunk);
      };
      ctx.ex.end("x");
    });
    await done;
    expect(recordedBeforeEnd).toBe(true);
    const gone = memoryAuditing("Metadata");
    await serve(gone, async () => undefined).done;
    expect(gone.backend.events()[1].responseStatus).toEqual({ metadata: {}, status: "Success", message: "Connection closed early", code: 200 });
  });

  it("fails the request with 500 when blocking-strict cannot store RequestReceived, and counts it", async () => {
    const backend = memoryBackend();
    backend.processEvents = () => false;
    const metrics = new AuditMetrics(() => undefined);
    const a = auditing(new PolicyEvaluator({ rules: [{ level: "Metadata" }] }), backend, metrics);
    let served = false;
    const { rec, done } = serve(a, async () => {
      served = true;
    });
    await done;
    expect(served).toBe(false);
    expect(rec.status).toBe(500);
    expect(rec.json()).toMatchObject({ reason: "InternalError", message: "Internal error occurred: failed to store audit event" });
    expect((metrics as unknown as { rejected: { with(): { value: number } } }).rejected.with().value).toBe(1);
  });

  it("audits a request refused before the audit stage with one ResponseStarted event", async () => {
    const a = memoryAuditing("Metadata");
    const { rec, ctx } = recordingContext({ path: "/api/v1/pods" });
    const run = compose([auditInitFilter(a), recoveryFilter({ toApiError, codecs: new CodecSet([jsonCodec]) })], async () => {
      throw new ApiError(401, "Unauthorized", "Unauthorized");
    });
    await run(ctx);
    expect(rec.status).toBe(401);
    expect(a.backend.records.map((r) => r.stage)).toEqual(["ResponseStarted"]);
    expect(a.backend.events()[0]).toMatchObject({ user: {}, verb: "list", responseStatus: { metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 } });
  });
});
