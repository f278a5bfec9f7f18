// The request-path families of kube-apiserver 1.34 beyond the per-request ones
// (apiserver/pkg/endpoints/metrics, .../handlers/metrics): responses cut off mid-way, what
// handlers did after their request timed out, how long each filter took before handing on,
// write bodies' sizes, the server's requests to itself, and TLS handshakes that failed.
// Each is fed where upstream feeds it; a request that is none of these pays nothing here.
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell } from "./metric-family.js";
import type { RequestLabels } from "./request-metrics.js";

/** Upstream's RequestBodyVerb: the handlers that read a body. */
export type RequestBodyVerb = "create" | "update" | "patch" | "delete" | "delete_collection";
/** Who saw the handler finish after the timeout: the timeout filter, or a write's own bound (upstream's FinishRequest). */
export type PostTimeoutSource = "timeout-handler" | "rest-handler";
export type PostTimeoutStatus = "ok" | "error" | "panic" | "pending";

/** The user the server's own (loopback) requests authenticate as. */
export const apiServerUser = "system:apiserver";

const filterBuckets = [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 5.0, 10.0, 15.0, 30.0];
/** LinearBuckets(50000, 100000, 31): 50 kB, then every 100 kB up to past the 3 MiB body limit. */
const bodyBuckets = Array.from({ length: 31 }, (_, i) => 50000 + i * 100000);

export class RequestPathMetrics {
  readonly aborts = new CounterFamily({
    name: "apiserver_request_aborts_total",
    help: "Requests whose response the server cut off part-way (its deadline passed once the answer was under way), by verb, group, version, resource, subresource and scope.",
    stability: "ALPHA",
    labels: ["verb", "group", "version", "resource", "subresource", "scope"],
  });
  readonly postTimeout = new CounterFamily({
    name: "apiserver_request_post_timeout_total",
    help: "What request handlers did once their request had timed out, by who saw it (timeout-handler, rest-handler) and how the handler ended (ok, error, panic, or still pending).",
    stability: "ALPHA",
    labels: ["source", "status"],
  });
  readonly filterDuration = new HistogramFamily({
    name: "apiserver_request_filter_duration_seconds",
    help: "Time each request filter took before handing the request on, in seconds, by filter.",
    stability: "ALPHA",
    labels: ["filter"],
    buckets: filterBuckets,
  });
  readonly bodySizes = new HistogramFamily({
    name: "apiserver_request_body_size_bytes",
    help: "Size in bytes of the request bodies read by write handlers, by group, resource and verb.",
    stability: "ALPHA",
    labels: ["group", "resource", "verb"],
    buckets: bodyBuckets,
  });
  readonly selfRequests = new CounterFamily({
    name: "apiserver_selfrequest_total",
    help: "Requests the server made to itself, by verb, group, resource and subresource.",
    stability: "ALPHA",
    labels: ["verb", "group", "resource", "subresource"],
  });
  readonly tlsHandshakeErrors = new CounterFamily({
    name: "apiserver_tls_handshake_errors_total",
    help: "Connections dropped because their TLS handshake failed.",
    stability: "ALPHA",
  });
  readonly families = [this.aborts, this.postTimeout, this.filterDuration, this.bodySizes, this.selfRequests, this.tlsHandshakeErrors];

  /** Per resource type object: its body-size cells by verb (found without building a key per request). */
  private readonly bodyCells = new WeakMap<object, Partial<Record<RequestBodyVerb, HistogramCell>>>();
  private readonly tlsErrors: CounterCell = this.tlsHandshakeErrors.with();

  /** The cell a filter's latency goes to (looked up once, when the chain is built). */
  filter(name: "authentication" | "audit" | "impersonation" | "priorityandfairness" | "authorization"): HistogramCell {
    return this.filterDuration.with(name);
  }

  aborted(l: RequestLabels): void {
    this.aborts.with(l.verb, l.group, l.version, l.resource, l.subresource, l.scope).inc();
  }

  handlerAfterTimeout(source: PostTimeoutSource, status: PostTimeoutStatus): void {
    this.postTimeout.with(source, status).inc();
  }

  /** A body read in full by a write handler; `type` is the resource's (any object stable per resource). */
  bodyRead(type: { group: string; resource: string }, verb: RequestBodyVerb, bytes: number): void {
    let cells = this.bodyCells.get(type);
    if (!cells) this.bodyCells.set(type, (cells = {}));
    (cells[verb] ??= this.bodySizes.with(type.group, type.resource, verb)).observe(bytes);
  }

  selfRequest(l: RequestLabels): void {
    this.selfRequests.with(l.verb, l.group, l.resource, l.subresource).inc();
  }

  tlsHandshakeFailed(): void {
    this.tlsErrors.inc();
  }
}
