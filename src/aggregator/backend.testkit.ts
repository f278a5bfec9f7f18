// A loopback HTTPS backend standing in for an extension API server in tests: its own serving CA
// (handed out as a caBundle), a certificate for localhost and 127.0.0.1, client certificates
// asked for (not required), and every request recorded with its headers and the client
// certificate's CN; WebSocket upgrades are accepted and echo each message. Paths answer through a replaceable function (default: 200 with an empty
// APIResourceList of the path's group version).
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { IncomingHttpHeaders } from "node:http";
import type { TLSSocket } from "node:tls";
import { WebSocketServer } from "ws";
import { makeCert } from "../authn/pki.testkit.js";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The CN of the client certificate presented, "" without one. */
  clientCN: string;
}

export interface Answer {
  status: number;
  body: string;
  contentType?: string;
}

export interface TestBackend {
  port: number;
  caBundle: string;
  seen: SeenRequest[];
  on(answer: (r: SeenRequest) => Answer | undefined): void;
  close(): Promise<void>;
}

const resourceList = (url: string): Answer => {
  const gv = url.split("?")[0]!.replace(/^\/apis\//, "").replace(/^\/api\//, "");
  return { status: 200, body: JSON.stringify({ kind: "APIResourceList", apiVersion: "v1", groupVersion: gv, resources: [] }), contentType: "application/json" };
};

export async function startTestBackend(): Promise<TestBackend> {
  const ca = await makeCert({ commonName: "test-backend-ca" });
  const serving = await makeCert({ commonName: "test-backend", issuer: ca, usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1"] });
  const seen: SeenRequest[] = [];
  let answer: (r: SeenRequest) => Answer | undefined = () => undefined;
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const r: SeenRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, clientCN: peer?.subject?.CN ? String(peer.subject.CN) : "" };
    seen.push(r);
    req.resume();
    req.on("end", () => {
      const a = answer(r) ?? resourceList(r.url);
      res.writeHead(a.status, { "content-type": a.contentType ?? "application/json" });
      res.end(a.body);
    });
  });
  // WebSocket upgrades are recorded too, and echo what they receive.
  const wss = new WebSocketServer({ server });
  const sockets = new Set<{ terminate(): void }>();
  wss.on("connection", (ws, req) => {
    sockets.add(ws);
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, clientCN: peer?.subject?.CN ? String(peer.subject.CN) : "" });
    ws.on("message", (m) => ws.send(`echo: ${String(m)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    seen,
    on: (a) => void (answer = a),
    close: () =>
      new Promise((resolve) => {
        for (const c of sockets) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
