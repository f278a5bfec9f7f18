// One object per request, handed from filter to filter and on to the handler: what arrived (the
// exchange), what it asks for (request info), who asks (user), how long it may take (deadline +
// signal), and what the response will carry besides its body (warnings, the audit event).
import { internalError } from "../apimachinery/errors.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { AuditRecorder } from "../observability/audit/request-audit.js";
import type { Level } from "../observability/audit/types.js";
import type { Exchange } from "./exchange.js";
import type { RequestInfo } from "./request-info.js";
import type { WatchTap } from "./watch-tap.js";

/**
 * Time a request spent waiting on what its latency SLI leaves out (upstream's LatencyTrackers):
 * admission webhook calls and the flow-control queue. Made by whichever stage first waits so.
 */
export interface LatencyTrackers {
  mutatingWebhookSeconds: number;
  /** The wall time of each validating pass (its webhooks are called in parallel). */
  validatingWebhookSeconds: number;
  apfQueueWaitSeconds: number;
}

export function latencyTrackers(ctx: RequestContext): LatencyTrackers {
  return (ctx.latency ??= { mutatingWebhookSeconds: 0, validatingWebhookSeconds: 0, apfQueueWaitSeconds: 0 });
}

export interface RequestContext {
  /**
   * The exchange later stages read and write. The deadline filter replaces it, for the stages
   * after it, with one that goes quiet once the timeout has been answered.
   */
  ex: Exchange;
  /** When the request arrived (ms since the epoch); the deadline counts from here. */
  readonly receivedAt: number;
  /** Set by the request-info filter. */
  info: RequestInfo | undefined;
  /** Set by authentication, replaced by impersonation. */
  user: UserInfo | undefined;
  /**
   * Aborts when the deadline passes (reason: the 504 Timeout ApiError) or the response's stream
   * closes — the client went away, or the response is complete and nothing waits any more.
   * Waits (storage revisions, watch cache freshness) and watches end on it. Made on first read:
   * where an optional `{ signal }` is taken, pass the context itself, so that a request that never
   * waits never makes one.
   */
  readonly signal: AbortSignal;
  /**
   * Why the request ended before its handler did (the deadline's 504, or the stream closed), or
   * undefined while it is still wanted: the check before a write commits, which makes no signal.
   */
  readonly cancelReason: unknown;
  /** Absolute deadline (ms since the epoch); undefined for long-running requests (watch). */
  deadline: number | undefined;
  /**
   * The request's audit event, when the server audits (set as the request arrives; the policy
   * decides its level at the audit stage). Stages record on it: the impersonated user, the
   * decoded request body. Annotations go through annotate().
   */
  audit: AuditRecorder | undefined;
  /**
   * Adds an audit annotation (authorization's decision, admission plugins', deprecation's),
   * recorded when the request is audited at `level` (Metadata by default) or above; the first
   * value of a key stays. Nothing happens when the request is not audited.
   */
  annotate(key: string, value: string, level?: Level): void;
  /** Warning header entries collected while handling; written with the response, error or not. */
  readonly warnings: string[];
  /** What the latency SLI leaves out, once some stage waited on it (latencyTrackers()). */
  latency: LatencyTrackers | undefined;
  /** Aborts `signal` with `reason`; the first call wins. */
  cancel(reason: unknown): void;
  /** A test harness's view of a watch's events (src/testing/); undefined in a plain server. */
  watchTap: WatchTap | undefined;
  /** The fault a test harness injected into this request, for its journal; undefined otherwise. */
  fault: unknown;
  /**
   * Set by flow control on a watch: the watch handler calls it once the watch's initial events
   * are sent (or it ended before), which frees the seat the watch held while it initialized.
   */
  watchInitialized: (() => void) | undefined;
  /**
   * The status a stage answered when it ended the request to protect the server (the deadline's
   * 504, flow control's 429): counted in apiserver_request_terminations_total.
   */
  terminatedWith: number | undefined;
  /** When the timed filter stage now running started (performance.now()); the chain's own bookkeeping. */
  stageStartedAt: number;
}

/**
 * A handler for a path outside /api and /apis resources (health, version, metrics, discovery,
 * openapi). Answers true when it handled the request.
 */
export type NonResourceHandler = (ex: Exchange, user: UserInfo, info: RequestInfo) => Promise<boolean> | boolean;

/** Why the signal aborted when the stream closed before the deadline. */
export class StreamClosedError extends Error {
  override name = "StreamClosedError";
  constructor() {
    super("the request's stream closed");
  }
}

// The AbortController, and the watch on the stream's close, are made on first use of `signal`:
// most requests never wait on anything, and a controller, a close listener and an abort event
// each cost more than the rest of the chain's own work.
class Context implements RequestContext {
  info: RequestInfo | undefined = undefined;
  user: UserInfo | undefined = undefined;
  deadline: number | undefined = undefined;
  audit: AuditRecorder | undefined = undefined;
  readonly warnings: string[] = [];
  latency: LatencyTrackers | undefined = undefined;
  watchTap: WatchTap | undefined = undefined;
  fault: unknown = undefined;
  watchInitialized: (() => void) | undefined = undefined;
  terminatedWith: number | undefined = undefined;
  stageStartedAt = 0;
  private controller: AbortController | undefined;
  private cancelled = false;
  private reason: unknown;
  /** The exchange as it arrived (`ex` may be swapped for a quietable one later). */
  private readonly stream: Exchange;

  constructor(
    public ex: Exchange,
    readonly receivedAt: number,
  ) {
    this.stream = ex;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
      else if (this.stream.closed) this.cancel(streamClosed);
      else this.stream.onClose(() => this.cancel(streamClosed));
    }
    return this.controller.signal;
  }

  get cancelReason(): unknown {
    if (this.cancelled) return this.reason;
    return this.stream.closed ? streamClosed : undefined;
  }

  annotate(key: string, value: string, level?: Level): void {
    this.audit?.annotate(key, value, level);
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

// One shared reason: it carries no per-request detail, and an Error's stack costs microseconds.
const streamClosed = new StreamClosedError();

/** A fresh context for an exchange; its signal aborts when the exchange's stream closes. */
export function newRequestContext(ex: Exchange, receivedAt = Date.now()): RequestContext {
  return new Context(ex, receivedAt);
}

/** The request info, which the request-info filter set; its absence is a wrongly built chain. */
export function requestInfoOf(ctx: RequestContext): RequestInfo {
  if (!ctx.info) throw internalError("no RequestInfo found in the context, the handler chain must be wrong");
  return ctx.info;
}

/** The user, which authentication set; its absence is a wrongly built chain. */
export function userOf(ctx: RequestContext): UserInfo {
  if (!ctx.user) throw internalError("no User found in the context, the handler chain must be wrong");
  return ctx.user;
}
