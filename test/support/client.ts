// Test support: start a real kapi on a loopback port and talk to it over real HTTPS.
import { request as httpsRequest } from "node:https";
import { connect as h2connect } from "node:http2";
import { parse } from "yaml";
import { startServer, type KapiServer, type StartOptions } from "../../src/index.js";

export interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

/** A server's address and admin kubeconfig (an embedded one, or a `kapi serve` child); the test kit's methods are on KapiServer. */
export type ServerEndpoint = Omit<KapiServer, "snapshot" | "restore" | "save" | "reset" | "settle">;

export interface TestServer extends ServerEndpoint {
  admin: Credentials;
  anonymous: Credentials;
  as(token: string): Credentials;
}

/** What the HTTPS helpers need of a server: also a `kapi serve` child, which has no in-process journal or faults. */
export type HttpServer = Omit<TestServer, "journal" | "faults" | "waitFor">;

export function credentialsFromKubeconfig(kubeconfig: string): Credentials {
  const kc = parse(kubeconfig);
  const d = (s: string) => Buffer.from(s, "base64").toString("utf8");
  return {
    ca: d(kc.clusters[0].cluster["certificate-authority-data"]),
    cert: d(kc.users[0].user["client-certificate-data"]),
    key: d(kc.users[0].user["client-key-data"]),
  };
}

/** Adds the admin, anonymous and token credentials read from a server's kubeconfig. */
export function withCredentials<T extends { kubeconfig: string }>(s: T): T & Pick<TestServer, "admin" | "anonymous" | "as"> {
  const admin = credentialsFromKubeconfig(s.kubeconfig);
  return Object.assign(s, { admin, anonymous: { ca: admin.ca }, as: (token: string) => ({ ca: admin.ca, token }) });
}

/** An embedded server with its credentials and its test kit (settle(), reset(), ...). */
export type EmbeddedTestServer = TestServer & KapiServer;

export async function startTestServer(opts: StartOptions = {}): Promise<EmbeddedTestServer> {
  return withCredentials(await startServer(opts));
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  creds?: Credentials;
}

/** One HTTP/1.1 request; `body` objects are sent as JSON. */
export function req(server: HttpServer, method: string, path: string, o: RequestOptions = {}): Promise<RawResponse> {
  const creds = o.creds ?? server.admin;
  const url = new URL(path, server.url);
  const payload = o.body === undefined ? undefined : Buffer.isBuffer(o.body) ? o.body : typeof o.body === "string" ? Buffer.from(o.body) : Buffer.from(JSON.stringify(o.body));
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (payload && !headers["content-type"]) headers["content-type"] = "application/json";
  if (payload) headers["content-length"] = String(payload.length);
  if (creds.token) headers["authorization"] = `Bearer ${creds.token}`;
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      { method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
        });
      },
    );
    r.on("error", reject);
    if (payload) r.write(payload);
    r.end();
  });
}

/** Events collected by watchEvents, and `opened`: the stream's head has arrived. */
export type WatchCollection = Promise<any[]> & { opened: Promise<void> };

/**
 * Opens a watch over HTTP/1.1 and collects events until `until` says stop (or timeout).
 * `await w.opened` before the writes the watch must see: the server sends the head once the watch
 * is registered at its starting revision, so nothing written afterwards can be missed.
 */
export function watchEvents(server: HttpServer, path: string, until: (events: any[]) => boolean, timeoutMs = 10_000, creds = server.admin): WatchCollection {
  const url = new URL(path, server.url);
  let markOpened!: () => void;
  let failOpen!: (e: unknown) => void;
  const opened = new Promise<void>((resolve, reject) => ((markOpened = resolve), (failOpen = reject)));
  const events = new Promise<any[]>((resolve, reject) => {
    const events: any[] = [];
    let buf = "";
    const r = httpsRequest({ method: "GET", hostname: url.hostname, port: url.port, path: url.pathname + url.search, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
      if (res.statusCode === 200) markOpened();
      else failOpen(new Error(`watch ${res.statusCode}`));
      if (res.statusCode !== 200) {
        let t = "";
        res.on("data", (c) => (t += c));
        res.on("end", () => reject(new Error(`watch ${res.statusCode}: ${t}`)));
        return;
      }
      res.on("data", (c) => {
        buf += c.toString();
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line));
        }
        if (until(events)) {
          clearTimeout(timer);
          r.destroy();
          resolve(events);
        }
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve(events);
      });
    });
    const timer = setTimeout(() => {
      failOpen(new Error(`watch ${path} did not open within ${timeoutMs} ms`));
      r.destroy();
      resolve(events);
    }, timeoutMs);
    r.on("error", (e) => {
      failOpen(e);
      if (events.length) resolve(events);
      else reject(e);
    });
    r.end();
  });
  // A caller that awaits only the events must not see an unhandled rejection of `opened`.
  opened.catch(() => undefined);
  return Object.assign(events, { opened });
}

/** An HTTP/2 session with admin credentials, for multiplexing tests. */
export function h2session(server: HttpServer, creds = server.admin) {
  return h2connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
}
