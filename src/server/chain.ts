// The request path, assembled in one place and read top to bottom: each request gets one
// RequestContext and passes these stages in this order (kube-apiserver's order), ending at the
// router. Each stage is a small module under ./filters/ with its own tests.
import type { ApiError } from "../apimachinery/errors.js";
import type { Authorizer } from "../authz/authorizer.js";
import type { CodecSet } from "../encoding/negotiate.js";
import { newRequestContext } from "../http/context.js";
import type { Exchange } from "../http/exchange.js";
import type { ServerMetrics } from "../observability/metrics.js";
import type { Auditing } from "../observability/audit/auditing.js";
import { auditFilter, auditInitFilter } from "./filters/audit.js";
import { authenticationFilter, type Authenticate } from "./filters/authentication.js";
import { authorizationFilter } from "./filters/authorization.js";
import { deadlineFilter } from "./filters/deadline.js";
import { compose, passThrough, type Filter, type Handler, type TimedFilter } from "./filters/filter.js";
import { goawayFilter } from "./filters/goaway.js";
import { impersonationFilter } from "./filters/impersonation.js";
import { metricsFilter } from "./filters/metrics.js";
import { recoveryFilter } from "./filters/recovery.js";
import { requestInfoFilter } from "./filters/request-info.js";
import { shutdownFilter } from "./filters/shutdown.js";
import type { LongRunningCheck } from "./long-running.js";

export interface ChainConfig {
  /** The one conversion of thrown values to ApiError (the recovery filter's). */
  toApiError: (thrown: unknown) => ApiError;
  /** Encodings errors can be written in (negotiated from Accept). */
  codecs: CodecSet;
  metrics?: ServerMetrics;
  /** --request-timeout, in ms. */
  requestTimeoutMs: number;
  /** Whether the server drains (after --shutdown-delay-duration), and --shutdown-send-retry-after. */
  shutdown?: { draining(): boolean; sendRetryAfter: boolean };
  /** --goaway-chance (0: no GOAWAY filter). */
  goawayChance?: number;
  isLongRunning: LongRunningCheck;
  authenticate: Authenticate;
  /** The audit policy and backends (--audit-policy-file with a backend); absent: nothing is audited, every response still carries its Audit-Id. */
  audit?: Auditing;
  authorizer: Authorizer;
  /** AuthorizeWithSelectors: list/watch/deletecollection selectors reach the authorizers. */
  authorizeWithSelectors?: boolean;
  /** Flow control: priority and fairness, or max-in-flight when it is turned off. */
  flowControl: Filter;
  /** Whether flowControl is priority and fairness (timed as a filter; max-in-flight is not, as upstream). */
  priorityAndFairness?: boolean;
  /** The last stage: routes to the non-resource, subresource or verb handler. */
  router: Handler;
  /**
   * A test harness's seams (src/testing/), absent in a plain server so that it pays nothing:
   * `observe` sees every request and its answer (outermost: the call journal), `inject` sees
   * each authorized request just before the router (fault injection).
   */
  harness?: { observe?: Filter; inject?: Filter };
}

export function buildHandlerChain(c: ChainConfig): (ex: Exchange) => Promise<void> {
  // The stages upstream times (apiserver_request_filter_duration_seconds), when metrics are kept.
  const path = c.metrics?.requestPath;
  const timed = (name: Parameters<NonNullable<typeof path>["filter"]>[0], filter: Filter): Filter | TimedFilter => (path ? { filter, latency: path.filter(name) } : filter);
  const handle = compose(
    [
      ...(c.harness?.observe ? [c.harness.observe] : []), //           the call journal (tests)
      auditInitFilter(c.audit), //                                       Audit-Id; the response as audit sees it
      recoveryFilter({ toApiError: c.toApiError, codecs: c.codecs }), // any throw → Status, never a crash
      requestInfoFilter({ authorizeWithSelectors: c.authorizeWithSelectors ?? false }), // verb, resource, namespace, name
      c.metrics ? metricsFilter(c.metrics.requests, c.isLongRunning, path) : passThrough, // counted with the status sent
      c.shutdown ? shutdownFilter({ ...c.shutdown, isLongRunning: c.isLongRunning }) : passThrough, // draining: 429/503
      ...(c.goawayChance ? [goawayFilter(c.goawayChance)] : []), //        HTTP/2 rebalancing
      deadlineFilter({ requestTimeoutMs: c.requestTimeoutMs, isLongRunning: c.isLongRunning, metrics: path }), // 504
      timed("authentication", authenticationFilter(c.authenticate, c.metrics?.authentication)), // who: 401 when no one
      timed("audit", c.audit ? auditFilter(c.audit, { isLongRunning: c.isLongRunning, toApiError: c.toApiError }) : passThrough), // what was asked, by whom
      timed("impersonation", impersonationFilter(c.authorizer)), //      as whom
      c.priorityAndFairness ? timed("priorityandfairness", c.flowControl) : c.flowControl, // how many at once: 429
      timed("authorization", authorizationFilter(c.authorizer, c.metrics?.authorization)), // allowed? 403 when not
      ...(c.harness?.inject ? [c.harness.inject] : []), //             injected faults (tests)
    ],
    c.router,
  );
  return (ex) => handle(newRequestContext(ex));
}
