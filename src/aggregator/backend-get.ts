// One GET to an aggregated backend as the aggregator makes it for its own checks and discovery:
// TLS (verified against the APIService's caBundle, or not at all), the front-proxy client
// certificate, and the identity in the X-Remote-* headers that client-go's auth proxy round
// tripper sets. Errors carry Go's net/http text (`Get "<url>": <cause>`).
import { request } from "node:https";
import { goNetErrorText, type DialTarget } from "../webhook/client.js";
import { joinHostPort } from "./service-resolver.js";

export interface ProxyClientCert {
  cert: string;
  key: string;
}

export interface BackendGet {
  target: DialTarget;
  path: string;
  /** The backend's certificate is not verified (upstream's insecureSkipTLSVerify; the availability check always). */
  insecure: boolean;
  /** PEM bundle the certificate must chain to; absent: the system's roots. */
  ca?: string;
  /** The name the certificate must carry (`<service>.<namespace>.svc`). */
  serverName?: string;
  clientCert?: ProxyClientCert;
  user: { name: string; groups: readonly string[] };
  accept?: string;
  timeoutMs: number;
  /** The answer's body is read up to this many bytes (more fails the call). */
  maxBytes?: number;
}

export class BackendError extends Error {}

export const backendURL = (target: DialTarget, path: string) => `https://${joinHostPort(target)}${path}`;

export function backendGet(g: BackendGet): Promise<{ status: number; body: Buffer; contentType: string }> {
  const url = backendURL(g.target, g.path);
  const headers: Record<string, string | string[]> = { "x-remote-user": g.user.name, "user-agent": "kube-aggregator" };
  if (g.user.groups.length > 0) headers["x-remote-group"] = [...g.user.groups];
  if (g.accept) headers.accept = g.accept;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: g.target.host,
        port: g.target.port,
        path: g.path,
        method: "GET",
        headers,
        agent: false,
        rejectUnauthorized: !g.insecure,
        ...(g.ca !== undefined ? { ca: g.ca } : {}),
        ...(g.serverName ? { servername: g.serverName } : {}),
        ...(g.clientCert ? { cert: g.clientCert.cert, key: g.clientCert.key } : {}),
        timeout: g.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (g.maxBytes !== undefined && size > g.maxBytes) return req.destroy(new BackendError(`Get "${url}": response too large`));
          chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), contentType: String(res.headers["content-type"] ?? "") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new BackendError(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on("error", (e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
      if (e instanceof BackendError) return reject(e);
      // Go names the address it dialed (the resolved IP), as Node's error does.
      const dialed = e.address ? joinHostPort({ host: e.address, port: e.port ?? g.target.port }) : joinHostPort(g.target);
      reject(new BackendError(`Get "${url}": ${goNetErrorText(e, dialed)}`));
    });
    req.end();
  });
}
