import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { validateEvent, validateEventUpdate } from "./events.js";

const messages = (errs: Parameters<typeof formatFieldError>[0][]) => errs.map(formatFieldError);

/** A new-style Event in the core form, as events.k8s.io/v1 writes it. */
const newStyle = () => ({
  involvedObject: { kind: "Pod", namespace: "default", name: "web" },
  reason: "Started",
  message: "started",
  source: {},
  firstTimestamp: null,
  lastTimestamp: null,
  type: "Normal",
  eventTime: "2025-01-01T00:00:00.000000Z",
  action: "Start",
  reportingComponent: "example.com/ctrl",
  reportingInstance: "ctrl-0",
});

describe("Event validation (upstream's legacy and events.k8s.io/v1 rules)", () => {
  it("takes an old-style core Event whose involved object is in its namespace, or cluster-scoped in default", () => {
    const old = { involvedObject: { kind: "Pod", namespace: "a", name: "p" }, reason: "x", source: {}, eventTime: null };
    expect(validateEvent(old, "a", false)).toEqual([]);
    expect(validateEvent({ ...old, involvedObject: { kind: "Node", name: "n" } }, "default", false)).toEqual([]);
    expect(messages(validateEvent(old, "b", false))).toEqual(['involvedObject.namespace: Invalid value: "a": does not match event.namespace']);
    expect(messages(validateEvent({ ...old, involvedObject: { kind: "Node", name: "n" } }, "b", false))).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });

  it("asks an Event with eventTime for its reporter, action and reason, in either version", () => {
    const e = { ...newStyle(), reportingComponent: "", reportingInstance: "", action: "", reason: "x".repeat(129) };
    expect(messages(validateEvent(e, "default", false))).toEqual([
      "reportingController: Required value",
      'reportingController: Invalid value: "": name part must be non-empty',
      `reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      "reportingInstance: Required value",
      "action: Required value",
      'reason: Invalid value: "": can have at most 128 characters',
    ]);
    expect(validateEvent(newStyle(), "default", true)).toEqual([]);
  });

  it("refuses through events.k8s.io/v1 what the new API leaves out: no eventTime, a bad type, deprecated fields set, a short series", () => {
    const e = { ...newStyle(), eventTime: null, type: "Bogus", count: 3, firstTimestamp: "2025-01-01T00:00:00Z", source: { component: "kubelet" }, series: { count: 1 } };
    expect(messages(validateEvent(e, "default", true))).toEqual([
      'series.count: Invalid value: "": should be at least 2',
      "series.lastObservedTime: Required value",
      "eventTime: Required value",
      'type: Invalid value: "": has invalid value: Bogus',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
  });

  it("lets an update through events.k8s.io/v1 change only the series (and zero values stay zero)", () => {
    const old = newStyle();
    const series = { ...old, series: { count: 2, lastObservedTime: "2025-01-01T00:01:00.000000Z" }, source: undefined, reportingInstance: "ctrl-0" };
    expect(validateEventUpdate(series, old, "default", true)).toEqual([]);
    const changed = { ...old, message: "changed", reason: "Other" };
    expect(messages(validateEventUpdate(changed, old, "default", true))).toEqual([
      'reason: Invalid value: "Other": field is immutable',
      'message: Invalid value: "changed": field is immutable',
      'reason: Invalid value: "Other": field is immutable',
    ]);
    // Through core/v1 only the legacy rules apply.
    expect(validateEventUpdate(changed, old, "default", false)).toEqual([]);
  });
});
