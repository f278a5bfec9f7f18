// One HTTPS call of an admission webhook: the clientConfig's URL, or its service reference
// (https://<name>.<namespace>.svc:<port><path>, dialled at an endpoint the resolver picks),
// trusting caBundle (else the system's roots), with the webhook's timeout both enforced and sent
// as `?timeout=<n>s` (upstream's REST client does the same). Every failure to get a usable
// answer is a CallingWebhookError carrying upstream's reason text.
import { Agent as HttpsAgent } from "node:https";
import { CallError, genericMessage, post, type DialTarget } from "../../webhook/client.js";
import { goURLString, type WebhookConnection } from "../../webhook/kubeconfig.js";
import type { ServiceResolver } from "../../webhook/service-resolver.js";
import { CallingWebhookError } from "./errors.js";
import { defaultServicePort, type WebhookClientConfig } from "./types.js";

const decodable = new Set(["application/json", "application/yaml"]);

/** Idle kept-alive connections close before a Node or Go server's usual 5 s idle limit would. */
const idleSocketMs = 4000;

export interface Endpoint {
  conn: WebhookConnection;
  service?: { namespace: string; name: string; port: number };
  /**
   * Connections kept alive between calls: a TLS handshake per write would cost several round
   * trips, each of which may wait behind a storage commit on the event loop.
   */
  agent: HttpsAgent;
}

/** The connection of a clientConfig with the timeout query; throws on an unusable config. */
export function endpointOf(cfg: WebhookClientConfig, timeoutSeconds: number): Endpoint {
  let server: URL;
  let service: Endpoint["service"];
  if (cfg.url) {
    server = new URL(cfg.url);
  } else if (cfg.service) {
    const s = cfg.service;
    const port = s.port ?? defaultServicePort;
    server = new URL(`https://${s.name}.${s.namespace}.svc:${port}${s.path ?? ""}`);
    service = { namespace: s.namespace, name: s.name, port };
  } else {
    throw new Error("webhook clientConfig has neither url nor service");
  }
  server.searchParams.set("timeout", `${timeoutSeconds}s`);
  const ca = cfg.caBundle ? Buffer.from(cfg.caBundle, "base64").toString("utf8") : undefined;
  const agent = new HttpsAgent({ keepAlive: true, maxFreeSockets: 64, scheduling: "lifo", timeout: idleSocketMs });
  return { conn: { server, ca, insecureSkipTLSVerify: false, ...(service ? { href: goURLString(server, service.port) } : {}) }, service, agent };
}

export interface CallOptions {
  timeoutSeconds: number;
  resolveService?: ServiceResolver;
  /** The request's own signal: its end cancels the call. */
  signal?: AbortSignal;
}

/** POSTs the review; resolves with the 2xx answer's text, else throws CallingWebhookError. */
export async function callWebhook(name: string, ep: Endpoint, review: unknown, o: CallOptions): Promise<string> {
  const fail = (reason: string, code?: number) => new CallingWebhookError(name, `failed to call webhook: ${reason}`, code);
  const href = ep.conn.href ?? ep.conn.server.href;
  let target: DialTarget | undefined;
  if (ep.service && o.resolveService) {
    try {
      target = await o.resolveService(ep.service.namespace, ep.service.name, ep.service.port);
    } catch (e) {
      throw fail(`Post "${href}": ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("context deadline exceeded")), o.timeoutSeconds * 1000);
  const onCancel = () => controller.abort(new Error("context canceled"));
  o.signal?.addEventListener("abort", onCancel, { once: true });
  try {
    const body = Buffer.from(JSON.stringify(review));
    const send = () =>
      post(ep.conn, body, {
        // The deadline above ends the call; the socket's idle timeout must not come first.
        timeoutMs: o.timeoutSeconds * 1000 + 1000,
        userAgent: "kapi/admission-webhook",
        signal: controller.signal,
        agent: ep.agent,
        ...(target ? { target } : {}),
      });
    let res: Awaited<ReturnType<typeof post>>;
    try {
      res = await send();
    } catch (e) {
      // A kept-alive connection the webhook closed just as it was reused: once more on a fresh
      // one (Go's transport retries such a request the same way).
      if (!(e instanceof CallError) || !e.retry || controller.signal.aborted) throw e;
      res = await send();
    }
    const text = res.body.toString("utf8");
    if (res.status < 200 || res.status > 299) {
      let status: unknown;
      try {
        status = JSON.parse(text);
      } catch {
        status = undefined;
      }
      const s = status as { kind?: unknown; message?: unknown } | undefined;
      if (s && s.kind === "Status" && typeof s.message === "string" && s.message) throw fail(s.message, res.status);
      const isText = /^text\//.test(String(res.headers["content-type"] ?? ""));
      throw fail(genericMessage(res.status, isText ? text.trim().slice(0, 1024) : undefined), res.status);
    }
    // client-go reads an answer through the serializer of its content type: JSON (or YAML, of
    // which JSON is a subset for a review); none for anything else.
    const mediaType = String(res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (mediaType && !decodable.has(mediaType)) throw fail(`serializer for ${mediaType} doesn't exist`);
    return text;
  } catch (e) {
    if (e instanceof CallingWebhookError) throw e;
    if (e instanceof CallError) throw fail(e.message);
    throw fail(`Post "${href}": ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onCancel);
  }
}
