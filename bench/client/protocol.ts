// What the bench driver asks the load-client process to do, and what it answers. Plain data:
// it crosses the IPC channel.

export interface Target {
  url: string;
  ca: string;
  cert: string;
  key: string;
  /**
   * Authenticate with `authorization: Bearer <token>` instead of the client certificate: when set,
   * cert and key are NOT presented (an admin certificate would make every request system:masters,
   * and x509 is tried before tokens).
   */
  bearerToken?: string;
}

export type Proto = "h1" | "h2";

/** The request each in-flight slot repeats. Object names are unique per slot and sequence. */
export type RequestSpec =
  | { op: "get"; path: string }
  /**
   * POST a fixture pod named <prefix>-<slot>-<seq> into namespace. The API drops a pod's status on
   * create (as upstream does); withStatus then PUTs it to /status so the stored pod is realistic.
   */
  | { op: "create"; namespace: string; ownerUid: string; prefix: string; withStatus?: boolean }
  /** Each slot first creates its own pod (untimed), then PUTs it with the last resourceVersion. */
  | { op: "update"; namespace: string; ownerUid: string; prefix: string }
  /**
   * POST `template` (any object, serialized, with the fixtures' NAME and SEQ placeholders)
   * to the collection `path`, named <prefix>-<slot>-<seq>: creates of kinds other than pods.
   */
  | { op: "post"; path: string; template: string; prefix: string };

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface ClosedJob {
  target: Target;
  proto: Proto;
  connections: number;
  /** Requests in flight per connection (HTTP/2 streams; always 1 for HTTP/1.1 keep-alive). */
  perConnection: number;
  durationMs: number;
  request: RequestSpec;
  /** Stop after this many requests (setup loads) instead of at durationMs. */
  maxRequests?: number;
}

export interface ClosedResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  firstError?: string;
  elapsedMs: number;
  /** Completed successful requests per second. */
  rate: number;
  /** The client's own CPU (all of its threads) as % of one core over the run. */
  cpuPct: number;
  latencyMs: LatencySummary;
  meanResponseBytes: number;
}

export interface OpenJob {
  target: Target;
  connections: number;
  /** Requests per second, sent on schedule whatever the responses do (open loop). */
  rate: number;
  durationMs: number;
  path: string;
}

export interface OpenResult {
  sent: number;
  completed: number;
  errors: number;
  achievedRate: number;
  elapsedMs: number;
  cpuPct: number;
  /** Measured from each request's scheduled send time, so a stall counts against every request it delays. */
  latencyMs: LatencySummary;
}

export interface ListJob {
  target: Target;
  /** Collection path, e.g. /api/v1/namespaces/bench/pods. */
  path: string;
  limit: number;
  durationMs: number;
}

export interface ListResult {
  /** Timed traversals. */
  traversals: number;
  /** Traversals the server answered during the job (the timed ones and one untimed to warm the connection). */
  served: number;
  meanMs: number;
  minMs: number;
  pages: number;
  items: number;
  bytes: number;
  cpuPct: number;
}

/** One traversal, every page parsed to check the cheap item count; the pages kept in `captureDir` when given. */
export interface ListVerifyJob {
  target: Target;
  path: string;
  limit: number;
  captureDir?: string;
}

export interface ListVerifyResult {
  pages: number;
  items: number;
  bytes: number;
}

export interface WatchJob {
  target: Target;
  watchers: number;
  /** Watch streams per HTTP/2 connection. */
  perConnection: number;
  /** Exists already, with the pods' owner (see BenchContext.ensureOwner). */
  namespace: string;
  ownerUid: string;
  /** Concurrent creates by the writer. */
  writers: number;
  durationMs: number;
  /** How long to wait after the last write for every watcher to catch up. */
  drainMs: number;
}

export interface WatchResult {
  written: number;
  delivered: number;
  expected: number;
  /** Watch streams the server ended before the run was over. */
  cutOff: number;
  elapsedMs: number;
  /** Events delivered per second, summed over all watchers. */
  deliveriesPerSec: number;
  cpuPct: number;
}

/**
 * Watch delivery across replicas: pods created through `write` by a few closed-loop writers, each
 * create timed until the watch on `watch` (another replica of the same store) delivers its ADDED
 * event; a writer sends its next create once the event arrived.
 */
export interface ReplicaLatencyJob {
  write: Target;
  watch: Target;
  /** Exists already, with the pods' owner (see BenchContext.ensureOwner), and is empty. */
  namespace: string;
  ownerUid: string;
  writers: number;
  durationMs: number;
  /** How long a writer waits for the event of its create before counting it lost. */
  eventTimeoutMs: number;
}

export interface ReplicaLatencyResult {
  written: number;
  /** Written pods whose event did not arrive within eventTimeoutMs. */
  lost: number;
  errors: number;
  /** From sending the create to receiving its event on the other replica. */
  latencyMs: LatencySummary;
  /** From sending the create to its answer from the first replica (part of the above). */
  createMs: LatencySummary;
  cpuPct: number;
}

export interface RawRequest {
  target: Target;
  method: string;
  path: string;
  body?: string;
}

/** Many one-off requests (set-up fixtures) over one HTTP/2 connection, `concurrency` in flight. */
export interface BatchJob {
  target: Target;
  requests: { method: string; path: string; body?: string }[];
  concurrency: number;
}

export interface BatchResult {
  /** Count of responses per HTTP status. */
  statuses: Record<string, number>;
  /** The first response with a status of 300 or more (or the first transport error). */
  firstError?: string;
}

export interface RawResponse {
  status: number;
  contentType: string;
  body: Uint8Array;
}
