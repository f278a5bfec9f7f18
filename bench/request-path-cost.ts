// `npx tsx bench/request-path-cost.ts [durationMs] [get|create] [--bundle] [--alloc TOP]`: kapi's own CPU per request for a
// GET of one pod by name and for one pod create, without TLS or HTTP/2 framing: the real server
// (started in this process as the bench's kapi is, sqlite storage, the admin's client
// certificate, the default authorizers) is handed HTTP/2 streams that exist only in memory, on its
// own listener's `stream` event, so every stage after the socket runs as it does in production —
// the exchange, the whole filter chain, the router, the handler, the encoder. Requests run in
// turns of 64 concurrent ones (as the bench's clients keep them in flight); the figure is the
// best of three rounds of process CPU time over requests. Run it under `node --cpu-prof` (see
// bench/profile-summary.ts) for where the time goes by stage. `--bundle`: the built bundle
// (`npm run build`) instead of the sources under tsx, whose per-closure naming helper (`__name`,
// "set natives" in profiles) the bundle does not have. `--alloc TOP`: V8's sampling heap profiler
// (collected objects included) over the measured rounds, printed as bytes allocated per request
// by allocating function, the TOP largest (bench/alloc-sites.ts). KAPI_STORAGE=etcd3 with
// KAPI_OPTIONS='{"etcdServers":["http://…"]}' runs it on an etcd of yours.
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import { Server as TlsServer } from "node:tls";
import { parse } from "yaml";
import type { startServer as StartServer } from "../src/index.js";
import { allocationReport, startAllocationSampling } from "./alloc-sites.js";
import { pod } from "./fixtures.js";

const allocIndex = process.argv.indexOf("--alloc");
const allocTop = allocIndex >= 0 ? Number(process.argv[allocIndex + 1] ?? 30) : 0;
const args = process.argv.slice(2).filter((a, i, all) => a !== "--bundle" && a !== "--alloc" && all[i - 1] !== "--alloc");
const bundle = process.argv.includes("--bundle");
const durationMs = Number(args[0] ?? 3000);
const only = args[1];
const { startServer } = (await import(bundle ? "../dist/bundle/index.js" : "../src/index.js")) as { startServer: typeof StartServer };
const dir = mkdtempSync(join(tmpdir(), "request-path-cost-"));
const server = await startServer({ storage: (process.env.KAPI_STORAGE ?? "sqlite") as "sqlite", dataDir: join(dir, "data"), port: 0, journal: false, faults: false, options: { certDir: join(dir, "certs"), ...JSON.parse(process.env.KAPI_OPTIONS ?? "{}") } });
const listener = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().find((h): h is TlsServer => h instanceof TlsServer);
if (!listener) throw new Error("the server's listener was not found");

// The admin's certificate as a TLS socket hands it over: the leaf, then its issuer (the client CA, self-issued).
const kc = parse(server.kubeconfig);
const pem = (s: string) => Buffer.from(s, "base64").toString("utf8");
const leaf = new X509Certificate(pem(kc.users[0].user["client-certificate-data"]));
const ca = new X509Certificate(readFileSync(join(dir, "certs", "client-ca.crt"), "utf8"));
const subject = (c: X509Certificate) => Object.fromEntries(c.subject.split("\n").map((l) => l.split("=", 2)).reduce((m, [k, v]) => m.set(k!, m.has(k!) ? [m.get(k!)!].flat().concat(v!) : v!), new Map<string, string | string[]>()));
const caPeer: Record<string, unknown> = { subject: subject(ca), raw: ca.raw };
caPeer.issuerCertificate = caPeer;
const peer = { subject: subject(leaf), raw: leaf.raw, issuerCertificate: caPeer };
/** One TLS connection's socket per 64 requests, as the bench's 64 connections carry theirs. */
const sockets = Array.from({ length: 64 }, () => ({ getPeerCertificate: () => peer, remoteAddress: "127.0.0.1", alpnProtocol: "h2", encrypted: true }));

/** An HTTP/2 stream in memory: the request body is read from it, the response is counted and dropped. */
class MemoryStream extends Duplex {
  status = 0;
  bytes = 0;
  /** The response body, when kept. */
  kept: Buffer[] | undefined;
  constructor(
    readonly session: { socket: unknown },
    private body: Buffer | undefined,
  ) {
    super();
    // The response sent: the stream closes (the request's side ended with its headers or body).
    this.once("finish", () => this.destroy());
  }
  respond(headers: Record<string, unknown>): void {
    this.status = Number(headers[":status"]);
  }
  override _read(): void {
    if (this.body) this.push(this.body);
    this.body = undefined;
    this.push(null);
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.bytes += chunk.length;
    this.kept?.push(chunk);
    cb();
  }
  override _final(cb: () => void): void {
    cb();
  }
}

let failures = 0;
function request(i: number, method: string, path: string, body?: string, keep = false): Promise<MemoryStream> {
  const s = new MemoryStream({ socket: sockets[i % sockets.length] }, body === undefined ? undefined : Buffer.from(body));
  if (keep) s.kept = [];
  const headers: Record<string, string> = { ":method": method, ":path": path, ":scheme": "https", ":authority": "127.0.0.1", accept: "application/json", "user-agent": "kapi-bench/1.0" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  const done = new Promise<MemoryStream>((resolve) => s.once("close", () => resolve(s)));
  listener!.emit("stream", s, headers, 0, Object.entries(headers).flat());
  return done.then((r) => {
    if (r.status >= 300) failures++;
    return r;
  });
}

const ns = "default";
const owner = await request(0, "POST", `/apis/apps/v1/namespaces/${ns}/replicasets`, JSON.stringify({ apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "owner" }, spec: { replicas: 0, selector: { matchLabels: { app: "bench" } }, template: { metadata: { labels: { app: "bench" } }, spec: { containers: [{ name: "c", image: "busybox" }] } } } }), true);
if (owner.status !== 201) throw new Error(`owner: HTTP ${owner.status}`);
const ownerUid = (JSON.parse(Buffer.concat(owner.kept!).toString()) as { metadata: { uid: string } }).metadata.uid;
const stored = await request(0, "POST", `/api/v1/namespaces/${ns}/pods`, JSON.stringify(pod("bench-get", ns, "0", ownerUid)));
if (stored.status !== 201) throw new Error(`get pod: HTTP ${stored.status}`);

// What the server spends with no request at all (controllers, leases, metrics): not a request's
// cost, but inside every CPU-per-operation figure taken from outside the process.
{
  const start = process.cpuUsage();
  await new Promise((r) => setTimeout(r, 2000));
  const cpu = process.cpuUsage(start);
  process.stdout.write(`${"idle".padEnd(22)} ${((cpu.user + cpu.system) / 2000).toFixed(1).padStart(7)} µs CPU per ms\n`);
}

let seq = 0;
const cases: [string, (i: number) => Promise<MemoryStream>][] = [
  ["GET one pod by name", (i) => request(i, "GET", `/api/v1/namespaces/${ns}/pods/bench-get`)],
  ["create one pod", (i) => request(i, "POST", `/api/v1/namespaces/${ns}/pods`, JSON.stringify(pod(`p-${++seq}`, ns, String(seq), ownerUid)))],
];
const turn = 64;
let measured = 0;

async function measure(run: (i: number) => Promise<MemoryStream>, ms: number): Promise<number> {
  let n = 0;
  const start = process.cpuUsage();
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const all: Promise<MemoryStream>[] = [];
    for (let i = 0; i < turn; i++) all.push(run(i));
    await Promise.all(all);
    n += turn;
    measured += turn;
  }
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / n;
}

for (const [name, run] of cases) {
  if (only && !name.toLowerCase().includes(only)) continue;
  await measure(run, 500); // warm-up
  let best = Infinity;
  const from = performance.now();
  const before = measured;
  const sampling = allocTop > 0 ? await startAllocationSampling() : undefined;
  for (let r = 0; r < 3; r++) best = Math.min(best, await measure(run, durationMs / 3));
  if (sampling) {
    const root = await sampling.stop();
    process.stdout.write(allocationReport(root, measured - before, allocTop));
    // The raw profile, for Chrome DevTools' Memory tab (a .heapprofile) or your own reading.
    if (process.env.ALLOC_PROFILE_OUT) writeFileSync(process.env.ALLOC_PROFILE_OUT, JSON.stringify({ head: root }));
  }
  process.stdout.write(`${name.padEnd(22)} ${best.toFixed(1).padStart(7)} µs/request CPU\n`);
  // For allocation per request from a --trace-gc log of this process (bench/gc-allocation.ts).
  if (process.execArgv.includes("--trace-gc")) process.stdout.write(`measured window ${from.toFixed(0)}-${performance.now().toFixed(0)} ms: ${measured - before} requests\n`);
}
if (failures > 0) process.stdout.write(`(${failures} requests failed)\n`);
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
