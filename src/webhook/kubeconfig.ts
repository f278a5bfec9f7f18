// A webhook's connection file (token authentication and authorization webhooks), in kubeconfig format: the current context's cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify, tls-server-name) and user
// (client-certificate[-data], client-key[-data], token, tokenFile). Relative paths resolve
// against the file's directory, as client-go resolves them.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { lazyPackage } from "../apimachinery/package-files.js";
import { goQuote } from "../apimachinery/go-quote.js";

// Loaded by the first webhook configuration read, not at start-up.
const yaml = lazyPackage<typeof import("yaml")>("yaml");

export interface WebhookConnection {
  server: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecureSkipTLSVerify: boolean;
  serverName?: string;
  /** The URL as error messages print it, when Go's rendering differs from URL.href (an explicit :443). */
  href?: string;
}

/** How Go prints a URL: like URL.href, but an explicit default port is kept (`https://svc.ns.svc:443/`). */
export function goURLString(u: URL, explicitPort: number | undefined): string {
  if (explicitPort === undefined || u.port !== "") return u.href;
  return `${u.protocol}//${u.hostname}:${explicitPort}${u.pathname}${u.search}${u.hash}`;
}

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}

type Obj = Record<string, unknown>;

export function loadWebhookKubeconfig(file: string): WebhookConnection {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`stat ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
  }
  let doc: Obj;
  try {
    doc = (yaml().parse(text) ?? {}) as Obj;
  } catch (e) {
    throw new Error(`error loading config file "${file}": ${(e as Error).message}`);
  }
  if (typeof doc !== "object" || Array.isArray(doc)) throw new Error(`error loading config file "${file}": not a kubeconfig`);
  const dir = dirname(resolve(file));
  const list = (k: string) => (Array.isArray(doc[k]) ? (doc[k] as Named<Obj>[]) : []);
  const clusters = list("clusters");
  const users = list("users");
  const contexts = list("contexts");
  const currentName = typeof doc["current-context"] === "string" ? (doc["current-context"] as string) : "";
  let ctx: Obj | undefined;
  if (currentName) {
    ctx = contexts.find((c) => c.name === currentName)?.context;
    if (!ctx) throw new Error(`invalid configuration: context was not found for specified context: ${currentName}`);
  } else if (contexts.length === 1) ctx = contexts[0]!.context;
  const cluster = ctx ? clusters.find((c) => c.name === ctx!.cluster)?.cluster : clusters.length === 1 ? clusters[0]!.cluster : undefined;
  const user = ctx ? users.find((u) => u.name === ctx!.user)?.user : users.length === 1 ? users[0]!.user : undefined;
  if (!cluster || typeof cluster.server !== "string" || !cluster.server) {
    throw new Error("invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable");
  }
  const path = (p: unknown) => (typeof p === "string" && p ? (isAbsolute(p) ? p : resolve(dir, p)) : undefined);
  const read = (dataKey: string, fileKey: string, from: Obj | undefined): string | undefined => {
    if (!from) return undefined;
    const data = from[dataKey];
    if (typeof data === "string" && data) return Buffer.from(data, "base64").toString("utf8");
    const p = path(from[fileKey]);
    if (!p) return undefined;
    try {
      return readFileSync(p, "utf8");
    } catch (e) {
      throw new Error(`unable to read ${fileKey} ${p} for webhook due to open ${p}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
    }
  };
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new Error(`invalid configuration: host must be a URL or a host:port pair: ${JSON.stringify(cluster.server)}`);
  }
  if (server.protocol !== "https:" && server.protocol !== "http:") throw new Error(`invalid configuration: unsupported scheme ${goQuote(server.protocol.replace(/:$/, ""))} in ${cluster.server}`);
  const cert = read("client-certificate-data", "client-certificate", user);
  const key = read("client-key-data", "client-key", user);
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error(cert ? "invalid configuration: client-cert-data and client-cert are both specified for webhook. client-cert-data will override." : "invalid configuration: client-key-data or client-key must be specified for webhook to use the clientCert authentication method.");
  }
  let token = user && typeof user.token === "string" && user.token ? (user.token as string) : undefined;
  const tokenFile = path(user?.tokenFile);
  if (!token && tokenFile) token = readFileSync(tokenFile, "utf8").trim();
  return {
    server,
    ca: read("certificate-authority-data", "certificate-authority", cluster),
    cert,
    key,
    token,
    insecureSkipTLSVerify: cluster["insecure-skip-tls-verify"] === true,
    serverName: typeof cluster["tls-server-name"] === "string" ? (cluster["tls-server-name"] as string) : undefined,
  };
}
