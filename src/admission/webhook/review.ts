// AdmissionReview v1 / v1beta1: the request kapi sends a webhook and the checks of its answer
// (upstream: webhook/request/admissionreview.go). The version is the first of the webhook's
// admissionReviewVersions this server knows; v1 answers must echo the request's uid, kind and
// apiVersion, v1beta1 answers were never checked for them and still are not.
import { goQuote } from "../../apimachinery/go-quote.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { requestNamespace, type MatchedResource } from "../matching/index.js";
import { interpretError } from "../../apimachinery/go-interpret.js";

export const supportedReviewVersions = ["v1", "v1beta1"] as const;
export type ReviewVersion = (typeof supportedReviewVersions)[number];

/** The first version the webhook accepts that kapi can send; undefined when none. */
export function reviewVersionFor(accepted: readonly string[] | undefined): ReviewVersion | undefined {
  return (accepted ?? []).find((v): v is ReviewVersion => (supportedReviewVersions as readonly string[]).includes(v));
}

export const noKnownReviewVersion = "webhook does not accept known AdmissionReview versions (v1, v1beta1)";

/** The request's fields other than uid, object and oldObject (what CEL sees as `request` too). */
export function admissionRequestFields(a: AdmissionAttributes, matched: MatchedResource): Record<string, unknown> {
  const user = a.user;
  const userInfo: Record<string, unknown> = {};
  if (user?.name) userInfo.username = user.name;
  if (user?.uid) userInfo.uid = user.uid;
  if (user?.groups?.length) userInfo.groups = [...user.groups];
  if (user?.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  const request: Record<string, unknown> = {
    kind: { group: matched.kind.group, version: matched.kind.version, kind: matched.kind.kind },
    resource: { group: matched.type.group, version: matched.type.version, resource: matched.type.resource },
  };
  if (a.subresource) request.subResource = a.subresource;
  const own = matched.equivalent ? requestKindOf(a) : request.kind;
  request.requestKind = own;
  request.requestResource = { group: a.type.group, version: a.type.version, resource: a.type.resource };
  if (a.subresource) request.requestSubResource = a.subresource;
  if (a.name) request.name = a.name;
  // A namespace's own requests carry its name as their namespace (upstream's request info).
  const namespace = requestNamespace(a);
  if (namespace) request.namespace = namespace;
  request.operation = a.operation;
  request.userInfo = userInfo;
  request.dryRun = a.dryRun;
  request.options = a.options;
  return request;
}

function requestKindOf(a: AdmissionAttributes): Record<string, string> {
  const sub = a.subresource ? a.type.subresources.find((s) => s.name === a.subresource) : undefined;
  if (sub && sub.kind !== a.type.kind) return { group: sub.group ?? a.type.group, version: sub.version ?? a.type.version, kind: sub.kind };
  return { group: a.type.group, version: a.type.version, kind: a.type.kind };
}

/** The AdmissionReview body sent to the webhook. */
export function admissionReview(version: ReviewVersion, uid: string, fields: Record<string, unknown>, object: KObject | undefined, oldObject: KObject | undefined): Record<string, unknown> {
  return {
    kind: "AdmissionReview",
    apiVersion: `admission.k8s.io/${version}`,
    request: { uid, ...fields, object: object ?? null, oldObject: oldObject ?? null },
  };
}

/** What a verified answer holds (upstream: AdmissionResponse). */
export interface VerifiedResponse {
  allowed: boolean;
  /** The decoded JSON Patch document (bytes → JSON text), when the webhook sent one. */
  patch?: string;
  result?: unknown;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

/**
 * A problem with the answer; the message is the reason after `failed calling webhook "<name>": `.
 * A body that cannot be read as the review fails the call ("failed to call webhook: …"); one that
 * was read but breaks the rules is "received invalid webhook response: …".
 */
export class ReviewAnswerError extends Error {
  constructor(stage: "decode" | "invalid" | "plain", message: string) {
    super(stage === "decode" ? `failed to call webhook: ${message}` : stage === "invalid" ? `received invalid webhook response: ${message}` : message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : "");

function gvkString(apiVersion: string, kind: string): string {
  const i = apiVersion.indexOf("/");
  const [g, v] = i < 0 ? ["", apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
  return `${g}/${v}, Kind=${kind}`;
}

/** Reads and checks a 2xx answer's body. */
export function verifyAnswer(text: string, version: ReviewVersion, uid: string, mutating: boolean): VerifiedResponse {
  const notInterpreted = interpretError(text);
  if (notInterpreted !== undefined) throw new ReviewAnswerError("decode", notInterpreted);
  // null decodes into the empty struct: its kind is missing.
  const json = (JSON.parse(text) ?? {}) as Record<string, unknown>;
  if (str(json.kind) === "") throw new ReviewAnswerError("decode", `Object 'Kind' is missing in '${text}'`);
  const expected = `admission.k8s.io/${version}`;
  if (json.kind === "AdmissionReview" && json.apiVersion !== expected && (json.apiVersion === "admission.k8s.io/v1" || json.apiVersion === "admission.k8s.io/v1beta1")) {
    throw new ReviewAnswerError("decode", `converting (${str(json.apiVersion).slice("admission.k8s.io/".length)}.AdmissionReview) to (${version}.AdmissionReview): unknown conversion`);
  }
  const response = json.response;
  if (!isObj(response)) throw new ReviewAnswerError("invalid", "webhook response was absent");
  if (version === "v1") {
    if (str(response.uid) !== uid) throw new ReviewAnswerError("invalid", `expected response.uid=${goQuote(uid)}, got ${goQuote(str(response.uid))}`);
    if (json.kind !== "AdmissionReview" || json.apiVersion !== expected) {
      throw new ReviewAnswerError("invalid", `expected webhook response of ${gvkString(expected, "AdmissionReview")}, got ${gvkString(str(json.apiVersion), str(json.kind))}`);
    }
  }
  const rawPatch = response.patch;
  const hasPatch = typeof rawPatch === "string" && rawPatch !== "";
  let patch: string | undefined;
  if (mutating) {
    if (version === "v1") {
      if (hasPatch && response.patchType == null) throw new ReviewAnswerError("invalid", "webhook returned response.patch but not response.patchType");
      if (!hasPatch && response.patchType != null) throw new ReviewAnswerError("invalid", "webhook returned response.patchType but not response.patch");
      if (response.patchType != null && str(response.patchType) === "") throw new ReviewAnswerError("invalid", `webhook returned invalid response.patchType of ""`);
      if (hasPatch && response.patchType !== "JSONPatch") throw new ReviewAnswerError("plain", `unsupported patch type ${goQuote(str(response.patchType))}`);
    }
    if (hasPatch) patch = decodeBase64Bytes(rawPatch);
  } else {
    if (hasPatch) throw new ReviewAnswerError("invalid", "validating webhook may not return response.patch");
    if (response.patchType != null) throw new ReviewAnswerError("invalid", "validating webhook may not return response.patchType");
  }
  const auditAnnotations: Record<string, string> = {};
  if (isObj(response.auditAnnotations)) for (const [k, v] of Object.entries(response.auditAnnotations)) if (typeof v === "string") auditAnnotations[k] = v;
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === "string") : [];
  return { allowed: response.allowed === true, patch, result: response.status, auditAnnotations, warnings };
}

/** Go's []byte from JSON: standard base64, or the decode error Go reports. */
function decodeBase64Bytes(s: string): string {
  const bad = s.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0 || s.length % 4 !== 0) throw new ReviewAnswerError("decode", `illegal base64 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 4)}`);
  return Buffer.from(s, "base64").toString("utf8");
}
