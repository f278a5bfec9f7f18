// A loopback HTTPS conversion webhook for tests: its own CA (handed out as a caBundle), a serving
// certificate for 127.0.0.1, localhost and a service DNS name; records every ConversionReview and
// answers through a replaceable function (default: converts between stable.example.com v1 and
// v2 by renaming spec.cronSpec <-> spec.schedule).
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { makeCert } from "../authn/pki.testkit.js";

export interface Review {
  apiVersion: string;
  kind: string;
  request: { uid: string; desiredAPIVersion: string; objects: Record<string, unknown>[] };
}

export type Reply = { status?: number; body?: unknown; contentType?: string; hang?: boolean };

export interface ConversionWebhook {
  url: string;
  port: number;
  caBundle: string;
  requests: Review[];
  paths: string[];
  reply: (r: Review) => Reply;
  close(): Promise<void>;
}

/** The default conversion: v1 has spec.cronSpec, v2 has spec.schedule. */
export function renameConvert(obj: Record<string, unknown>, desired: string): Record<string, unknown> {
  const out = structuredClone(obj);
  const spec = (out.spec ?? {}) as Record<string, unknown>;
  if (desired.endsWith("/v2") && "cronSpec" in spec) {
    spec.schedule = spec.cronSpec;
    delete spec.cronSpec;
  } else if (desired.endsWith("/v1") && "schedule" in spec) {
    spec.cronSpec = spec.schedule;
    delete spec.schedule;
  }
  out.apiVersion = desired;
  return out;
}

export function success(r: Review, objects: unknown[]): Reply {
  return { body: { apiVersion: r.apiVersion, kind: "ConversionReview", response: { uid: r.request.uid, convertedObjects: objects, result: { status: "Success" } } } };
}

export const defaultReply = (r: Review): Reply => success(r, r.request.objects.map((o) => renameConvert(o, r.request.desiredAPIVersion)));

export async function startConversionWebhook(opts: { dnsNames?: string[] } = {}): Promise<ConversionWebhook> {
  const ca = await makeCert({ commonName: "conversion-webhook-ca" });
  const serving = await makeCert({ commonName: "conversion-webhook", issuer: ca, usage: "server", dnsNames: ["localhost", ...(opts.dnsNames ?? [])], ips: ["127.0.0.1"] });
  const hook: Partial<ConversionWebhook> & { requests: Review[]; paths: string[] } = { requests: [], paths: [], reply: defaultReply };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      hook.requests.push(review);
      hook.paths.push(req.url ?? "");
      const reply = hook.reply!(review);
      if (reply.hang) return;
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? (typeof reply.body === "string" ? "text/plain" : "application/json") });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  hook.port = port;
  hook.url = `https://127.0.0.1:${port}/convert`;
  hook.caBundle = Buffer.from(ca.certPem).toString("base64");
  hook.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return hook as ConversionWebhook;
}
