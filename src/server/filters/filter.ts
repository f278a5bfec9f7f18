// The shape every stage of the request path shares. A filter does its part and calls `next` to
// hand the request on (or answers and returns without calling it); the last stage, the router,
// is a plain handler. A filter refuses by throwing (an async filter) or returning a rejected
// promise (a synchronous one); the recovery filter turns either into a Status.
// A filter with nothing to await is better not `async`: it returns next(ctx)'s promise, and the
// request does not pay for one more promise at that stage.
import type { RequestContext } from "../../http/context.js";

export type Filter = (ctx: RequestContext, next: Handler) => Promise<void>;

/** The rest of the chain, called with the request's context: `next(ctx)`. */
export type Handler = (ctx: RequestContext) => Promise<void>;

/**
 * A filter whose own time is measured: from its start until it hands the request on (upstream's
 * filterlatency TrackStarted/TrackCompleted pair); a request it answers itself is not observed.
 */
export interface TimedFilter {
  filter: Filter;
  latency: { observe(seconds: number): void };
}

/**
 * Nests the filters around `last`: filters[0] runs first and sees everything the others do.
 * Each stage's `next` is made here, once, and takes the context as its argument, so a request
 * makes no closure per stage.
 */
export function compose(filters: readonly (Filter | TimedFilter)[], last: Handler): Handler {
  let handler = last;
  // The inner stage when it is timed: its start, given the clock's reading, for a timed stage
  // right before it to hand on with (one reading ends that stage and starts this one, as
  // upstream's TrackCompleted and the next TrackStarted follow each other; the clock costs
  // ~60 ns a reading here, and five timed stages follow each other).
  let innerTimedStart: ((ctx: RequestContext, now: number) => Promise<void>) | undefined;
  for (let i = filters.length - 1; i >= 0; i--) {
    const entry = filters[i]!;
    const inner = handler;
    if (typeof entry === "function") {
      handler = (ctx) => entry(ctx, inner);
      innerTimedStart = undefined;
    } else {
      // The stage's start is kept on the context: stages run one after another for a request,
      // and this one's time ends when it hands on, before the next stage starts its own.
      const { filter, latency } = entry;
      const next = innerTimedStart;
      const handOn: Handler = next
        ? (ctx) => {
            const now = performance.now();
            latency.observe((now - ctx.stageStartedAt) / 1000);
            return next(ctx, now);
          }
        : (ctx) => {
            latency.observe((performance.now() - ctx.stageStartedAt) / 1000);
            return inner(ctx);
          };
      const start = (ctx: RequestContext, now: number): Promise<void> => {
        ctx.stageStartedAt = now;
        return filter(ctx, handOn);
      };
      handler = (ctx) => start(ctx, performance.now());
      innerTimedStart = start;
    }
  }
  return handler;
}

/** A filter that only hands the request on (a seam whose capability is not built yet). */
export const passThrough: Filter = (ctx, next) => next(ctx);
