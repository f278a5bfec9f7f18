// The reverse proxy (src/http/reverse-proxy.ts) between kapi's real listener and backends the
// test starts: headers, streaming both ways, aborts, dial failures and timeouts, TLS with client
// certificates, and protocol upgrades joined as raw connections.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { ApiError } from "../src/apimachinery/errors.js";
import { createCA, createLeaf } from "../src/authn/certs.js";
import type { Exchange } from "../src/http/exchange.js";
import { identityHeaderPrefixes } from "../src/http/proxy-headers.js";
import { proxyRequest, type ProxyOptions } from "../src/http/reverse-proxy.js";
import { createListener, type Listener } from "../src/server/listener.js";

let listener: Listener;
let url: string;
let route: (ex: Exchange) => ProxyOptions;
const servers: { close(): void }[] = [];
let ca: { certPem: string; keyPem: string };
let serving: { certPem: string; keyPem: string };

const backendError = (e: Error) => new ApiError(503, "ServiceUnavailable", `backend: ${e.message}`);

async function listen<S extends { listen(port: number, host: string, cb: () => void): unknown; address(): unknown; close(): void }>(server: S): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

function options(location: string, extra: Partial<ProxyOptions> = {}): ProxyOptions {
  return { location: new URL(location), headers: { keepHost: false, dropPrefixes: identityHeaderPrefixes }, backendError, ...extra };
}

beforeAll(async () => {
  ca = await createCA("test-ca");
  serving = await createLeaf(ca, { commonName: "kapi", ips: ["127.0.0.1"], usage: "server" });
  listener = createListener(
    { cert: serving.certPem, key: serving.keyPem },
    async (ex) => {
      try {
        await proxyRequest(ex, route(ex));
      } catch (e) {
        const err = e as ApiError;
        ex.head(err.code, { "content-type": "text/plain" });
        ex.end(err.message);
      }
    },
    { compressResponses: false },
  );
  await new Promise<void>((r) => listener.server.listen(0, "127.0.0.1", r));
  url = `https://127.0.0.1:${(listener.server.address() as AddressInfo).port}`;
});
afterAll(() => {
  listener.closeConnections();
  listener.server.close();
  for (const s of servers) s.close();
});

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = httpsRequest(`${url}${path}`, { method, headers, ca: ca.certPem }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      res.on("error", reject);
    });
    r.on("error", reject);
    r.end(body);
  });
}

describe("plain requests", () => {
  let seen: IncomingMessage | undefined;
  let backend: string;
  beforeAll(async () => {
    const port = await listen(
      createHttpServer((req: IncomingMessage, res: ServerResponse) => {
        seen = req;
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          res.writeHead(201, { "content-type": "text/plain", connection: "close", "x-backend": "1", "access-control-allow-origin": "*" });
          res.end(`${req.method} ${req.url} ${body}`);
        });
      }),
    );
    backend = `http://127.0.0.1:${port}`;
  });

  it("forwards method, path, query and body, and answers with the backend's status and headers", async () => {
    route = () =>
      options(`${backend}/base/x?a=1`, {
        headers: { keepHost: false, dropPrefixes: identityHeaderPrefixes, add: [["X-Remote-User", "alice"]] },
        rewriteResponseHeaders: (h) => delete h["access-control-allow-origin"],
      });
    const r = await call("POST", "/anything", {
      authorization: "Bearer secret",
      "x-remote-user": "mallory",
      "impersonate-user": "admin",
      "x-custom": "kept",
      "content-type": "text/plain",
    }, "hello");
    expect(r).toMatchObject({ status: 201, body: "POST /base/x?a=1 hello" });
    expect(r.headers["x-backend"]).toBe("1");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(seen!.headers.authorization).toBeUndefined();
    expect(seen!.headers["impersonate-user"]).toBeUndefined();
    expect(seen!.headers["x-remote-user"]).toBe("alice");
    expect(seen!.headers["x-custom"]).toBe("kept");
    expect(seen!.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen!.headers.host).toBe(backend.slice("http://".length));
  });

  it("a plain request where only an upgrade may go is 400 Upgrade request required", async () => {
    route = () => options(backend, { upgradeRequired: true });
    expect(await call("GET", "/x")).toMatchObject({ status: 400, body: "Upgrade request required" });
  });
});

describe("streaming", () => {
  it("sends each chunk as the backend writes it, and a client that goes away aborts the backend's request", async () => {
    let backendClosed!: () => void;
    const closed = new Promise<void>((r) => (backendClosed = r));
    let next!: () => void;
    const port = await listen(
      createHttpServer((req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("first\n");
        next = () => res.write("second\n");
        req.socket.once("close", backendClosed);
      }),
    );
    route = () => options(`http://127.0.0.1:${port}/watch`);
    const chunks: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const r = httpsRequest(`${url}/w`, { ca: ca.certPem }, (res) => {
        res.on("data", (c: Buffer) => {
          chunks.push(c.toString());
          if (chunks.length === 1) next();
          if (chunks.length === 2) {
            r.destroy();
            resolve();
          }
        });
      });
      r.on("error", (e) => (chunks.length < 2 ? reject(e) : undefined));
      r.end();
    });
    expect(chunks).toEqual(["first\n", "second\n"]);
    await closed;
  });

  it("a backend that dies mid-answer cuts the client's answer off", async () => {
    const port = await listen(
      createHttpServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("partial");
        setTimeout(() => res.socket?.destroy(), 50);
      }),
    );
    route = () => options(`http://127.0.0.1:${port}/`);
    await expect(call("GET", "/x")).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
  });
});

describe("unreachable backends", () => {
  it("a refused dial is the caller's error, with Go's text", async () => {
    const port = await listen(createNetServer());
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 20));
    route = () => options(`http://127.0.0.1:${port}/`);
    expect(await call("GET", "/x")).toMatchObject({ status: 503, body: `backend: dial tcp 127.0.0.1:${port}: connect: connection refused` });
  });

  it("a TLS handshake that never completes ends at the dial timeout", async () => {
    const port = await listen(createNetServer(() => undefined));
    route = () => options(`https://127.0.0.1:${port}/`, { dialTimeoutMs: 300 });
    const started = Date.now();
    expect(await call("GET", "/x")).toMatchObject({ status: 503, body: `backend: dial tcp 127.0.0.1:${port}: i/o timeout` });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("TLS to the backend", () => {
  let port: number;
  let client: { certPem: string; keyPem: string };
  beforeAll(async () => {
    const backendCert = await createLeaf(ca, { commonName: "backend", ips: ["127.0.0.1"], usage: "server" });
    client = await createLeaf(ca, { commonName: "kapi-client", usage: "client" });
    port = await listen(
      createHttpsServer({ cert: backendCert.certPem, key: backendCert.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(`client=${peer?.subject?.CN ?? "none"}`);
      }),
    );
  });

  it("presents the client certificate and checks the backend's against the CA", async () => {
    route = () => options(`https://127.0.0.1:${port}/`, { tls: { ca: ca.certPem, cert: client.certPem, key: client.keyPem } });
    expect(await call("GET", "/x")).toMatchObject({ status: 200, body: "client=kapi-client" });
  });

  it("refuses a backend whose certificate it cannot verify, unless told to skip verification", async () => {
    route = () => options(`https://127.0.0.1:${port}/`);
    expect(await call("GET", "/x")).toMatchObject({ status: 503, body: "backend: tls: failed to verify certificate: x509: certificate signed by unknown authority" });
    route = () => options(`https://127.0.0.1:${port}/`, { tls: { insecureSkipVerify: true } });
    expect(await call("GET", "/x")).toMatchObject({ status: 200, body: "client=none" });
  });
});

describe("protocol upgrades", () => {
  let wsPort: number;
  let upgradeHeaders: IncomingMessage["headers"] | undefined;
  beforeAll(async () => {
    const server: Server = createHttpServer((_req, res) => {
      res.writeHead(403, { "content-type": "text/plain" });
      res.end("plain requests are refused");
    });
    const wss = new WebSocketServer({
      server,
      handleProtocols: (p) => (p.has("v5.channel.k8s.io") ? "v5.channel.k8s.io" : false),
      verifyClient: (info: { req: IncomingMessage }) => info.req.url !== "/refuse",
    });
    wss.on("headers", (_h, req) => (upgradeHeaders = req.headers));
    wss.on("connection", (ws) => ws.on("message", (m: Buffer) => ws.send(Buffer.concat([Buffer.from("echo:"), m]))));
    wsPort = await listen(server);
  });

  it("joins the client's and the backend's connections once the backend switches protocols", async () => {
    route = () => options(`http://127.0.0.1:${wsPort}/exec?command=sh`, { upgradeRequired: true });
    const ws = new WebSocket(`${url.replace("https", "wss")}/x`, ["v5.channel.k8s.io"], { ca: ca.certPem, headers: { authorization: "Bearer secret" } });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    expect(ws.protocol).toBe("v5.channel.k8s.io");
    expect(upgradeHeaders!.authorization).toBeUndefined();
    const reply = new Promise<string>((r) => ws.once("message", (m: Buffer) => r(m.toString())));
    ws.send("ping");
    expect(await reply).toBe("echo:ping");
    const closed = new Promise<void>((r) => ws.once("close", () => r()));
    ws.close();
    await closed;
    await expect.poll(() => listener.inFlight()).toBe(0);
  });

  async function refusal(): Promise<{ status: number; body: string }> {
    const ws = new WebSocket(`${url.replace("https", "wss")}/x`, { ca: ca.certPem });
    ws.once("error", () => undefined);
    return new Promise((resolve) => {
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
    });
  }

  it("a backend refusing the upgrade with an error answers the client with that error", async () => {
    route = () => options(`http://127.0.0.1:${wsPort}/refuse`);
    expect((await refusal()).status).toBe(401);
  });

  it("a backend answering an upgrade without switching is the caller's error (upstream's invalid upgrade response)", async () => {
    const port = await listen(createHttpServer((_req, res) => res.end("no")));
    route = () => options(`http://127.0.0.1:${port}/`);
    expect(await refusal()).toEqual({ status: 503, body: "backend: invalid upgrade response: status code 200" });
  });
});
