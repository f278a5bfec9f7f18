import { describe, expect, it } from "vitest";
import { parseRuntimeConfig } from "../../types/runtime-config.js";
import { builtinResources } from "../../types/builtin-resources.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { admissionRequestFields, admissionReview, reviewVersionFor, verifyAnswer } from "./review.js";

const types = builtinTypeRegistry(parseRuntimeConfig("", builtinResources));
const uid = "0b6a2d5e-9a44-4f55-8a8e-3c1f1d2c0001";
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");
const answer = (response: unknown, apiVersion = "admission.k8s.io/v1", kind = "AdmissionReview") => JSON.stringify({ apiVersion, kind, response });
const msg = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("review version", () => {
  it("is the first of the webhook's list the server knows", () => {
    expect(reviewVersionFor(["v2", "v1beta1", "v1"])).toBe("v1beta1");
    expect(reviewVersionFor(["v1", "v1beta1"])).toBe("v1");
    expect(reviewVersionFor(["v9"])).toBeUndefined();
    expect(reviewVersionFor(undefined)).toBeUndefined();
  });
});

describe("request", () => {
  it("carries the request's fields; a scale subresource is sent as autoscaling/v1 Scale", () => {
    const t = types.get("apps", "v1", "deployments")!;
    const a = admissionAttributes({ operation: "UPDATE", type: t, namespace: "ns", name: "web", subresource: "scale", dryRun: true, user: { name: "alice", groups: ["devs"], uid: "u1" } });
    const fields = admissionRequestFields(a, { type: t, kind: { group: "autoscaling", version: "v1", kind: "Scale" }, equivalent: false });
    expect(fields).toEqual({
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      subResource: "scale",
      requestKind: { group: "autoscaling", version: "v1", kind: "Scale" },
      requestResource: { group: "apps", version: "v1", resource: "deployments" },
      requestSubResource: "scale",
      name: "web",
      namespace: "ns",
      operation: "UPDATE",
      userInfo: { username: "alice", uid: "u1", groups: ["devs"] },
      dryRun: true,
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"] },
    });
    const review = admissionReview("v1beta1", uid, fields, undefined, undefined);
    expect(review).toMatchObject({ apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: { uid, object: null, oldObject: null } });
  });
});

describe("namespace objects", () => {
  it("a namespace's update carries its own name as the request's namespace; its create none", () => {
    const t = types.get("", "v1", "namespaces")!;
    const matched = { type: t, kind: { group: "", version: "v1", kind: "Namespace" }, equivalent: false };
    expect(admissionRequestFields(admissionAttributes({ operation: "UPDATE", type: t, namespace: "", name: "team", subresource: "", dryRun: false }), matched).namespace).toBe("team");
    expect(admissionRequestFields(admissionAttributes({ operation: "CREATE", type: t, namespace: "", name: "team", subresource: "", dryRun: false }), matched).namespace).toBeUndefined();
  });
});

describe("answer checks (upstream's texts)", () => {
  it("accepts a v1 answer; decodes the patch", () => {
    const r = verifyAnswer(answer({ uid, allowed: true, patchType: "JSONPatch", patch: b64([{ op: "add", path: "/a", value: 1 }]), warnings: ["w"], auditAnnotations: { k: "v" } }), "v1", uid, true);
    expect(r).toEqual({ allowed: true, patch: '[{"op":"add","path":"/a","value":1}]', result: undefined, auditAnnotations: { k: "v" }, warnings: ["w"] });
  });
  it.each([
    ["not JSON", "<html>", "failed to call webhook: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value"],
    ["no kind", JSON.stringify({ response: {} }), `failed to call webhook: Object 'Kind' is missing in '{"response":{}}'`],
    ["other version", answer({ uid, allowed: true }, "admission.k8s.io/v1beta1"), "failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion"],
    ["other kind", answer({ uid, allowed: true }, "admission.k8s.io/v1", "Status"), "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1, Kind=Status"],
    ["no response", answer(undefined), "received invalid webhook response: webhook response was absent"],
    ["wrong uid", answer({ uid: "x", allowed: true }), `received invalid webhook response: expected response.uid="${uid}", got "x"`],
    ["patch without type", answer({ uid, allowed: true, patch: b64([]) }), "received invalid webhook response: webhook returned response.patch but not response.patchType"],
    ["type without patch", answer({ uid, allowed: true, patchType: "JSONPatch" }), "received invalid webhook response: webhook returned response.patchType but not response.patch"],
    ["empty patch type", answer({ uid, allowed: true, patchType: "", patch: b64([]) }), 'received invalid webhook response: webhook returned invalid response.patchType of ""'],
    ["unknown patch type", answer({ uid, allowed: true, patchType: "MergePatch", patch: b64({}) }), 'unsupported patch type "MergePatch"'],
    ["bad base64", answer({ uid, allowed: true, patchType: "JSONPatch", patch: "!!!!" }), "failed to call webhook: illegal base64 data at input byte 0"],
  ])("mutating, v1: %s", (_, text, want) => {
    expect(msg(() => verifyAnswer(text, "v1", uid, true))).toBe(want);
  });
  it("validating webhooks may not patch", () => {
    expect(msg(() => verifyAnswer(answer({ uid, allowed: true, patch: b64([]) }), "v1", uid, false))).toBe("received invalid webhook response: validating webhook may not return response.patch");
    expect(msg(() => verifyAnswer(answer({ uid, allowed: true, patchType: "JSONPatch" }), "v1", uid, false))).toBe("received invalid webhook response: validating webhook may not return response.patchType");
  });
  it("v1beta1 answers are not checked for uid, kind or patchType (a patch is JSONPatch)", () => {
    const r = verifyAnswer(JSON.stringify({ kind: "AdmissionReview", response: { allowed: false, status: { message: "no" }, patch: b64([]) } }), "v1beta1", uid, true);
    expect(r).toMatchObject({ allowed: false, patch: "[]", result: { message: "no" } });
  });
});
