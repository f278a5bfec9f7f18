// Query parameters of list and watch, parsed and validated as upstream does.
import { ApiError, badRequest, invalid } from "../apimachinery/errors.js";
import { parseFieldSelector, type FieldSelector } from "../apimachinery/fields.js";
import { parseLabelSelector, type LabelSelector } from "../apimachinery/labels.js";
import { optionalQueryBool, queryBool } from "../apimachinery/booleans.js";
import { forbidden, notSupported, type FieldError } from "../apimachinery/validation.js";
import { parseGoInt } from "../apimachinery/go-strconv.js";

export interface ListOptions {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  limit: number;
  continueToken: string;
  resourceVersion: string | undefined;
  resourceVersionMatch: "" | "Exact" | "NotOlderThan";
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
}

/**
 * An int64 query parameter as the parameter codec converts it: present (even empty) means parsed,
 * and a value strconv.ParseInt refuses is a 400 in its words.
 */
export function queryInt64(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null) return undefined;
  const parsed = parseGoInt(raw);
  if (!parsed.ok) throw badRequest(parsed.error);
  return Number(parsed.value);
}

/** Throws SelectorParseError (400) for a selector that does not parse, a 400 for an integer that does not. */
export function parseListOptions(q: URLSearchParams): ListOptions {
  const labelSelector: LabelSelector = parseLabelSelector(q.get("labelSelector") ?? "");
  const fieldSelector: FieldSelector = parseFieldSelector(q.get("fieldSelector") ?? "");
  const limit = queryInt64(q, "limit") ?? 0;
  const timeoutSeconds = queryInt64(q, "timeoutSeconds");
  const opts: ListOptions = {
    labelSelector,
    fieldSelector,
    limit: limit > 0 ? limit : 0,
    continueToken: q.get("continue") ?? "",
    resourceVersion: q.get("resourceVersion") ?? undefined,
    resourceVersionMatch: (q.get("resourceVersionMatch") ?? "") as ListOptions["resourceVersionMatch"],
    watch: queryBool(q, "watch"),
    allowWatchBookmarks: queryBool(q, "allowWatchBookmarks"),
    sendInitialEvents: optionalQueryBool(q, "sendInitialEvents"),
    timeoutSeconds,
  };
  if (opts.resourceVersion === "") opts.resourceVersion = undefined;
  return opts;
}

/**
 * Upstream SetListOptionsDefaults: with the WatchList gate on, a watch that asks for the state
 * (resourceVersion unset or "0") and says nothing about it becomes a streaming list.
 */
export function applyListDefaults(o: ListOptions, watchListEnabled: boolean): void {
  if (!watchListEnabled || o.sendInitialEvents !== undefined || o.resourceVersionMatch) return;
  if (o.watch && (o.resourceVersion === undefined || o.resourceVersion === "0")) {
    o.sendInitialEvents = true;
    o.resourceVersionMatch = "NotOlderThan";
  }
}

/** Upstream ValidateListOptions: 422 Invalid on ListOptions.meta.k8s.io. */
export function validateListOptions(o: ListOptions, watchListEnabled: boolean): void {
  const errs = o.watch ? watchOptionErrors(o, watchListEnabled) : listOptionErrors(o);
  if (errs.length > 0) throw invalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
}

function listOptionErrors(o: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const m = o.resourceVersionMatch;
  if (m) {
    if (o.resourceVersion === undefined) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    if (o.continueToken) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    if (m !== "Exact" && m !== "NotOlderThan") errs.push(notSupported("resourceVersionMatch", m, ["Exact", "NotOlderThan", ""]));
    if (m === "Exact" && o.resourceVersion === "0") errs.push(forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined) errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  return errs;
}

function watchOptionErrors(o: ListOptions, watchListEnabled: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const m = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined) {
    if (m !== "NotOlderThan") errs.push(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    if (!watchListEnabled) errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"));
  }
  if (m) {
    if (o.sendInitialEvents === undefined) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
    if (m !== "NotOlderThan") errs.push(notSupported("resourceVersionMatch", m, ["NotOlderThan"]));
    if (o.continueToken) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
  }
  return errs;
}

export function tooOldError(): ApiError {
  return new ApiError(410, "Expired", "The resourceVersion for the provided list is too old.");
}

export { tooLargeError } from "./resource-version.js";
