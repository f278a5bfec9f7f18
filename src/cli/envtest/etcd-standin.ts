// `kapi envtest-etcd`: what envtest starts as its `etcd` when KUBEBUILDER_ASSETS is kapi's
// (`kapi envtest-assets`). It stores nothing: it answers envtest's readiness poll (GET /health on
// each --listen-client-urls) and says, by a header on that answer, that it is kapi's stand-in, so
// kapi's kube-apiserver named by --etcd-servers keeps its objects in memory (storage-choice.ts).
import { createServer, type Server } from "node:http";
import { goQuote } from "../../apimachinery/go-quote.js";

/** The header (and value) on /health by which kapi's kube-apiserver recognises the stand-in. */
export const standInHeader = "x-kapi-etcd-stand-in";
export const standInValue = "memory";

/** etcd's flags envtest passes (controller-runtime v0.22, controlplane/etcd.go); the stand-in needs only the client URLs. */
const knownFlags: Record<string, string> = {
  "listen-client-urls": "List of URLs to listen on for client traffic (http only). The stand-in answers GET /health there and nothing else.",
  "advertise-client-urls": "List of this member's client URLs to advertise. Ignored by the stand-in.",
  "listen-peer-urls": "List of URLs to listen on for peer traffic. Ignored: the stand-in has no peers.",
  "data-dir": "Path to the data directory. Ignored: the stand-in stores nothing.",
  "unsafe-no-fsync": "Disables fsync, unsafe, will cause data loss. Ignored: the stand-in stores nothing.",
};

export function standInHelp(): string {
  const lines = ["kapi's etcd stand-in for envtest: answers GET /health and nothing else; kapi's kube-apiserver keeps objects in memory.", "", "Usage:", "  etcd [flags]", "", "Flags:"];
  for (const [name, help] of Object.entries(knownFlags)) lines.push(`  --${name}`, `      ${help}`);
  return lines.join("\n") + "\n";
}

export interface StandInFlags {
  listenClientURLs: URL[];
  /** Flags the stand-in does not know: accepted (a suite may configure its etcd), named on stderr. */
  ignored: string[];
}

export function parseStandInFlags(args: string[]): StandInFlags {
  const urls: string[] = [];
  const ignored: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("-")) throw new Error(`unexpected argument ${goQuote(arg)}`);
    const bare = arg.replace(/^--?/, "");
    const eq = bare.indexOf("=");
    const name = eq < 0 ? bare : bare.slice(0, eq);
    let value = eq < 0 ? undefined : bare.slice(eq + 1);
    if (name === "listen-client-urls") {
      if (value === undefined) {
        if (i + 1 >= args.length) throw new Error("flag needs an argument: --listen-client-urls");
        value = args[++i];
      }
      urls.push(...value.split(",").filter(Boolean));
    } else if (!(name in knownFlags)) ignored.push(arg);
  }
  if (urls.length === 0) urls.push("http://localhost:2379"); // etcd's default
  return { listenClientURLs: urls.map(clientURL), ignored };
}

function clientURL(u: string): URL {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    throw new Error(`--listen-client-urls: invalid URL ${goQuote(u)}`);
  }
  if (url.protocol !== "http:") throw new Error(`--listen-client-urls: ${goQuote(u)}: the stand-in serves http only`);
  if (!url.port) throw new Error(`--listen-client-urls: ${goQuote(u)}: a port is required`);
  return url;
}

/** Serves /health on every URL; resolves with a stop function once all listen. */
export async function serveStandIn(urls: URL[]): Promise<() => Promise<void>> {
  const servers: Server[] = [];
  const stop = () => Promise.all(servers.map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))).then(() => undefined);
  try {
    for (const url of urls) {
      const server = createServer((req, res) => {
        if (req.method === "GET" && (req.url === "/health" || req.url?.startsWith("/health?"))) {
          res.writeHead(200, { "content-type": "application/json", [standInHeader]: standInValue });
          res.end('{"health":"true","reason":""}');
          return;
        }
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("kapi's etcd stand-in answers GET /health only; kapi's kube-apiserver keeps its objects in memory\n");
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(Number(url.port), url.hostname.replace(/^\[(.*)\]$/, "$1"), () => resolve());
      });
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return stop;
}

/** `kapi envtest-etcd [flags]`: runs until SIGTERM or SIGINT (envtest stops it with SIGTERM). */
export async function runStandIn(args: string[], err: (t: string) => void): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(standInHelp());
    return 0;
  }
  let flags: StandInFlags;
  let stop: () => Promise<void>;
  try {
    flags = parseStandInFlags(args);
    stop = await serveStandIn(flags.listenClientURLs);
  } catch (e) {
    err(`kapi etcd stand-in: ${(e as Error).message}\n`);
    return 1;
  }
  for (const f of flags.ignored) err(`kapi etcd stand-in: ignoring ${f}\n`);
  err(`kapi etcd stand-in: serving GET /health on ${flags.listenClientURLs.map((u) => u.origin).join(", ")} and nothing else; kapi's kube-apiserver keeps objects in memory\n`);
  return new Promise<number>((resolve) => {
    const done = () => void stop().then(() => resolve(0));
    process.once("SIGTERM", done);
    process.once("SIGINT", done);
  });
}
