// An HTTPS client for webhooks (TokenReview, SubjectAccessReview): one POST of a JSON body with
// the kubeconfig's credentials, client-go's error texts, a bounded answer, and upstream's retry
// with exponential backoff on transient failures.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { WebhookConnection } from "./kubeconfig.js";
import { goQuote } from "../apimachinery/go-quote.js";

export interface Backoff {
  durationMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

export const defaultBackoff: Backoff = { durationMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };
/** client-go's timeout for webhook calls (kubeconfigs cannot set one). */
export const defaultRequestTimeoutMs = 30_000;
export const maxResponseBytes = 10 * 1024 * 1024;

export class CallError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** client-go's message for a non-2xx answer that is not a Status object. */
export function genericMessage(code: number, text: string | undefined): string {
  switch (code) {
    case 409:
      return "the server reported a conflict";
    case 404:
      return "the server could not find the requested resource";
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return "the server does not allow access to the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 406:
    case 415:
      return "the server was unable to respond with a content type that the client supports";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
  }
  if (code >= 500) return `an error on the server (${goQuote(text ?? "unknown")}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

/** Where to dial instead of the URL's host and port (a service reference resolved to an endpoint); TLS still checks the URL's host name. */
export interface DialTarget {
  host: string;
  port: number;
}

export interface PostOptions {
  timeoutMs?: number;
  userAgent?: string;
  /** Aborting fails the call with `Post "<url>": <the reason's message>` (e.g. "context deadline exceeded"). */
  signal?: AbortSignal;
  lookup?: LookupFunction;
  target?: DialTarget;
  /** A keep-alive agent to reuse connections (admission webhooks: one per webhook); default none. */
  agent?: HttpsAgent;
}

export function post(conn: WebhookConnection, body: Buffer, opts: PostOptions = {}): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> {
  const tls = conn.server.protocol === "https:";
  const urlHost = conn.server.hostname.replace(/^\[|\]$/g, "");
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    accept: "application/json, */*",
    "content-length": body.length,
    "user-agent": opts.userAgent ?? "kapi/authentication-webhook",
  };
  if (conn.token) headers.authorization = `Bearer ${conn.token}`;
  const options = {
    method: "POST",
    hostname: opts.target?.host ?? urlHost,
    port: opts.target?.port ?? (conn.server.port || (tls ? 443 : 80)),
    ...(opts.signal ? { signal: opts.signal } : {}),
    path: conn.server.pathname + conn.server.search,
    headers,
    timeout: opts.timeoutMs ?? defaultRequestTimeoutMs,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    ...(tls ? { ca: conn.ca, cert: conn.cert, key: conn.key, rejectUnauthorized: !conn.insecureSkipTLSVerify, servername: conn.serverName ?? (opts.target ? urlHost : undefined), agent: opts.agent ?? (false as const) } : { agent: false as const }),
  };
  return new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxResponseBytes) {
          req.destroy(new CallError("the webhook's answer is too large", false));
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new CallError(`Post "${conn.href ?? conn.server.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, false)));
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (e instanceof CallError) return reject(e);
      if (e.name === "AbortError" || e.code === "ABORT_ERR") {
        const why = opts.signal?.reason instanceof Error ? opts.signal.reason.message : "context canceled";
        return reject(new CallError(`Post "${conn.href ?? conn.server.href}": ${why}`, false));
      }
      const dialed = opts.target ? `${opts.target.host.includes(":") ? `[${opts.target.host}]` : opts.target.host}:${opts.target.port}` : conn.server.host;
      reject(new CallError(`Post "${conn.href ?? conn.server.href}": ${goNetErrorText(e, dialed)}`, isConnectionReset(e)));
    });
    req.end(body);
  });
}

const isConnectionReset = (e: NodeJS.ErrnoException) => e.code === "ECONNRESET" || e.code === "EPIPE";

/** Go's net/http text for a failed call's network or TLS error (`dialed`: the host:port dialed). */
export function goNetErrorText(e: NodeJS.ErrnoException, dialed: string): string {
  if (e.code === "ECONNREFUSED") return `dial tcp ${dialed}: connect: connection refused`;
  if (isConnectionReset(e)) return "read: connection reset by peer";
  return goTLSError(e) ?? e.message;
}

const unknownAuthority = new Set(["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "UNABLE_TO_GET_ISSUER_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"]);

/** Go's crypto/tls text for Node's certificate verification failures (as client-go reports them). */
function goTLSError(e: NodeJS.ErrnoException & { host?: string; cert?: { subjectaltname?: string } }): string | undefined {
  if (e.code && unknownAuthority.has(e.code)) return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
  if (e.code === "CERT_HAS_EXPIRED" || e.code === "CERT_NOT_YET_VALID") return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
  if (e.code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    const names = (e.cert?.subjectaltname ?? "").split(", ").map((n) => n.replace(/^(DNS|IP Address):/, "")).filter(Boolean);
    return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(", ")}, not ${e.host ?? ""}`;
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** upstream's WithExponentialBackoff: retry while the error is a transient one, at most `steps` calls. */
export async function withBackoff<T>(b: Backoff, fn: () => Promise<T>): Promise<T> {
  let delay = b.durationMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof CallError) || !e.retry || attempt >= b.steps) throw e;
      await sleep(delay * (1 + Math.random() * b.jitter));
      delay *= b.factor;
    }
  }
}


/**
 * One review round trip (TokenReview, SubjectAccessReview, ConversionReview, …): POSTs the review
 * and returns the answer's `status` object. A non-2xx answer is a CallError carrying the
 * server's Status message (or client-go's generic text) and whether it may be retried (500,
 * 504, 429 or a Retry-After); an answer that is not the expected kind and version is an error.
 */
export async function postReview(
  conn: WebhookConnection,
  review: { apiVersion: string; kind: string; spec: unknown; status: unknown },
  opts: { timeoutMs?: number; userAgent?: string } = {},
): Promise<Record<string, unknown>> {
  // An empty ObjectMeta as 1.34 encodes it: its zero creationTimestamp is left out (omitzero since 1.33).
  const payload = Buffer.from(JSON.stringify({ kind: review.kind, apiVersion: review.apiVersion, metadata: {}, spec: review.spec, status: review.status }));
  const res = await post(conn, payload, opts);
  const text = res.body.toString("utf8");
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (res.status < 200 || res.status > 299) {
    const retry = res.status === 500 || res.status === 504 || res.status === 429 || res.headers["retry-after"] !== undefined;
    const isText = /^text\//.test(String(res.headers["content-type"] ?? ""));
    const e =
      json && json.kind === "Status" && typeof json.message === "string"
        ? new CallError(json.message, retry)
        : new CallError(genericMessage(res.status, isText ? text.trim().slice(0, 1024) : undefined), retry);
    (e as CallError & { statusCode?: number }).statusCode = res.status;
    throw e;
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new CallError(`couldn't decode the webhook's answer: ${text.length === 0 ? "empty body" : "not a JSON object"}`, false);
  if (json.apiVersion !== undefined && json.apiVersion !== review.apiVersion) {
    throw new CallError(`the webhook answered with apiVersion ${JSON.stringify(json.apiVersion)}, expected ${goQuote(review.apiVersion)}`, false);
  }
  if (json.kind !== undefined && json.kind !== review.kind) throw new CallError(`the webhook answered with kind ${JSON.stringify(json.kind)}, expected ${goQuote(review.kind)}`, false);
  const status = json.status ?? {};
  if (typeof status !== "object" || status === null || Array.isArray(status)) throw new CallError("the webhook's answer has a malformed status", false);
  return status as Record<string, unknown>;
}
