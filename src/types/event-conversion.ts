// events.k8s.io/v1 Event is the core/v1 Event under other names: both versions are served over
// one stored kind (core/v1 Event, under /registry/events/, as upstream stores them), mapped
// field by field (upstream's conversion through the internal Event):
//   involvedObject ↔ regarding            message ↔ note
//   source ↔ deprecatedSource             count ↔ deprecatedCount
//   firstTimestamp ↔ deprecatedFirstTimestamp
//   lastTimestamp ↔ deprecatedLastTimestamp
//   reportingComponent ↔ reportingController
// and the rest (eventTime, series, action, reason, related, reportingInstance, type, metadata)
// as they are. Each form comes out with the fields its typed struct always serialises.
import type { KObject } from "../apimachinery/object.js";
import type { VersionConversion } from "../registry/resource-type.js";
import { defaultCoreEvent, defaultEventsV1Event } from "./defaults/core.js";

export const eventsV1ApiVersion = "events.k8s.io/v1";

/** [core/v1 name, events.k8s.io/v1 name] of the renamed fields. */
const renamed: readonly (readonly [string, string])[] = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
  ["reportingComponent", "reportingController"],
];
const toV1 = new Map(renamed);
const toCore = new Map(renamed.map(([core, v1]) => [v1, core]));

// Field order as each typed struct serialises (kind, apiVersion and metadata first).
const coreOrder = ["involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "series", "action", "related", "reportingComponent", "reportingInstance"];
const v1Order = ["eventTime", "series", "reportingController", "reportingInstance", "action", "reason", "regarding", "related", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"];

// Fields a Go struct leaves out when empty (omitempty on a string, an integer or a pointer).
const v1OmitEmpty = new Set(["series", "reportingController", "reportingInstance", "action", "reason", "related", "note", "type", "deprecatedCount"]);

function renamedAs(obj: KObject, names: ReadonlyMap<string, string>, order: readonly string[], apiVersion: string): KObject {
  const { kind: _k, apiVersion: _a, metadata, ...fields } = obj as KObject & Record<string, unknown>;
  const moved: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) moved[names.get(k) ?? k] = v;
  const out: Record<string, unknown> = { kind: "Event", apiVersion, metadata };
  for (const k of order) if (k in moved) out[k] = moved[k];
  // Anything else the stored object carries is kept, after the known fields.
  for (const [k, v] of Object.entries(moved)) if (!(k in out)) out[k] = v;
  return out as unknown as KObject;
}

/** A stored (core/v1) Event as events.k8s.io/v1 serves it. */
export function eventToV1(core: KObject): KObject {
  const out = renamedAs(core, toV1, v1Order, eventsV1ApiVersion) as KObject & Record<string, unknown>;
  for (const k of v1OmitEmpty) if (out[k] === "" || out[k] === 0 || out[k] === null) delete out[k];
  defaultEventsV1Event(out);
  return out;
}

/** An events.k8s.io/v1 Event as it is stored (core/v1). */
export function eventToCore(v1: KObject): KObject {
  const out = renamedAs(v1, toCore, coreOrder, "v1");
  defaultCoreEvent(out as unknown as Record<string, unknown>);
  return out;
}

/** Either form as the core/v1 one (what validation and selectable fields read). */
export function coreFormOf(obj: KObject): KObject {
  return obj.apiVersion === eventsV1ApiVersion ? eventToCore(obj) : obj;
}

/** The conversion of the events.k8s.io/v1 type: written as core/v1, read back as events.k8s.io/v1. */
export const eventsV1Conversion: VersionConversion = {
  strategy: "Builtin",
  storageApiVersion: "v1",
  async convert(objects, toApiVersion) {
    return objects.map((o) => {
      if (o.apiVersion === toApiVersion) return o;
      return toApiVersion === eventsV1ApiVersion ? eventToV1(o) : eventToCore(o);
    });
  },
};
