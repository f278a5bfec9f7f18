// Event validation as upstream's ValidateEventCreate and ValidateEventUpdate: every write of an
// Event passes the legacy checks; a write through events.k8s.io/v1 (`strict`) the newer ones too.
// Both read the core/v1 form (event-conversion.ts), so field paths are upstream's internal names
// whichever version was written (involvedObject, message, reportingController, count, ...).
import { deepEqual } from "../../apimachinery/json-value.js";
import { invalid, isDNS1123Subdomain, isQualifiedName, required, type FieldError } from "../../apimachinery/validation.js";
import { FIELD_IMMUTABLE, obj, str, type Obj } from "./helpers.js";

const reportingInstanceMax = 128;
const actionMax = 128;
const reasonMax = 128;
const noteMax = 1024;

/** A Go zero time: absent, null or "". */
const isZeroTime = (v: unknown): boolean => v === undefined || v === null || v === "";
const bytes = (s: string): number => Buffer.byteLength(s);

function atMost(field: string, value: string, max: number): FieldError[] {
  return bytes(value) > max ? [invalid(field, "", `can have at most ${max} characters`)] : [];
}

/** upstream legacyValidateEvent: namespaces agree; an event with eventTime names its reporter, action and reason. */
function legacy(ev: Obj, namespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const io = obj(ev.involvedObject);
  const ioNamespace = str(io.namespace);
  const mismatch = () => invalid("involvedObject.namespace", ioNamespace, "does not match event.namespace");
  if (isZeroTime(ev.eventTime)) {
    // An old-style event: the involved object's namespace is the event's ("" or default for cluster objects).
    if (ioNamespace === "" ? namespace !== "" && namespace !== "default" : namespace !== ioNamespace) errs.push(mismatch());
  } else {
    if (ioNamespace === "" && namespace !== "default" && namespace !== "kube-system") errs.push(mismatch());
    const controller = str(ev.reportingComponent);
    if (controller === "") errs.push(required("reportingController"));
    for (const m of isQualifiedName(controller)) errs.push(invalid("reportingController", controller, m));
    const instance = str(ev.reportingInstance);
    if (instance === "") errs.push(required("reportingInstance"));
    errs.push(...atMost("reportingInstance", instance, reportingInstanceMax));
    const action = str(ev.action);
    if (action === "") errs.push(required("action"));
    errs.push(...atMost("action", action, actionMax));
    const reason = str(ev.reason);
    if (reason === "") errs.push(required("reason"));
    errs.push(...atMost("reason", reason, reasonMax));
    errs.push(...atMost("message", str(ev.message), noteMax));
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(invalid("namespace", namespace, m));
  return errs;
}

function series(ev: Obj): FieldError[] {
  if (ev.series === undefined || ev.series === null) return [];
  const s = obj(ev.series);
  const errs: FieldError[] = [];
  if (!(typeof s.count === "number" && s.count >= 2)) errs.push(invalid("series.count", "", "should be at least 2"));
  if (isZeroTime(s.lastObservedTime)) errs.push(required("series.lastObservedTime"));
  return errs;
}

/** A create of an Event (core form) in `namespace`; `strict` for events.k8s.io/v1 requests. */
export function validateEvent(ev: Obj, namespace: string, strict: boolean): FieldError[] {
  const errs = legacy(ev, namespace);
  if (!strict) return errs;
  errs.push(...series(ev));
  if (isZeroTime(ev.eventTime)) errs.push(required("eventTime"));
  if (ev.type !== "Normal" && ev.type !== "Warning") errs.push(invalid("type", "", `has invalid value: ${str(ev.type)}`));
  if (!isZeroTime(ev.firstTimestamp)) errs.push(invalid("firstTimestamp", "", "needs to be unset"));
  if (!isZeroTime(ev.lastTimestamp)) errs.push(invalid("lastTimestamp", "", "needs to be unset"));
  if (ev.count !== undefined && ev.count !== null && ev.count !== 0) errs.push(invalid("count", "", "needs to be unset"));
  const source = obj(ev.source);
  if (str(source.component) !== "" || str(source.host) !== "") errs.push(invalid("source", "", "needs to be unset"));
  return errs;
}

/** Go's zero values (absent, null, "", 0, {}) compare equal, as two typed structs would. */
function zeroed(v: unknown): unknown {
  if (v === null || v === "" || v === 0) return undefined;
  if (typeof v === "object" && !Array.isArray(v)) {
    const kept = Object.entries(v as Obj).flatMap(([k, x]) => (zeroed(x) === undefined ? [] : [[k, zeroed(x)] as const]));
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  }
  return v;
}

// Upstream's list, reason twice included: a changed reason is reported twice.
const immutableFields: readonly [string, string][] = [
  ["involvedObject", "involvedObject"],
  ["reason", "reason"],
  ["message", "message"],
  ["source", "source"],
  ["firstTimestamp", "firstTimestamp"],
  ["lastTimestamp", "lastTimestamp"],
  ["count", "count"],
  ["reason", "reason"],
  ["type", "type"],
  ["eventTime", "eventTime"],
  ["action", "action"],
  ["related", "related"],
  ["reportingComponent", "reportingController"],
  ["reportingInstance", "reportingInstance"],
];

/** An update of an Event (core forms); through events.k8s.io/v1 (`strict`) only the series may change. */
export function validateEventUpdate(ev: Obj, old: Obj, namespace: string, strict: boolean): FieldError[] {
  const errs = legacy(ev, namespace);
  if (!strict) return errs;
  if (!deepEqual(zeroed(ev.series), zeroed(old.series))) errs.push(...series(ev));
  for (const [name, path] of immutableFields) {
    if (!deepEqual(zeroed(ev[name]), zeroed(old[name]))) errs.push(invalid(path, ev[name] ?? null, FIELD_IMMUTABLE));
  }
  return errs;
}
