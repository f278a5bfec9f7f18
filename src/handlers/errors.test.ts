import { describe, expect, it } from "vitest";
import { ApplyBadRequestError, ApplyConflictError, ManagedFieldsError, TypedValueError } from "../apply/index.js";
import { notFound } from "../apimachinery/errors.js";
import { parseFieldSelector } from "../apimachinery/fields.js";
import { parseLabelSelector } from "../apimachinery/labels.js";
import { jsonCodec } from "../encoding/codec.js";
import { PatchError } from "../patch/errors.js";
import { applyJsonPatch } from "../patch/json-patch.js";
import { assertMergePatchDocument } from "../patch/merge-patch.js";
import { CacheError } from "../storage/cacher/types.js";
import { StorageError } from "../storage/interface.js";
import { toApiError } from "./errors.js";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

function statusOf(e: unknown) {
  const api = toApiError(e);
  return { code: api.code, reason: api.reason, message: api.message };
}

describe("toApiError", () => {
  it("passes an ApiError through unchanged", () => {
    const e = notFound({ group: "apps", resource: "deployments" }, "web");
    expect(toApiError(e)).toBe(e);
  });

  it("answers anything unknown with 500 InternalError, keeping the original as its cause", () => {
    const original = new TypeError("boom");
    const api = toApiError(original);
    expect(api.toStatus()).toMatchObject({ code: 500, reason: "InternalError", message: "Internal error occurred: boom", details: { causes: [{ message: "boom" }] } });
    expect((api as { cause?: unknown }).cause).toBe(original);
    expect(statusOf("plain string")).toEqual({ code: 500, reason: "InternalError", message: "Internal error occurred: plain string" });
  });

  describe("patch errors", () => {
    it("a patch document that does not decode is 400 BadRequest with its message", () => {
      expect(statusOf(thrown(() => applyJsonPatch({}, { op: "add" })))).toEqual({
        code: 400,
        reason: "BadRequest",
        message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
      });
      expect(statusOf(thrown(() => assertMergePatchDocument(3)))).toEqual({ code: 400, reason: "BadRequest", message: "Invalid JSON Patch" });
    });

    it("a JSON patch that fails to apply is 422 Invalid with upstream's fixed message", () => {
      const failedTest = thrown(() => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]));
      expect(failedTest).toBeInstanceOf(PatchError);
      expect(statusOf(failedTest)).toEqual({ code: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request" });
    });

    it("Invalid keeps its message (422) and Conflict is 409", () => {
      expect(statusOf(new PatchError("Invalid", "spec.x: bad"))).toEqual({ code: 422, reason: "Invalid", message: "spec.x: bad" });
      expect(statusOf(new PatchError("Conflict", "three-way conflict"))).toEqual({ code: 409, reason: "Conflict", message: "three-way conflict" });
    });
  });

  describe("apply errors", () => {
    it("a conflict is 409 Conflict with one FieldManagerConflict cause per field", () => {
      const e = new ApplyConflictError([{ managerId: "m", manager: '"kubectl"', field: ".spec.replicas" }]);
      const api = toApiError(e);
      expect([api.code, api.reason, api.message]).toEqual([409, "Conflict", 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas']);
      expect(api.toStatus()).toEqual(e.status()); // the Status the apply engine describes, cause for cause
    });

    it("a bad apply request and unreadable managedFields are 400 BadRequest", () => {
      expect(statusOf(new ApplyBadRequestError("metadata.managedFields must be nil"))).toEqual({ code: 400, reason: "BadRequest", message: "metadata.managedFields must be nil" });
      expect(statusOf(new ManagedFieldsError("managedFields must be a list"))).toEqual({ code: 400, reason: "BadRequest", message: "managedFields must be a list" });
    });

    it("a configuration that cannot be merged is 422 Invalid", () => {
      expect(statusOf(new TypedValueError("duplicate entries for key [name=\"a\"]", ".spec.containers"))).toEqual({
        code: 422,
        reason: "Invalid",
        message: '.spec.containers: duplicate entries for key [name="a"]',
      });
    });
  });

  it("a body that does not decode is 400 BadRequest 'error decoding request body'", () => {
    const e = thrown(() => jsonCodec.decode(Buffer.from("{")));
    const st = statusOf(e);
    expect(st.code).toBe(400);
    expect(st.reason).toBe("BadRequest");
    expect(st.message).toMatch(/^error decoding request body: ./);
  });

  it("a label or field selector that does not parse is 400 BadRequest with the parser's message", () => {
    expect(statusOf(thrown(() => parseLabelSelector("a in (")))).toMatchObject({ code: 400, reason: "BadRequest" });
    expect(statusOf(thrown(() => parseFieldSelector("a")))).toEqual({ code: 400, reason: "BadRequest", message: "invalid selector: 'a'; can't understand 'a'" });
  });

  describe("watch cache errors", () => {
    it("TooLarge is 504 Timeout with the ResourceVersionTooLarge cause and Retry-After", () => {
      const api = toApiError(new CacheError("TooLarge", 90, 80));
      expect(api.toStatus()).toMatchObject({
        code: 504,
        reason: "Timeout",
        message: "Timeout: Too large resource version: 90, current: 80",
        details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
      });
      expect(api.headers).toEqual({ "retry-after": "1" });
    });

    it("TooOld is 410 Expired and Stopped is 503 ServiceUnavailable", () => {
      expect(statusOf(new CacheError("TooOld", 3, 10, "too old resource version: 3 (10)"))).toEqual({ code: 410, reason: "Expired", message: "too old resource version: 3 (10)" });
      expect(statusOf(new CacheError("Stopped", 0, 0, "watch cache stopped"))).toEqual({ code: 503, reason: "ServiceUnavailable", message: "watch cache stopped" });
    });
  });

  describe("storage errors the registry did not interpret", () => {
    it.each([
      ["KeyNotFound", 404, "NotFound"],
      ["KeyExists", 409, "AlreadyExists"],
      ["Conflict", 409, "Conflict"],
      ["Compacted", 410, "Expired"],
      ["FutureRevision", 504, "Timeout"],
      ["Closed", 503, "ServiceUnavailable"],
    ] as const)("%s is %i %s", (code, http, reason) => {
      const api = toApiError(new StorageError(code, "/registry/pods/default/web"));
      expect(api.code).toBe(http);
      expect(api.reason).toBe(reason);
    });

    it("an etcd call that failed is kube-apiserver's 500 with no reason and its etcd client's text; one that outlived the request, 504", () => {
      const lost = "rpc error: code = Unavailable desc = error reading from server: EOF";
      expect(toApiError(new StorageError("Unavailable", "/registry/pods/default/web", lost)).toStatus()).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: lost,
        code: 500,
      });
      expect(statusOf(new StorageError("Timeout", "/registry/pods/default/web", "context deadline exceeded"))).toEqual({
        code: 504,
        reason: "Timeout",
        message: "Timeout: request did not complete within the allotted timeout",
      });
    });

    it("names the object by the key's last segment", () => {
      expect(toApiError(new StorageError("KeyNotFound", "/registry/pods/default/web")).details).toEqual({ name: "web" });
    });
  });
});
