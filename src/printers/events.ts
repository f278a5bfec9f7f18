// Printer for events.k8s.io Events: upstream serves them from the core Event storage,
// so they print with the core columns after mapping the renamed fields.
import { eventCells, eventColumns, type EventView } from "./core.js";
import { int, name, str } from "./helpers.js";
import type { Printer } from "./types.js";

function eventsV1View(ev: any): EventView {
  const regarding = ev?.regarding ?? {};
  return {
    name: name(ev),
    type: str(ev?.type),
    reason: str(ev?.reason),
    message: str(ev?.note),
    firstTimestamp: ev?.deprecatedFirstTimestamp,
    lastTimestamp: ev?.deprecatedLastTimestamp,
    eventTime: ev?.eventTime,
    count: int(ev?.deprecatedCount),
    series: ev?.series ? { count: int(ev.series.count), lastObservedTime: ev.series.lastObservedTime } : undefined,
    involvedObject: { kind: str(regarding.kind), name: str(regarding.name), fieldPath: str(regarding.fieldPath) },
    source: { component: str(ev?.deprecatedSource?.component), host: str(ev?.deprecatedSource?.host) },
    reportingController: str(ev?.reportingController),
    reportingInstance: str(ev?.reportingInstance),
  };
}

export const eventsV1Printer: Printer = {
  columns: eventColumns,
  cells(ev, now) {
    return eventCells(eventsV1View(ev), now);
  },
};
