// What a test harness may attach to a request to see, and steer, the events of a watch: the call
// journal records each event sent; fault injection ends a watch after some events, as a dropped
// connection or an expired watch would. Attached by filters above the handler (src/testing/); the
// watch handler consults it only when present, so a server without a harness pays nothing.
import type { ApiError } from "../apimachinery/errors.js";

/** One event as written to the stream. */
export interface WatchEventNote {
  type: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
}

/**
 * How the watch ends early: `drop` ends the stream with no last word (a connection lost);
 * `error` sends an ERROR event carrying `status` (after a BOOKMARK at the last revision sent, when
 * `bookmark` and the client allowed bookmarks), then ends the stream, as the real server does when
 * it expires a watch.
 */
export type WatchEnding = { end: "drop" } | { end: "error"; status: ApiError; bookmark: boolean };

export interface WatchTap {
  /** Once the stream is open, before any event: an ending ends the watch at once. */
  begin?(): WatchEnding | undefined;
  /** After each event is written (the ending's own events too, whose answers are not asked). */
  sent(event: WatchEventNote): WatchEnding | undefined;
}

/** Both taps see every event; the first ending either answers wins. */
export function chainTaps(first: WatchTap | undefined, second: WatchTap): WatchTap {
  if (!first) return second;
  return {
    begin: () => first.begin?.() ?? second.begin?.(),
    sent(e) {
      const a = first.sent(e);
      const b = second.sent(e);
      return a ?? b;
    },
  };
}
