// One client connection per instance. HTTP/2: one TLS session, any number of concurrent streams.
// HTTP/1.1: one keep-alive socket (an Agent limited to one socket), one request at a time.
import { connect, constants, type ClientHttp2Session } from "node:http2";
import { Agent, request as httpsRequest } from "node:https";
import type { Proto, Target } from "./protocol.js";

export interface Response {
  status: number;
  bytes: number;
  /** Only when asked for: collecting bodies costs the client CPU. */
  body?: Buffer;
  contentType?: string;
}

export interface Conn {
  request(method: string, path: string, body?: Buffer, wantBody?: boolean): Promise<Response>;
  close(): void;
}

/** Large flow-control windows so a busy connection is never throttled by the client's side. */
const windowBytes = 32 * 1024 * 1024;

/** TLS client options: the client certificate, unless the target authenticates by bearer token. */
function tlsCreds(t: Target): { ca: string; cert?: string; key?: string } {
  return t.bearerToken === undefined ? { ca: t.ca, cert: t.cert, key: t.key } : { ca: t.ca };
}

/** Headers every request to the target carries besides its own (the bearer token, if any). */
function authHeaders(t: Target): Record<string, string> {
  return t.bearerToken === undefined ? {} : { authorization: `Bearer ${t.bearerToken}` };
}

class H2Conn implements Conn {
  private constructor(
    private s: ClientHttp2Session,
    private auth: Record<string, string>,
  ) {}

  static open(t: Target): Promise<H2Conn> {
    return new Promise((resolve, reject) => {
      const s = connect(t.url, { ...tlsCreds(t), settings: { initialWindowSize: 4 * 1024 * 1024 } });
      s.once("error", reject);
      s.once("connect", () => {
        s.setLocalWindowSize(windowBytes);
        s.removeListener("error", reject);
        s.on("error", () => undefined);
        resolve(new H2Conn(s, authHeaders(t)));
      });
    });
  }

  request(method: string, path: string, body?: Buffer, wantBody = false): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ":method": method, ":path": path, accept: "application/json", ...this.auth };
      if (body) headers["content-type"] = "application/json";
      const st = this.s.request(headers, { endStream: !body });
      let status = 0;
      let contentType: string | undefined;
      let bytes = 0;
      const chunks: Buffer[] = [];
      st.on("response", (h) => {
        status = Number(h[":status"]);
        contentType = h["content-type"] as string | undefined;
      });
      st.on("data", (c: Buffer) => {
        bytes += c.length;
        if (wantBody) chunks.push(c);
      });
      st.on("end", () => resolve({ status, bytes, contentType, body: wantBody ? Buffer.concat(chunks) : undefined }));
      st.on("error", reject);
      if (body) st.end(body);
    });
  }

  /** A long-lived GET (watch): calls onData per chunk, resolves when headers arrive. */
  stream(path: string, onData: (c: Buffer) => void, onEnd: () => void): Promise<number> {
    return new Promise((resolve, reject) => {
      const st = this.s.request({ ":method": "GET", ":path": path, accept: "application/json", ...this.auth }, { endStream: true });
      st.on("response", (h) => resolve(Number(h[":status"])));
      st.on("data", onData);
      st.on("close", onEnd);
      st.on("error", reject);
    });
  }

  close(): void {
    this.s.close();
    // A session with open watch streams would otherwise linger until they end.
    setTimeout(() => this.s.destroyed || this.s.destroy(undefined, constants.NGHTTP2_CANCEL), 500).unref();
  }
}

class H1Conn implements Conn {
  private agent: Agent;
  private url: URL;

  constructor(private t: Target) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, ...tlsCreds(t) });
    this.url = new URL(t.url);
  }

  request(method: string, path: string, body?: Buffer, wantBody = false): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: "application/json", ...authHeaders(this.t) };
      if (body) {
        headers["content-type"] = "application/json";
        headers["content-length"] = body.length;
      }
      const r = httpsRequest({ method, hostname: this.url.hostname, port: this.url.port, path, headers, agent: this.agent }, (res) => {
        let bytes = 0;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (wantBody) chunks.push(c);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, bytes, contentType: res.headers["content-type"], body: wantBody ? Buffer.concat(chunks) : undefined }),
        );
        res.on("error", reject);
      });
      r.on("error", reject);
      r.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export async function openConn(t: Target, proto: Proto): Promise<Conn> {
  return proto === "h2" ? H2Conn.open(t) : new H1Conn(t);
}

export function openH2(t: Target): Promise<H2Conn> {
  return H2Conn.open(t);
}

export type { H2Conn };
