import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { coreFormOf, eventToCore, eventToV1, eventsV1Conversion } from "./event-conversion.js";
import { newStyleEvent, oldStyleEvent } from "./event.testkit.js";

const core = { ...oldStyleEvent("web.1"), eventTime: null, reportingComponent: "", reportingInstance: "" } as unknown as KObject;
const metadata = core.metadata;

describe("Event conversion between core/v1 and events.k8s.io/v1", () => {
  it("renames the fields upstream renames, in the typed struct's order, leaving out what it omits when empty", () => {
    const v1 = eventToV1(core);
    expect(v1).toEqual({
      kind: "Event",
      apiVersion: "events.k8s.io/v1",
      metadata,
      eventTime: null,
      reason: "BackOff",
      regarding: (core as unknown as Record<string, unknown>).involvedObject,
      note: "Back-off restarting failed container",
      type: "Warning",
      deprecatedSource: { component: "kubelet", host: "node-1" },
      deprecatedFirstTimestamp: "2025-01-01T00:00:00Z",
      deprecatedLastTimestamp: "2025-01-01T00:05:00Z",
      deprecatedCount: 4,
    });
    expect(Object.keys(v1)).toEqual(["kind", "apiVersion", "metadata", "eventTime", "reason", "regarding", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"]);
  });

  it("maps an events.k8s.io/v1 Event to the core form with the fields a core Event always has", () => {
    const v1 = {
      ...newStyleEvent("web.1"),
      metadata,
      series: { count: 2, lastObservedTime: "2025-01-01T00:01:00.000000Z" },
      related: { kind: "ReplicaSet", namespace: "default", name: "web-1" },
    } as unknown as KObject & Record<string, unknown>;
    const c = eventToCore(v1);
    expect(c).toEqual({
      kind: "Event",
      apiVersion: "v1",
      metadata,
      involvedObject: v1.regarding,
      reason: "Synced",
      message: "synced",
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: "Normal",
      eventTime: "2025-01-01T00:00:00.000000Z",
      series: v1.series,
      action: "Reconcile",
      related: v1.related,
      reportingComponent: "example.com/controller",
      reportingInstance: "controller-0",
    });
    // And back: nothing is lost either way.
    expect(eventToV1(c)).toEqual({ ...v1, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
    expect(eventToCore(eventToV1(core))).toEqual({ ...core, reportingComponent: "", reportingInstance: "" });
  });

  it("converts each object to the asked apiVersion, leaving those already in it", async () => {
    const v1 = eventToV1(core);
    expect(await eventsV1Conversion.convert([core, v1], "events.k8s.io/v1")).toEqual([v1, v1]);
    expect(await eventsV1Conversion.convert([v1], "v1")).toEqual([eventToCore(v1)]);
    expect(eventsV1Conversion.storageApiVersion).toBe("v1");
    expect(coreFormOf(core)).toBe(core);
    expect(coreFormOf(v1)).toEqual(eventToCore(v1));
  });
});
