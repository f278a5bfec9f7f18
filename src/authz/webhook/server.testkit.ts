// A loopback SubjectAccessReview webhook for tests: HTTPS that requires a client certificate from
// its own client CA; answers with `reply` (settable per test); records what it was asked. Writes
// its kubeconfig (certificate files referenced by relative paths).
import { createServer, type Server } from "node:https";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { makeCert } from "../../authn/pki.testkit.js";

export interface SarRequest {
  apiVersion: string;
  kind: string;
  spec: Record<string, unknown> & { user?: string; groups?: string[]; group?: string[]; resourceAttributes?: Record<string, unknown>; nonResourceAttributes?: Record<string, unknown> };
}

export type SarReply = { status: number; body: unknown; headers?: Record<string, string>; delayMs?: number };

export interface SarWebhook {
  url: string;
  kubeconfigPath: string;
  requests: SarRequest[];
  /** Peer CNs, one per request. */
  clients: string[];
  /** The answer: a status object (wrapped in a SubjectAccessReview of the request's version) or a full reply. */
  reply: (r: SarRequest) => Record<string, unknown> | SarReply;
  close(): Promise<void>;
}

export async function startSarWebhook(dir: string, name = "webhook"): Promise<SarWebhook> {
  const ca = await makeCert({ commonName: `${name}-ca` });
  const serving = await makeCert({ commonName: name, issuer: ca, usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1"] });
  const clientCA = await makeCert({ commonName: `${name}-client-ca` });
  const client = await makeCert({ commonName: "kube-apiserver", issuer: clientCA });
  const hook: SarWebhook = {
    url: "",
    kubeconfigPath: join(dir, `${name}.kubeconfig`),
    requests: [],
    clients: [],
    reply: () => ({ allowed: false }),
    close: async () => undefined,
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCA.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as SarRequest;
      hook.requests.push(review);
      hook.clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ""));
      const a = hook.reply(review);
      const reply: SarReply = "status" in a && typeof a.status === "number" ? (a as SarReply) : { status: 200, body: { apiVersion: review.apiVersion, kind: "SubjectAccessReview", status: a } };
      const send = () => {
        if (res.destroyed) return;
        const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { "content-type": typeof reply.body === "string" ? "text/plain" : "application/json", ...(reply.headers ?? {}) });
        res.end(text);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  writeFileSync(join(dir, `${name}-ca.crt`), ca.certPem);
  writeFileSync(join(dir, `${name}-client.crt`), client.certPem);
  writeFileSync(join(dir, `${name}-client.key`), client.keyPem);
  writeFileSync(
    hook.kubeconfigPath,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: authz",
      "  cluster:",
      `    server: ${hook.url}`,
      `    certificate-authority: ${name}-ca.crt`,
      "users:",
      "- name: apiserver",
      "  user:",
      `    client-certificate: ${name}-client.crt`,
      `    client-key: ${name}-client.key`,
      "contexts:",
      "- name: webhook",
      "  context: {cluster: authz, user: apiserver}",
      "current-context: webhook",
      "",
    ].join("\n"),
  );
  hook.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections?.();
      server.close(() => r());
    });
  return hook;
}
