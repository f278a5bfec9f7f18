// `npx tsx --expose-gc bench/idle-watchers.ts [--watchers N] [--per-session N] [--entry dist/bundle/index.js]`
// Bytes held per idle watcher (issue 26): kapi (memory storage) runs in this process; a forked
// client opens N watch streams over HTTP/2 sessions of up to 1,000 streams each (kapi's
// maxConcurrentStreams) and holds them. The server's heap (after a full GC) and RSS are read
// before the watches and once they are all open; the difference over N is the figure. --entry
// measures a build (as shipped) instead of the sources under tsx, whose keepNames gives every
// closure a property array of its own.
import { fork } from "node:child_process";
import { connect } from "node:http2";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { clientCredsFromKubeconfig, type ClientCreds } from "./core/tls.js";

interface ClientJob extends ClientCreds {
  url: string;
  watchers: number;
  perSession: number;
}

/** Client side: open the watches, report when every one answered 200, then hold them. */
async function client(job: ClientJob): Promise<void> {
  const sessions = Array.from({ length: Math.ceil(job.watchers / job.perSession) }, () => connect(job.url, { ca: job.ca, cert: job.cert, key: job.key, settings: { initialWindowSize: 1 << 20 } }));
  let ok = 0;
  await Promise.all(
    Array.from(
      { length: job.watchers },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const st = sessions[i % sessions.length]!.request({ ":path": "/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true", accept: "application/json" });
          st.on("response", (h) => (h[":status"] === 200 ? (ok++, resolve()) : reject(new Error(`HTTP ${h[":status"]}`))));
          st.on("data", () => undefined);
          st.on("error", reject);
        }),
    ),
  );
  process.send!({ open: ok });
}

function gcHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc (npx tsx --expose-gc bench/idle-watchers.ts)");
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : d;
  };
  const watchers = opt("--watchers", 10_000);
  const perSession = opt("--per-session", 1000);
  const entryAt = argv.indexOf("--entry");
  const entry = entryAt >= 0 ? pathToFileURL(resolve(argv[entryAt + 1]!)).href : "../src/index.js";
  const { startServer } = (await import(entry)) as typeof import("../src/index.js");
  const dataDir = mkdtempSync(join(tmpdir(), "kapi-idle-"));
  const server = await startServer({ storage: "memory", dataDir, port: 0, journal: false, faults: false });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const heap0 = gcHeap();
    const rss0 = process.memoryUsage().rss;
    const child = fork(fileURLToPath(import.meta.url), ["--client"], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const opened = await new Promise<number>((resolve, reject) => {
      child.once("message", (m) => resolve((m as { open: number }).open));
      child.once("exit", (code) => reject(new Error(`client exited ${code}`)));
      child.send({ url: server.url, ...clientCredsFromKubeconfig(server.kubeconfig), watchers, perSession } satisfies ClientJob);
    });
    await new Promise((r) => setTimeout(r, 1000));
    const heap1 = gcHeap();
    const rss1 = process.memoryUsage().rss;
    const per = (a: number, b: number) => Math.round((b - a) / opened);
    process.stdout.write(`${opened} idle watchers: heap ${per(heap0, heap1)} B/watcher (${((heap1 - heap0) / 2 ** 20).toFixed(1)} MiB), RSS ${per(rss0, rss1)} B/watcher (${((rss1 - rss0) / 2 ** 20).toFixed(1)} MiB)\n`);
    child.kill();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--client")) process.once("message", (job) => void client(job as ClientJob));
else await main();
