// How many seats a request takes (upstream: flowcontrol/request/width.go and its list and
// mutating estimators, release 1.34): one by default; a list (and, with WatchList, a watch that
// sends its initial events) as many as the objects it goes through need (100 objects a seat,
// from the last count of the resource's objects); a write one
// while it runs and, when its events reach many watches (10 a seat), more for 5 ms a seat after.
// Never more than the priority level's maximum seats.
import type { RequestInfo } from "../../http/request-info.js";
import type { WatchTracker } from "./watch-tracker.js";
import { msPerSeat, seatsTimesMs } from "./seat-seconds.js";
import type { WorkEstimate } from "./work-estimate.js";

const minimumSeats = 1;
const maximumListSeats = 10;
const maximumMutatingSeats = 10;
const objectsPerSeat = 100;
const watchesPerSeat = 10;
const eventAdditionalMs = 5;

export interface EstimatorParts {
  /** The last count of a resource's objects ("resource.group", "resource" for core), if known. */
  objectCount(groupResource: string): number | undefined;
  watches: WatchTracker;
  /** A priority level's maximum seats for one request (0: unknown). */
  maxSeats(plName: string): number;
  /** The WatchList gate: a watch that sends its initial events costs what a list from the cache does. */
  watchList: boolean;
}

export type WorkEstimator = (info: RequestInfo, query: URLSearchParams, plName: string) => WorkEstimate;

/** What most requests take (read only: the queue set copies what it keeps). */
const oneSeat: WorkEstimate = Object.freeze({ initialSeats: minimumSeats, finalSeats: 0, additionalLatencyMs: 0 });

export function workEstimator(parts: EstimatorParts): WorkEstimator {
  const cap = (pl: string, limit: number) => {
    const m = parts.maxSeats(pl);
    return m === 0 || m > limit ? limit : m;
  };
  return (info, query, pl) => {
    switch (info.verb) {
      case "list":
        return { initialSeats: listSeats(info, query, parts, cap(pl, maximumListSeats)), finalSeats: 0, additionalLatencyMs: 0 };
      case "watch":
        if (!parts.watchList || query.get("sendInitialEvents") !== "true") return oneSeat;
        return { initialSeats: listSeats(info, query, parts, cap(pl, maximumListSeats)), finalSeats: 0, additionalLatencyMs: 0 };
      case "create":
      case "update":
      case "patch":
      case "delete":
        return mutatingEstimate(info, parts, cap(pl, maximumMutatingSeats));
      default:
        return oneSeat;
    }
  };
}

function listSeats(info: RequestInfo, query: URLSearchParams, parts: EstimatorParts, max: number): number {
  const count = parts.objectCount(info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource);
  if (count === undefined) return minimumSeats;
  const limitParam = Number(query.get("limit") ?? 0);
  const limit = limitParam > 0 && limitParam < count ? limitParam : count;
  // Served from the watch cache every stored object is looked at; from storage, the page twice.
  const fromCache = servedFromCache(query, limitParam);
  let objects: number;
  if (info.name) objects = 1;
  else if (fromCache || info.verb === "watch") objects = count;
  else if (query.get("fieldSelector") || query.get("labelSelector")) objects = count + limit;
  else objects = 2 * limit;
  return Math.min(max, Math.max(minimumSeats, Math.ceil(objects / objectsPerSeat)));
}

function mutatingEstimate(info: RequestInfo, parts: EstimatorParts, max: number): WorkEstimate {
  // A token's request writes nothing watched.
  if (info.resource === "serviceaccounts" && info.subresource === "token") return oneSeat;
  const watches = parts.watches.interestedWatches(info);
  if (watches < watchesPerSeat) return { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0, watchCount: watches };
  const seats = Math.ceil(watches / watchesPerSeat);
  const finalWork = seatsTimesMs(seats, eventAdditionalMs);
  const finalSeats = Math.min(seats, max);
  return { initialSeats: 1, finalSeats, additionalLatencyMs: msPerSeat(finalWork, finalSeats), watchCount: watches };
}

/** Whether a list is answered from the watch cache (upstream's delegation rules, consistent lists from the cache). */
function servedFromCache(query: URLSearchParams, limit: number): boolean {
  const rv = query.get("resourceVersion") ?? "";
  switch (query.get("resourceVersionMatch") ?? "") {
    case "Exact":
      return false;
    case "NotOlderThan":
      return true;
    default:
      if (limit > 0 && rv !== "" && rv !== "0") return false;
      return !query.get("continue");
  }
}
