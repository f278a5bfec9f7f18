// A loopback TokenReview webhook for tests: HTTPS that requires a client certificate from its own
// client CA; answers from a table of tokens; records what it was asked. Writes its kubeconfig.
import { createServer, type Server } from "node:https";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { makeCert, type TestCert } from "../pki.testkit.js";

export interface Review {
  apiVersion: string;
  kind: string;
  spec: { token: string; audiences?: string[] };
}

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };

export interface TokenReviewWebhook {
  url: string;
  /** kubeconfig with certificate-authority / client-certificate / client-key file paths. */
  kubeconfigPath: string;
  requests: Review[];
  /** Peer CNs seen, one per request. */
  clients: string[];
  /** Per token: a status or a full reply. Unknown tokens: authenticated false, no error. */
  answers: Map<string, Record<string, unknown> | ((r: Review) => Reply)>;
  clientCA: TestCert;
  close(): Promise<void>;
}

export async function startTokenReviewWebhook(dir: string, opts: { path?: string } = {}): Promise<TokenReviewWebhook> {
  const ca = await makeCert({ commonName: "webhook-ca" });
  const serving = await makeCert({ commonName: "webhook", issuer: ca, usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1"] });
  const clientCA = await makeCert({ commonName: "webhook-client-ca" });
  const client = await makeCert({ commonName: "kube-apiserver", issuer: clientCA });
  const requests: Review[] = [];
  const clients: string[] = [];
  const answers: TokenReviewWebhook["answers"] = new Map();
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCA.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      requests.push(review);
      clients.push(String((req.socket as import("node:tls").TLSSocket).getPeerCertificate().subject?.CN ?? ""));
      const a = answers.get(review.spec.token);
      const reply: Reply = typeof a === "function" ? a(review) : { status: 200, body: { apiVersion: review.apiVersion, kind: "TokenReview", status: a ?? { authenticated: false } } };
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { "content-type": typeof reply.body === "string" ? "text/plain" : "application/json", ...(reply.headers ?? {}) });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${opts.path ?? "/authenticate"}`;
  writeFileSync(join(dir, "webhook-ca.crt"), ca.certPem);
  writeFileSync(join(dir, "webhook-client.crt"), client.certPem);
  writeFileSync(join(dir, "webhook-client.key"), client.keyPem);
  const kubeconfigPath = join(dir, "webhook.kubeconfig");
  writeFileSync(
    kubeconfigPath,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: authn",
      "  cluster:",
      `    server: ${url}`,
      "    certificate-authority: webhook-ca.crt",
      "users:",
      "- name: apiserver",
      "  user:",
      "    client-certificate: webhook-client.crt",
      "    client-key: webhook-client.key",
      "contexts:",
      "- name: webhook",
      "  context: {cluster: authn, user: apiserver}",
      "current-context: webhook",
      "",
    ].join("\n"),
  );
  return {
    url,
    kubeconfigPath,
    requests,
    clients,
    answers,
    clientCA,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
