// `npx tsx bench/watch-fanout-cpu.ts [--watchers N] [--events M] [--rounds R] [--bare [--pad N]] [--profile FILE] [--entry dist/bundle/index.js]`
// Server CPU per delivered watch event (issue 26), measured in the server's own process so a
// loaded machine's wall time does not enter: kapi (memory storage, no controllers) runs here; a
// forked client opens N watch streams (100 per HTTP/2 session, as the watch bench) and creates M
// pods, 4 at a time (no controller but the ServiceAccount one runs: nothing else writes), waiting until every watcher has received each. The same M creates are first
// made with no watchers: the difference in the server's CPU over M×N is the fan-out cost per
// delivered event (cache dispatch, the watch handler, HTTP/2 framing, the socket). --bare runs the
// serialize-once anchor's fan-out (bench/servers/fanout.ts's loop) in this process instead.
// --pad N adds N bytes to the anchor's events (kapi's carry managedFields and defaults: to compare
// at equal sizes). --profile writes a CPU profile of the watched rounds (bench/profile-summary.ts reads it).
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Session } from "node:inspector/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { clientCredsFromKubeconfig, servingCredsFromCertDir, type ClientCreds } from "./core/tls.js";
import { openH2 } from "./client/transport.js";
import { pod } from "./fixtures.js";
import { listenBare } from "./servers/listen.js";
import { fanoutHandler } from "./servers/fanout-handler.js";

interface ClientJob extends ClientCreds {
  url: string;
  watchers: number;
  events: number;
}

type ToClient = { job: ClientJob } | { round: "plain" | "watched"; from: number };
type ToServer = { ready: true } | { done: number; delivered: number; bytes: number };

const NL = 10;

/** Client side: creates rounds of M pods; in watched rounds N watchers must see each. */
async function client(job: ClientJob): Promise<void> {
  const target = { url: job.url, ca: job.ca, cert: job.cert, key: job.key };
  const writer = await openH2(target);
  const conns = await Promise.all(Array.from({ length: Math.ceil(job.watchers / 100) }, () => openH2(target)));
  let delivered = 0;
  let bytes = 0;
  const onData = (c: Buffer) => {
    bytes += c.length;
    for (let i = c.indexOf(NL); i !== -1; i = c.indexOf(NL, i + 1)) delivered++;
  };
  const create = async (namespace: string, from: number) => {
    let next = from;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < from + job.events) {
          const n = next++;
          const r = await writer.request("POST", `/api/v1/namespaces/${namespace}/pods`, Buffer.from(JSON.stringify(pod(`p-${n}`, namespace, String(n)))));
          if (r.status !== 201) throw new Error(`create: HTTP ${r.status}`);
        }
      }),
    );
  };
  // Plain rounds create in another namespace: the watchers (on "default") see none of them.
  const ns = await writer.request("POST", "/api/v1/namespaces", Buffer.from(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "plain" } })));
  if (ns.status !== 201) throw new Error(`namespace: HTTP ${ns.status}`);
  // Pods are admitted once their namespace's default ServiceAccount exists (its controller makes it).
  for (const n of ["default", "plain"]) while (Math.floor((await writer.request("GET", `/api/v1/namespaces/${n}/serviceaccounts/default`)).status / 100) !== 2) await new Promise((r) => setTimeout(r, 20));
  const st = await Promise.all(Array.from({ length: job.watchers }, (_, i) => conns[i % conns.length]!.stream("/api/v1/namespaces/default/pods?watch=1", onData, () => undefined)));
  if (st.some((s) => s !== 200)) throw new Error("watch: not 200");
  process.on("message", (m: ToClient) => {
    if (!("round" in m)) return;
    void (async () => {
      const before = delivered;
      const bytesBefore = bytes;
      await create(m.round === "watched" ? "default" : "plain", m.from);
      const want = before + (m.round === "watched" ? job.events * job.watchers : 0);
      while (delivered < want) await new Promise((r) => setTimeout(r, 2));
      process.send!({ done: m.from, delivered: delivered - before, bytes: bytes - bytesBefore } satisfies ToServer);
    })();
  });
  process.send!({ ready: true } satisfies ToServer);
}

/** The anchor's fan-out (bench/servers/fanout-handler.ts), in this process; its other GETs answer 200. */
async function bareServer(certDir: string, pad: number): Promise<{ url: string; close: () => void }> {
  const { handle } = fanoutHandler({ fansOut: (path) => path.startsWith("/api/v1/namespaces/default/"), pad });
  const { server, url } = await listenBare(servingCredsFromCertDir(certDir), (ex) => {
    if (ex.method === "GET" && !ex.path.includes("watch=1")) return ex.head(200, {}), ex.end();
    handle(ex);
  });
  return { url, close: () => void server.close() };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : d;
  };
  const str = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const watchers = opt("--watchers", 1000);
  const events = opt("--events", 200);
  const rounds = opt("--rounds", 3);
  const bare = argv.includes("--bare");
  const profileFile = str("--profile");
  const entry = str("--entry") ? pathToFileURL(resolve(str("--entry")!)).href : "../src/index.js";
  const { startServer } = (await import(entry)) as typeof import("../src/index.js");
  const dataDir = mkdtempSync(join(tmpdir(), "kapi-fanout-"));
  const server = await startServer({ storage: "memory", dataDir, port: 0, journal: false, faults: false, controllers: ["serviceaccount-controller"] });
  const anchor = bare ? await bareServer(findCertDir(dataDir), opt("--pad", 0)) : undefined;
  const child = fork(fileURLToPath(import.meta.url), ["--client"], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const replies: ToServer[] = [];
    let wake: (() => void) | undefined;
    child.on("message", (m: ToServer) => (replies.push(m), wake?.()));
    child.once("exit", (code) => code && (process.stderr.write(`client exited ${code}\n`), process.exit(1)));
    const next = async () => {
      while (replies.length === 0) await new Promise<void>((r) => (wake = r));
      return replies.shift()!;
    };
    child.send({ job: { url: anchor?.url ?? server.url, ...clientCredsFromKubeconfig(server.kubeconfig), watchers, events } } satisfies ToClient);
    await next();
    let from = 0;
    let measuring = false;
    const threadTicks = new Map<string, number>();
    const round = async (kind: "plain" | "watched") => {
      const t0 = threads();
      const c0 = process.cpuUsage();
      child.send({ round: kind, from } satisfies ToClient);
      const r = (await next()) as { delivered: number; bytes: number };
      const c = process.cpuUsage(c0);
      if (measuring) for (const [name, ticks] of threads()) threadTicks.set(`${kind} ${name}`, (threadTicks.get(`${kind} ${name}`) ?? 0) + ticks - (t0.get(name) ?? 0));
      from += events;
      return { us: c.user + c.system, delivered: r.delivered, bytes: r.bytes };
    };
    // Warm-up of both paths (JIT), then the measured rounds, plain and watched alternating.
    await round("plain");
    await round("watched");
    const session = profileFile ? new Session() : undefined;
    measuring = true;
    let plainUs = 0;
    let watchedUs = 0;
    let delivered = 0;
    let bytes = 0;
    for (let i = 0; i < rounds; i++) {
      plainUs += (await round("plain")).us;
      if (session && i === 0) {
        session.connect();
        await session.post("Profiler.enable");
        await session.post("Profiler.start");
      }
      const w = await round("watched");
      watchedUs += w.us;
      delivered += w.delivered;
      bytes += w.bytes;
    }
    if (session) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(profileFile!, JSON.stringify(profile));
      session.disconnect();
    }
    const perEvent = (watchedUs - plainUs) / delivered;
    process.stdout.write(
      `${bare ? "bare" : "kapi"}: ${watchers} watchers × ${events} events × ${rounds} rounds: server CPU ${(plainUs / rounds / events).toFixed(0)} µs per create without watchers, ${(watchedUs / rounds / events).toFixed(0)} µs with; fan-out ${perEvent.toFixed(2)} µs per delivered event (${delivered} delivered, ${Math.round(bytes / delivered)} bytes each)\n`,
    );
    // Where the CPU went, by thread (Linux): the main thread's share is what a CPU profile sees.
    const byThread = [...threadTicks].filter(([, t]) => t > 0).map(([k, t]) => `${k} ${(t * 10) / rounds} ms`);
    if (byThread.length > 0) process.stdout.write(`  per round, by thread: ${byThread.join(", ")}\n`);
  } finally {
    child.kill();
    anchor?.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** CPU ticks (10 ms) per thread name of this process, summed over threads of one name; empty off Linux. */
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return out;
}

/** kapi's generated serving pair is somewhere under its data dir: the anchor serves with it. */
function findCertDir(dir: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.name === "apiserver.crt") return e.parentPath ?? (e as unknown as { path: string }).path;
  throw new Error(`no apiserver.crt under ${dir}`);
}

if (process.argv.includes("--client")) process.once("message", (m: ToClient) => void ("job" in m && client(m.job)));
else await main();
