// The text of /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and
// dump_requests (upstream: flowcontrol/apf_controller_debug.go): comma-ended cells in columns
// aligned as Go's tabwriter aligns them, levels in name order.
import type { Dispatcher } from "./dispatcher.js";
import type { Request } from "./queueset.js";
import { tabwrite } from "./tabwriter.js";

const row = (cells: readonly (string | number | boolean)[]) => cells.map(String).join(",\t");

function levelsByName(d: Dispatcher) {
  return [...d.priorityLevels().entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
}

export function dumpPriorityLevels(d: Dispatcher): string {
  const lines = [row(["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests"])];
  for (const s of levelsByName(d)) {
    const q = s.queues!.dump();
    const active = q.queues.filter((x) => x.waiting.length > 0).length;
    lines.push(row([s.pl.metadata.name, active, s.queues!.isIdle(), s.quiescing, q.waiting, q.executing, q.dispatched, q.rejected, q.timedout, q.cancelled]));
  }
  return tabwrite(lines.join("\n") + "\n");
}

export function dumpQueues(d: Dispatcher): string {
  const lines = [row(["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"])];
  for (const s of levelsByName(d)) {
    s.queues!.dump().queues.forEach((q, i) => {
      lines.push(row([s.pl.metadata.name, i, q.waiting.length, q.executing.length, q.seatsInUse, q.nextDispatchR, q.initialSeatsSum, q.maxSeatsSum, q.totalWorkSum]));
    });
  }
  return tabwrite(lines.join("\n") + "\n");
}

export function dumpRequests(d: Dispatcher, includeRequestDetails: boolean): string {
  let header = row(["PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher", "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime"]);
  if (includeRequestDetails) header += ",\t" + row(["UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource"]);
  const lines = [header];
  for (const s of levelsByName(d)) {
    const q = s.queues!.dump();
    const add = (queueIndex: number, indexInQueue: number, r: Request) => {
      let line = row([
        s.pl.metadata.name,
        r.fsName,
        queueIndex,
        indexInQueue,
        r.flowDistinguisher,
        rfc3339Nano(r.arrivalTime),
        r.work.initialSeats,
        r.work.finalSeats,
        goDuration(r.work.additionalLatencyMs),
        rfc3339Nano(r.startTime),
      ]);
      if (includeRequestDetails) {
        const x = r.detail.info;
        line += ",\t" + row([r.detail.user.name, x.verb, x.path, x.namespace, x.name, x.apiGroup ? `${x.apiGroup}/${x.apiVersion}` : x.apiVersion, x.resource, x.subresource]);
      }
      lines.push(line);
    };
    q.queues.forEach((queue, iq) => {
      queue.waiting.forEach((r, ir) => add(iq, ir, r));
      for (const r of queue.executing) add(iq, -1, r);
    });
    for (const r of q.queuelessExecuting) add(-1, -1, r);
  }
  return tabwrite(lines.join("\n") + "\n");
}

/**
 * Go's RFC3339Nano in UTC: fractional seconds without trailing zeros (none when whole). A request
 * not started yet has Go's zero time.
 */
export function rfc3339Nano(ms: number): string {
  if (ms === 0) return "0001-01-01T00:00:00Z";
  const whole = Math.floor(ms);
  const base = new Date(whole).toISOString().slice(0, 19);
  const nanos = Math.round((ms - Math.floor(ms / 1000) * 1000) * 1e6);
  const frac = nanos === 0 ? "" : "." + String(nanos).padStart(9, "0").replace(/0+$/, "");
  return `${base}${frac}Z`;
}

/** Go's time.Duration String for a duration in ms ("0s", "5ms", "1.5s", "2m0s"). */
export function goDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return "0s";
  if (ns < 1000) return `${ns}ns`;
  if (ns < 1e6) return `${trimFraction(ns / 1e3)}µs`;
  if (ns < 1e9) return `${trimFraction(ns / 1e6)}ms`;
  const totalSeconds = ns / 1e9;
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds - h * 3600) / 60);
  const s = totalSeconds - h * 3600 - m * 60;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${trimFraction(s)}s`;
}

function trimFraction(x: number): string {
  return x.toFixed(9).replace(/\.?0+$/, "");
}
