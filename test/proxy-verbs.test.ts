// pods/proxy, services/proxy and nodes/proxy against a backend double the test starts. Upstream
// proxies only to global unicast addresses, so the double listens on this machine's own
// non-loopback address (the test is skipped without one); loopback pod and node addresses are
// refused with 400 "address not allowed". `kubectl proxy` in front of kapi reaches both the API
// and the backend through it.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, get as httpGet, type IncomingMessage, type Server } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectlBinary } from "./support/kubectl.js";

const hostIP = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === "IPv4")?.address;
const kubectlBin = kubectlBinary(33);
const ns = "px";
const base = `/api/v1/namespaces/${ns}`;
let s: TestServer;
let backend: Server;
let port: number;
let seen: IncomingMessage[] = [];

function startBackend(): Promise<void> {
  backend = createServer((r, res) => {
    seen.push(r);
    let body = "";
    r.on("data", (c) => (body += c));
    r.on("end", () => {
      if (r.url === "/page") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return void res.end(`<a href="/docs/">docs</a><img src="http://${hostIP}:${port}/logo.png"><link href="https://${r.headers.host}/style.css"><a href="https://example.com/">out</a>`);
      }
      if (r.url === "/redirect") {
        res.writeHead(302, { location: "/target?a=1" });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "x-backend": "yes" });
      res.end(JSON.stringify({ method: r.method, url: r.url, body }));
    });
  });
  new WebSocketServer({ server: backend }).on("connection", (ws) => ws.on("message", (m: Buffer) => ws.send(`pong:${m}`)));
  return new Promise((r) => backend.listen(0, hostIP, () => r()));
}

async function patchStatus(path: string, status: unknown): Promise<void> {
  const r = await req(s, "PATCH", `${path}/status`, { body: { status }, headers: { "content-type": "application/merge-patch+json" } });
  expect(r.status).toBe(200);
}

async function pod(name: string, ip: string): Promise<void> {
  const body = { metadata: { name }, spec: { containers: [{ name: "web", image: "nginx", ports: [{ containerPort: port }] }] } };
  expect((await req(s, "POST", `${base}/pods`, { body })).status).toBe(201);
  await patchStatus(`${base}/pods/${name}`, { podIP: ip, podIPs: [{ ip }] });
}

async function node(name: string, ip: string): Promise<void> {
  expect((await req(s, "POST", "/api/v1/nodes", { body: { metadata: { name } } })).status).toBe(201);
  await patchStatus(`/api/v1/nodes/${name}`, { addresses: [{ type: "InternalIP", address: ip }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } });
}

beforeAll(async () => {
  if (!hostIP) return;
  await startBackend();
  port = (backend.address() as AddressInfo).port;
  s = await startTestServer({ storage: "memory" });
  await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } });
  await pod("backend", hostIP);
  await pod("local", "127.0.0.1");
  const svc = { metadata: { name: "svc" }, spec: { ports: [{ name: "http", port: 80, targetPort: port }] } };
  expect((await req(s, "POST", `${base}/services`, { body: svc })).status).toBe(201);
  const eps = { metadata: { name: "svc" }, subsets: [{ addresses: [{ ip: hostIP, targetRef: { kind: "Pod", namespace: ns, name: "backend" } }], ports: [{ name: "http", port }] }] };
  expect((await req(s, "POST", `${base}/endpoints`, { body: eps })).status).toBe(201);
  await node("n1", hostIP);
  await node("loop", "127.0.0.1");
});
afterAll(async () => {
  await s?.stop();
  backend?.close();
});

describe.skipIf(!hostIP)("pods/proxy", () => {
  it("forwards every verb with its subpath and query, and the prefix back in X-Forwarded-Uri", async () => {
    seen = [];
    const r = await req(s, "GET", `${base}/pods/backend/proxy/some/path/?x=1`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ method: "GET", url: "/some/path/?x=1", body: "" });
    expect(r.headers["x-backend"]).toBe("yes");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(seen[0]!.headers["x-forwarded-uri"]).toBe(`${base}/pods/backend/proxy/some/path/`);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const w = await req(s, method, `${base}/pods/backend:${port}/proxy/echo`, { body: "payload", headers: { "content-type": "text/plain" } });
      expect(w.json, method).toEqual({ method, url: "/echo", body: "payload" });
    }
  });

  it("OPTIONS and HEAD are connected too (upstream's proxyMethods); a method outside them is go-restful's 405", async () => {
    seen = [];
    const o = await req(s, "OPTIONS", `${base}/pods/backend:${port}/proxy/echo?y=2`);
    expect(o.status).toBe(200);
    expect(o.json).toEqual({ method: "OPTIONS", url: "/echo?y=2", body: "" });
    // The backend's CORS headers are dropped for OPTIONS as for every method.
    expect(o.headers["access-control-allow-origin"]).toBeUndefined();
    const h = await req(s, "HEAD", `${base}/pods/backend:${port}/proxy/echo`);
    expect(h.status).toBe(200);
    expect(h.headers["x-backend"]).toBe("yes");
    expect(h.text).toBe("");
    expect(seen.map((r) => r.method)).toEqual(["OPTIONS", "HEAD"]);
    for (const path of [`${base}/pods/backend/proxy/echo`, `${base}/services/svc/proxy/`, "/api/v1/nodes/n1/proxy/x", `${base}/pods/backend/exec`, `${base}/pods/backend/portforward`]) {
      for (const method of ["TRACE", "PROPFIND"]) {
        const r = await req(s, method, path);
        expect([method, path, r.status, r.json]).toEqual([method, path, 405, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server does not allow this method on the requested resource", reason: "MethodNotAllowed", details: {}, code: 405 }]);
      }
    }
    // exec, attach and portforward connect only GET and POST.
    for (const method of ["PUT", "OPTIONS", "HEAD"]) expect([method, (await req(s, method, `${base}/pods/backend/exec`)).status]).toEqual([method, 405]);
    expect(seen).toHaveLength(2);
  });

  it("redirects the bare root to its slash, and rewrites the backend's own redirects to come back through kapi", async () => {
    const root = await req(s, "GET", `${base}/pods/backend/proxy?q=1`);
    expect(root.status).toBe(301);
    expect(root.headers.location).toBe(`${base}/pods/backend/proxy/?q=1`);
    const redirect = await req(s, "GET", `${base}/pods/backend/proxy/redirect`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe(`${base}/pods/backend/proxy/target?a=1`);
  });

  it("rewrites an HTML page's own links to come back through kapi", async () => {
    const r = await req(s, "GET", `${base}/pods/backend/proxy/page`);
    const prefix = `${base}/pods/backend/proxy`;
    // The backend's own address goes; the Host the client asked (the backend was sent it) stays, as upstream.
    const host = new URL(s.url).host;
    expect(r.text).toBe(`<a href="${prefix}/docs/">docs</a><img src="${prefix}/logo.png"><link href="https://${host}${prefix}/style.css"><a href="https://example.com/">out</a>`);
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(r.text)));
  });

  it("refuses a loopback pod IP, and names an invalid id as upstream", async () => {
    expect((await req(s, "GET", `${base}/pods/local/proxy/`)).json).toMatchObject({ code: 400, reason: "BadRequest", message: "address not allowed" });
    expect((await req(s, "GET", `${base}/pods/a:b:c:d/proxy/`)).json).toMatchObject({ code: 400, message: 'invalid pod request "a:b:c:d"' });
  });

  it("passes WebSocket upgrades through", async () => {
    const ws = new WebSocket(`${s.url.replace("https", "wss")}${base}/pods/backend/proxy/ws`, { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const reply = new Promise<string>((r) => ws.once("message", (m: Buffer) => r(m.toString())));
    ws.send("ping");
    expect(await reply).toBe("pong:ping");
    ws.close();
  });
});

describe.skipIf(!hostIP)("services/proxy", () => {
  it("reaches an endpoint of the named or numbered port", async () => {
    expect((await req(s, "GET", `${base}/services/svc:http/proxy/a`)).json).toMatchObject({ url: "/a" });
    expect((await req(s, "GET", `${base}/services/svc:80/proxy/b`)).json).toMatchObject({ url: "/b" });
    expect((await req(s, "GET", `${base}/services/http:svc:80/proxy/c`)).json).toMatchObject({ url: "/c" });
  });

  it("answers upstream's 503s when no port or endpoint serves", async () => {
    expect((await req(s, "GET", `${base}/services/svc:81/proxy/`)).json).toMatchObject({ code: 503, reason: "ServiceUnavailable", message: 'no service port 81 found for service "svc"' });
    expect((await req(s, "GET", `${base}/services/svc:other/proxy/`)).json).toMatchObject({ code: 503, message: 'no endpoints available for service "svc:other"' });
    expect((await req(s, "GET", `${base}/services/nope/proxy/`)).json).toMatchObject({ code: 404, message: 'endpoints "nope" not found' });
  });
});

describe.skipIf(!hostIP)("nodes/proxy", () => {
  it("reaches another port of the node over the proxy transport", async () => {
    expect((await req(s, "GET", `/api/v1/nodes/n1:${port}/proxy/metrics`)).json).toMatchObject({ url: "/metrics" });
  });

  it("refuses a loopback node address", async () => {
    expect((await req(s, "GET", `/api/v1/nodes/loop/proxy/`)).json).toMatchObject({ code: 400, message: "address not allowed" });
  });

  it("a backend that is down is upstream's 503", async () => {
    const r = await req(s, "GET", `/api/v1/nodes/n1:1/proxy/`);
    expect(r.json).toMatchObject({ code: 503, reason: "ServiceUnavailable", message: `error trying to reach service: dial tcp ${hostIP}:1: connect: connection refused` });
  });
});

describe.skipIf(!hostIP || !kubectlBin)("kubectl proxy", () => {
  let proxy: ChildProcess | undefined;
  afterAll(() => {
    if (proxy?.pid) process.kill(proxy.pid);
  });

  it("serves the API and the proxy subresources through kapi", async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), "kapi-kubectl-proxy-")), "kubeconfig");
    writeFileSync(kubeconfig, s.kubeconfig);
    proxy = spawn(kubectlBin!, ["proxy", "--port=0"], { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: process.env.HOME ?? "/tmp" } });
    const proxyPort = await new Promise<number>((resolve, reject) => {
      let out = "";
      proxy!.stdout!.on("data", (c) => {
        out += c;
        const m = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      proxy!.once("exit", (code) => reject(new Error(`kubectl proxy exited ${code}: ${out}`)));
    });
    const fetchText = (path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        httpGet(`http://127.0.0.1:${proxyPort}${path}`, (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode!, text }));
        }).on("error", reject);
      });
    const pods = await fetchText(`${base}/pods`);
    expect(pods.status).toBe(200);
    expect(JSON.parse(pods.text).items.map((p: { metadata: { name: string } }) => p.metadata.name).sort()).toEqual(["backend", "local"]);
    const proxied = await fetchText(`${base}/services/svc:http/proxy/through-kubectl?z=2`);
    expect(JSON.parse(proxied.text)).toMatchObject({ method: "GET", url: "/through-kubectl?z=2" });
  });
});
