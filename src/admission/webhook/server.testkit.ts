// A loopback HTTPS admission webhook server for tests: its own CA (handed out as a caBundle), a
// serving certificate for 127.0.0.1, localhost and any service DNS names asked for; every
// AdmissionReview is recorded with its path, and each path answers through a replaceable
// function (default: allow).
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { makeCert } from "../../authn/pki.testkit.js";

export interface ReviewRequest {
  apiVersion: string;
  kind: string;
  request: Record<string, any> & { uid: string };
}

/** What a path answers: a review response (wrapped for you), or raw bytes, or nothing yet. */
export type Answer =
  | { response: Record<string, unknown>; apiVersion?: string; kind?: string; delayMs?: number }
  | { raw: string; status?: number; contentType?: string; delayMs?: number }
  | { hang: true };

export interface AdmissionWebhookServer {
  port: number;
  url(path: string): string;
  caBundle: string;
  seen: { path: string; review: ReviewRequest }[];
  on(path: string, answer: (r: ReviewRequest) => Answer): void;
  close(): Promise<void>;
}

export const allow = (r: ReviewRequest, extra: Record<string, unknown> = {}): Answer => ({ response: { uid: r.request.uid, allowed: true, ...extra } });
export const deny = (r: ReviewRequest, status: Record<string, unknown>): Answer => ({ response: { uid: r.request.uid, allowed: false, status } });
/** An allowed answer carrying a JSONPatch. */
export const patch = (r: ReviewRequest, ops: unknown[]): Answer =>
  ({ response: { uid: r.request.uid, allowed: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") } });

export async function startAdmissionWebhookServer(opts: { dnsNames?: string[] } = {}): Promise<AdmissionWebhookServer> {
  const ca = await makeCert({ commonName: "admission-webhook-ca" });
  const serving = await makeCert({ commonName: "admission-webhook", issuer: ca, usage: "server", dnsNames: ["localhost", ...(opts.dnsNames ?? [])], ips: ["127.0.0.1"] });
  const handlers = new Map<string, (r: ReviewRequest) => Answer>();
  const seen: AdmissionWebhookServer["seen"] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0]!;
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ReviewRequest;
      seen.push({ path: req.url ?? "", review });
      const answer = (handlers.get(path) ?? ((r) => allow(r)))(review);
      if ("hang" in answer) return;
      const send = () => {
        if ("raw" in answer) {
          res.writeHead(answer.status ?? 200, { "content-type": answer.contentType ?? "application/json" });
          res.end(answer.raw);
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ apiVersion: answer.apiVersion ?? review.apiVersion, kind: answer.kind ?? "AdmissionReview", response: answer.response }));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    seen,
    on: (path, answer) => handlers.set(path, answer),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
