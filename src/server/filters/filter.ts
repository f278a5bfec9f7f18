// The shape every stage of the request path shares. A filter does its part and calls `next` to
// hand the request on (or answers and returns without calling it); the last stage, the router,
// is a plain handler. A filter refuses by throwing (an async filter) or returning a rejected
// promise (a synchronous one); the recovery filter turns either into a Status.
// A filter with nothing to await is better not `async`: it returns next()'s promise, and the
// request does not pay for one more promise at that stage.
import type { RequestContext } from "../../http/context.js";

export type Filter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

export type Handler = (ctx: RequestContext) => Promise<void>;

/** Nests the filters around `last`: filters[0] runs first and sees everything the others do. */
export function compose(filters: readonly Filter[], last: Handler): Handler {
  let handler = last;
  for (let i = filters.length - 1; i >= 0; i--) {
    const filter = filters[i]!;
    const inner = handler;
    handler = (ctx) => filter(ctx, () => inner(ctx));
  }
  return handler;
}

/** A filter that only hands the request on (a seam whose capability is not built yet). */
export const passThrough: Filter = (_ctx, next) => next();
