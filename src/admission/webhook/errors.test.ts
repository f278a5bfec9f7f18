import { describe, expect, it } from "vitest";
import { CallingWebhookError, deniedError, dryRunUnsupported, failedClosed } from "./errors.js";

describe("webhook errors (upstream's texts)", () => {
  it("a denial keeps the webhook's code, reason and details; the message names the webhook", () => {
    const e = deniedError("x.example.com", { code: 422, reason: "Invalid", message: "bad", details: { name: "n" } });
    expect(e.toStatus()).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 422, reason: "Invalid", message: 'admission webhook "x.example.com" denied the request: bad', details: { name: "n" } });
    expect(deniedError("x", { reason: "because" }).message).toBe('admission webhook "x" denied the request: because');
    const bare = deniedError("x", undefined);
    expect([bare.code, bare.message]).toEqual([400, 'admission webhook "x" denied the request without explanation']);
  });
  it("a denial is never answered below 400: no code, a 2xx or a 3xx becomes 400, and the body says Failure", () => {
    for (const code of [undefined, 0, 200, 201, 302, 399, 401.5, "403"]) {
      const e = deniedError("x", { status: "Success", code, message: "no" });
      expect(e.toStatus(), String(code)).toMatchObject({ status: "Failure", code: 400, message: 'admission webhook "x" denied the request: no' });
    }
    expect(deniedError("x", { code: 400 }).code).toBe(400);
    expect(deniedError("x", { code: 409, reason: "Conflict" }).toStatus()).toMatchObject({ code: 409, reason: "Conflict" });
    expect(deniedError("x", { code: 1000 }).code).toBe(500);
  });
  it("a failed call, failing closed, is a 500", () => {
    const e = failedClosed(new CallingWebhookError("x", "failed to call webhook: boom"));
    expect([e.code, e.reason, e.message]).toEqual([500, "InternalError", 'Internal error occurred: failed calling webhook "x": failed to call webhook: boom']);
  });
  it("dry run against side effects", () => {
    const e = dryRunUnsupported("x");
    expect([e.code, e.reason, e.message]).toEqual([400, "BadRequest", 'admission webhook "x" does not support dry run']);
  });
});
