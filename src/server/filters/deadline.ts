// The deadline of a request that is not long-running: --request-timeout after it arrived, or
// sooner when its `timeout` query parameter asks (never later); a write (create, update, patch,
// delete, deletecollection) has at most 34 s, upstream's bound inside its write handlers. When
// the deadline passes first, the client is answered 504 at once and the request's signal aborts,
// so waits inside stop; the handler itself may still be running and is left to finish, its
// answer going nowhere and its storage writes not made (the store asks the request before each
// one), as kube-apiserver's timeout filter and cancelled context do. Long-running requests
// (watch) keep their own bounds (timeoutSeconds, --min-request-timeout) and get no deadline here.
import { ApiError, badRequest } from "../../apimachinery/errors.js";
import { parseGoDuration } from "../../apimachinery/duration.js";
import { requestInfoOf, type RequestContext } from "../../http/context.js";
import { writeBytes } from "../../http/respond.js";
import type { Exchange } from "../../http/exchange.js";
import { QuietableExchange } from "../../http/quiet-exchange.js";
import type { PostTimeoutSource, RequestPathMetrics } from "../../observability/request-path-metrics.js";
import type { LongRunningCheck } from "../long-running.js";
import type { Filter, Handler } from "./filter.js";
import { metricLabels } from "./metrics.js";

export interface DeadlineOptions {
  /** --request-timeout, in ms. */
  requestTimeoutMs: number;
  isLongRunning: LongRunningCheck;
  /** Where cut-off responses and handlers' post-timeout endings are counted. */
  metrics?: RequestPathMetrics;
}

/** How long a write's handler is waited for after its bound before it counts as pending (upstream's postTimeoutLoggerWait). */
const postTimeoutWaitMs = 5 * 60_000;

/** kube-apiserver's answer when a request outlives its deadline. */
export function requestTimeoutError(): ApiError {
  return new ApiError(504, "Timeout", "Timeout: request did not complete within the allotted timeout");
}

/**
 * The body upstream's timeout filter writes: the Status struct as Go's json.Encoder writes it —
 * no kind or apiVersion (no serializer sets them), empty details, a newline — whatever encoding
 * the client asked for. Go sniffs it as plain text, so that is its Content-Type.
 */
const timeoutBody = Buffer.from(
  JSON.stringify({ metadata: {}, status: "Failure", message: "Timeout: request did not complete within the allotted timeout", reason: "Timeout", details: {}, code: 504 }) + "\n",
);

/** Upstream's requestTimeoutUpperBound: the most a write handler waits for its work. */
export const writeUpperBoundMs = 34_000;
const boundedWrites = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** A write handler's own answer when its bound passes first (upstream's FinishRequest). */
export function writeTimeoutError(): ApiError {
  return new ApiError(504, "Timeout", "Timeout: request did not complete within requested timeout - context deadline exceeded");
}

export function deadlineFilter(o: DeadlineOptions): Filter {
  return (ctx, next) => {
    let deadline: number;
    let timeoutError = requestTimeoutError;
    try {
      const info = requestInfoOf(ctx);
      if (o.isLongRunning(info)) return next(ctx);
      const allotted = allottedTime(ctx.ex.query.get("timeout"), o.requestTimeoutMs);
      if (boundedWrites.has(info.verb) && writeUpperBoundMs < allotted) {
        deadline = ctx.receivedAt + writeUpperBoundMs;
        timeoutError = writeTimeoutError;
      } else deadline = ctx.receivedAt + allotted;
    } catch (e) {
      return Promise.reject(e);
    }
    ctx.deadline = deadline;
    return new DeadlineRace(ctx, timeoutError, o.metrics).run(next, deadline);
  };
}

/** The race object whose resolvers the shared executor below takes (no executor closure per request). */
let racing: DeadlineRace | undefined;
function takeResolvers(resolve: () => void, reject: (e: unknown) => void): void {
  racing!.resolve = resolve;
  racing!.reject = reject;
}

/**
 * One request's race between the rest of the chain and its deadline, whichever comes first
 * settling the request. One object holds what the timer and the chain's ending need, so a request
 * that ends in time costs it, a timer and two callbacks (issue 26: what a GET allocates).
 */
class DeadlineRace {
  resolve!: () => void;
  reject!: (e: unknown) => void;
  private settled = false;
  private timer: NodeJS.Timeout | undefined;
  private work!: Promise<void>;
  private readonly real: Exchange;
  private readonly handedOn: QuietableExchange;

  constructor(
    private readonly ctx: RequestContext,
    private readonly timeoutError: () => ApiError,
    private readonly metrics: RequestPathMetrics | undefined,
  ) {
    this.real = ctx.ex;
    this.handedOn = new QuietableExchange(this.real);
    ctx.ex = this.handedOn;
  }

  run(next: Handler, deadline: number): Promise<void> {
    racing = this;
    const settles = new Promise<void>(takeResolvers);
    racing = undefined;
    try {
      this.work = next(this.ctx);
    } catch (e) {
      this.work = Promise.reject(e);
    }
    this.timer = setTimeout(expire, Math.max(0, deadline - Date.now()), this);
    this.work.then(this.ended, this.failed);
    return settles;
  }

  private readonly ended = (): void => {
    if (this.finish()) this.resolve();
  };

  private readonly failed = (e: unknown): void => {
    if (this.finish()) this.reject(e);
  };

  /** The chain ended first: true when this settles the request. */
  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.ctx.ex = this.real;
    return true;
  }

  /** The deadline came first. */
  expire(): void {
    if (this.settled) return;
    this.settled = true;
    const { ctx, real, timeoutError } = this;
    ctx.ex = real;
    this.handedOn.quiet();
    const err = timeoutError();
    ctx.cancel(err);
    // What the handler does from here on reaches no one (upstream logs and counts it as post-timeout activity).
    const source: PostTimeoutSource = timeoutError === writeTimeoutError ? "rest-handler" : "timeout-handler";
    if (this.metrics) afterTimeout(this.work, source, this.metrics);
    else this.work.catch(() => undefined);
    // A write's own bound is its handler's answer, negotiated as any error; the deadline is
    // the timeout filter's, which ends the request in self-defence and writes its own body.
    if (timeoutError === writeTimeoutError) {
      if (!real.headersSent) return this.reject(err);
    } else {
      ctx.terminatedWith = 504;
      if (!real.headersSent) {
        writeBytes(real, 504, timeoutBody, "text/plain; charset=utf-8");
        return this.resolve();
      }
    }
    // A response already under way cannot become a 504: cut it off so the client sees it failed.
    real.abort();
    this.metrics?.aborted(metricLabels(ctx.info!, real));
    this.resolve();
  }
}

const expire = (race: DeadlineRace) => race.expire();

/**
 * Counts how a timed-out request's handler ended: the timeout filter sees it return or throw
 * (a thrown Status is its answer, as a Go handler writes one: "ok"); a write's own bound also
 * tells a Status ("error") apart, and stops waiting after five minutes ("pending").
 */
function afterTimeout(work: Promise<void>, source: PostTimeoutSource, metrics: RequestPathMetrics): void {
  let done = false;
  const pending = source === "rest-handler" ? setTimeout(() => ((done = true), metrics.handlerAfterTimeout(source, "pending")), postTimeoutWaitMs) : undefined;
  pending?.unref();
  const ended = (status: "ok" | "error" | "panic") => {
    clearTimeout(pending);
    if (!done) metrics.handlerAfterTimeout(source, status);
    done = true;
  };
  work.then(
    () => ended("ok"),
    (e) => ended(!(e instanceof ApiError) ? "panic" : source === "rest-handler" ? "error" : "ok"),
  );
}

/** The request's time: the `timeout` parameter when it is positive and shorter, else the maximum. */
export function allottedTime(timeoutParam: string | null, maximumMs: number): number {
  if (timeoutParam === null || timeoutParam === "") return maximumMs;
  let ms: number;
  try {
    ms = parseGoDuration(timeoutParam);
  } catch (e) {
    throw badRequest(`invalid timeout specified in the request URL - ${(e as Error).message}`);
  }
  return ms > 0 && ms < maximumMs ? ms : maximumMs;
}
