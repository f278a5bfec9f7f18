// One replica's API as the soak's writers and informer see it: JSON requests and a watch stream
// over one HTTP/2 session, opened again after the replica is killed and restarted. A request that
// meets a dead session fails (its outcome is unknown to the caller); the next one reconnects.
import { connect, constants, type ClientHttp2Session } from "node:http2";
import type { ClientCreds } from "../core/tls.js";

export interface ApiResponse {
  status: number;
  body: any;
}

export class ReplicaApi {
  private session: ClientHttp2Session | undefined;
  private connecting: Promise<ClientHttp2Session> | undefined;

  constructor(
    readonly url: string,
    private creds: ClientCreds,
  ) {}

  /** New client credentials (a restarted replica may have written a new kubeconfig). */
  setCreds(creds: ClientCreds): void {
    this.creds = creds;
  }

  async request(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<ApiResponse> {
    const s = await this.open();
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ":method": method, ":path": path, accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      const st = s.request(headers, { endStream: body === undefined });
      st.setTimeout(timeoutMs, () => st.close(constants.NGHTTP2_CANCEL));
      let status = 0;
      const chunks: Buffer[] = [];
      st.on("response", (h) => (status = Number(h[":status"])));
      st.on("data", (c: Buffer) => chunks.push(c));
      st.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = text;
        }
        if (status === 0) reject(new Error(`${method} ${path}: stream ended without a response`));
        else resolve({ status, body: json });
      });
      st.on("close", () => {
        if (status === 0) reject(new Error(`${method} ${path}: stream closed (${st.rstCode})`));
      });
      st.on("error", reject);
      if (body !== undefined) st.end(JSON.stringify(body));
    });
  }

  /**
   * A long GET (watch): `onLine` per newline-terminated JSON line, `onEnd` once when the stream
   * ends for any reason. Resolves with the HTTP status once headers arrive.
   */
  async stream(path: string, onLine: (line: string) => void, onEnd: (why: string) => void): Promise<number> {
    const s = await this.open();
    return new Promise((resolve, reject) => {
      const st = s.request({ ":method": "GET", ":path": path, accept: "application/json" }, { endStream: true });
      let buf = "";
      let ended = false;
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        onEnd(why);
      };
      st.setEncoding("utf8");
      st.on("response", (h) => resolve(Number(h[":status"])));
      st.on("data", (c: string) => {
        buf += c;
        for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) onLine(line);
        }
      });
      st.on("close", () => end(`stream closed (${st.rstCode})`));
      st.on("error", (e) => {
        reject(e);
        end(String(e));
      });
    });
  }

  close(): void {
    this.session?.destroy();
    this.session = undefined;
  }

  private open(): Promise<ClientHttp2Session> {
    if (this.session && !this.session.closed && !this.session.destroyed) return Promise.resolve(this.session);
    this.connecting ??= new Promise<ClientHttp2Session>((resolve, reject) => {
      const s = connect(this.url, { ca: this.creds.ca, cert: this.creds.cert, key: this.creds.key });
      const fail = (e: Error) => {
        this.connecting = undefined;
        s.destroy();
        reject(e);
      };
      s.once("error", fail);
      s.once("connect", () => {
        s.removeListener("error", fail);
        // Errors of a live session surface on its streams; the session is replaced on next use.
        s.on("error", () => undefined);
        s.on("close", () => {
          if (this.session === s) this.session = undefined;
        });
        this.session = s;
        this.connecting = undefined;
        resolve(s);
      });
    });
    return this.connecting;
  }
}
