// `npx tsx bench/memory-100k.ts [--pods N] [--storage sqlite|memory] [--entry dist/bundle/index.js] [--concurrency N] [--no-status] [--heap-snapshot]`
// Issue 26's memory figures for a large store: kapi (the built bundle, --expose-gc) runs in a
// forked process; this one seeds N realistic pods through the API (create, then the kubelet's
// status write, over HTTP/2 with `--concurrency` streams in flight; --no-status creates only, half
// the writes, for a quicker 100k store of smaller pods), then reads the server's heap
// and RSS after forced GCs (per pod, against the pod's JSON size as served), and its peak RSS
// (VmHWM, reset before each step through /proc/<pid>/clear_refs) while it serves: an unpaged JSON
// LIST of every pod, the same gzipped, a watch from resourceVersion 0 (every pod's ADDED event),
// and a watch from now that sees 100 new pods. The client only counts bytes and event lines: it
// never parses or keeps a body, so the figures are the server's. --heap-snapshot also writes the
// server's heap once the pods are stored and summarises it by constructor (bench/heap-summary.ts).
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type ClientHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { clientCredsFromKubeconfig } from "./core/tls.js";
import { pod, replicaSet } from "./fixtures.js";
import { formatSummary, summarise } from "./heap-summary.js";

interface Mem {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

const MiB = 2 ** 20;
const ns = "mem100k";

/** Server side: kapi from the given entry; answers "mem" (after forced GCs) and "stop" over IPC. */
async function serve(): Promise<void> {
  const o = JSON.parse(process.argv[process.argv.indexOf("--child") + 1]!) as { entry: string; storage: "memory" | "sqlite" };
  const { startServer } = (await import(o.entry)) as typeof import("../src/index.js");
  const dataDir = mkdtempSync(join(tmpdir(), "kapi-mem100k-"));
  const server = await startServer({ storage: o.storage, dataDir, port: 0, journal: false, faults: false });
  process.on("message", async (m: { op: string }) => {
    if (m.op === "mem") {
      const gc = (globalThis as { gc?: () => void }).gc!;
      for (let i = 0; i < 3; i++) gc();
      const u = process.memoryUsage();
      process.send!({ rss: u.rss, heapUsed: u.heapUsed, external: u.external, arrayBuffers: u.arrayBuffers } satisfies Mem);
    } else if (m.op === "snapshot") {
      process.send!({ file: (await import("node:v8")).writeHeapSnapshot(join(dataDir, "..", `kapi-${process.pid}.heapsnapshot`)) });
    } else if (m.op === "stop") {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ url: server.url, kubeconfig: server.kubeconfig });
}

function opts(argv: string[]) {
  const o = { pods: 100_000, storage: "sqlite" as "sqlite" | "memory", entry: "dist/bundle/index.js", concurrency: 64, status: true, snapshot: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2);
    const value = () => inline ?? argv[++i]!;
    if (flag === "--pods") o.pods = Number(value());
    else if (flag === "--storage") o.storage = value() as "sqlite" | "memory";
    else if (flag === "--entry") o.entry = value();
    else if (flag === "--concurrency") o.concurrency = Number(value());
    else if (flag === "--no-status") o.status = false;
    else if (flag === "--heap-snapshot") o.snapshot = true;
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  return o;
}

/** One request; the body is counted (bytes and newlines: watch events end with one) and dropped. */
function request(s: ClientHttp2Session, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}, stopAfterLines?: number): Promise<{ status: number; bytes: number; lines: number; text: string }> {
  return new Promise((done, fail) => {
    const st = s.request({ ":method": method, ":path": path, accept: "application/json", ...(body ? { "content-type": "application/json" } : {}), ...headers });
    let status = 0;
    let bytes = 0;
    let lines = 0;
    let text = "";
    st.on("response", (h) => (status = Number(h[":status"])));
    st.on("data", (c: Buffer) => {
      bytes += c.length;
      if (text.length < 4096) text += c.toString("utf8", 0, Math.min(c.length, 4096));
      for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
      if (stopAfterLines !== undefined && lines >= stopAfterLines) {
        st.close();
        done({ status, bytes, lines, text });
      }
    });
    st.on("end", () => done({ status, bytes, lines, text }));
    st.on("close", () => done({ status, bytes, lines, text }));
    st.on("error", fail);
    st.end(body);
  });
}

async function seed(s: ClientHttp2Session[], namespace: string, count: number, ownerUid: string, concurrency: number, prefix: string, status: boolean): Promise<void> {
  let next = 0;
  const worker = async (w: number) => {
    for (let i = next++; i < count; i = next++) {
      const name = `${prefix}-${i}`;
      const body = Buffer.from(JSON.stringify(pod(name, namespace, String(i), ownerUid)));
      const c = s[w % s.length]!;
      const r = await request(c, "POST", `/api/v1/namespaces/${namespace}/pods`, body);
      if (r.status !== 201) throw new Error(`create ${name}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      if (!status) continue;
      const st = await request(c, "PUT", `/api/v1/namespaces/${namespace}/pods/${name}/status`, body);
      if (st.status !== 200) throw new Error(`status ${name}: HTTP ${st.status} ${st.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
}

/** VmHWM and VmRSS of a process, in bytes. */
function procStatus(pid: number): { hwm: number; rss: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(s)?.[1] ?? 0) * 1024;
  return { hwm: kb("VmHWM"), rss: kb("VmRSS") };
}

/** The server's peak RSS while `step` runs: the high-water mark is reset to the current RSS first. */
async function peakDuring<T>(pid: number, step: () => Promise<T>): Promise<{ value: T; peak: number; ms: number }> {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const t0 = performance.now();
  const value = await step();
  const ms = performance.now() - t0;
  return { value, peak: procStatus(pid).hwm, ms };
}

function ask<T>(child: ChildProcess, op: string): Promise<T> {
  return new Promise((r) => {
    child.once("message", (m) => r(m as T));
    child.send({ op });
  });
}

async function main(): Promise<void> {
  const o = opts(process.argv.slice(2));
  const entry = pathToFileURL(resolve(o.entry)).href;
  const child = fork(fileURLToPath(import.meta.url), ["--child", JSON.stringify({ entry, storage: o.storage })], {
    execArgv: [...process.execArgv, "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pid = child.pid!;
  const out = (line: string) => process.stdout.write(line + "\n");
  try {
    const started = await new Promise<{ url: string; kubeconfig: string }>((r, fail) => {
      child.once("message", (m) => r(m as { url: string; kubeconfig: string }));
      child.once("exit", (code) => fail(new Error(`kapi exited ${code}`)));
    });
    const creds = clientCredsFromKubeconfig(started.kubeconfig);
    const sessions = Array.from({ length: 4 }, () => connect(started.url, { ...creds, settings: { initialWindowSize: 1 << 20 } }));
    const s = sessions[0]!;
    const mkns = await request(s, "POST", "/api/v1/namespaces", Buffer.from(JSON.stringify({ metadata: { name: ns } })));
    if (mkns.status !== 201) throw new Error(`namespace: HTTP ${mkns.status}`);
    const rs = await new Promise<string>((r, fail) => {
      const st = s.request({ ":method": "POST", ":path": `/apis/apps/v1/namespaces/${ns}/replicasets`, "content-type": "application/json" });
      let t = "";
      st.on("data", (c: Buffer) => (t += c));
      st.on("end", () => r(t));
      st.on("error", fail);
      st.end(JSON.stringify(replicaSet(ns)));
    });
    const ownerUid = (JSON.parse(rs) as { metadata: { uid: string } }).metadata.uid;
    // Warm-up: code, pools and caches belong in the baseline, not in the growth per pod.
    await seed(sessions, ns, 200, ownerUid, o.concurrency, "warm", o.status);
    const m0 = await ask<Mem>(child, "mem");
    const t0 = performance.now();
    await seed(sessions, ns, o.pods, ownerUid, o.concurrency, "p", o.status);
    const seedS = (performance.now() - t0) / 1000;
    const m1 = await ask<Mem>(child, "mem");
    const one = await request(s, "GET", `/api/v1/namespaces/${ns}/pods/p-0`);
    const json = one.bytes - 1; // without the newline
    const per = (k: keyof Mem) => (m1[k] - m0[k]) / o.pods;
    out(`kapi ${o.entry}, storage ${o.storage}: ${o.pods} pods seeded in ${seedS.toFixed(0)} s (${Math.round((o.pods * (o.status ? 2 : 1)) / seedS)} writes/s${o.status ? "" : ", no status writes"}); pod JSON ${json} B`);
    out(`stored (after GC): RSS ${(m1.rss / MiB).toFixed(0)} MiB; per pod: heap ${per("heapUsed").toFixed(0)} B (${(per("heapUsed") / json).toFixed(2)}× JSON), RSS ${per("rss").toFixed(0)} B (${(per("rss") / json).toFixed(2)}× JSON), external ${per("external").toFixed(0)} B`);
    if (o.snapshot) {
      const { file } = await ask<{ file: string }>(child, "snapshot");
      out(`heap snapshot ${file}:\n${formatSummary(summarise(file), o.pods, 25)}`);
    }
    const total = o.pods + 200;
    const list = `/api/v1/namespaces/${ns}/pods`;
    const steps: [string, () => Promise<{ status: number; bytes: number; lines: number }>][] = [
      ["unpaged LIST (JSON)", () => request(s, "GET", list)],
      ["unpaged LIST (gzip)", () => request(s, "GET", list, undefined, { "accept-encoding": "gzip" })],
      ["watch from resourceVersion 0 (initial ADDED events)", () => request(s, "GET", `${list}?watch=1&resourceVersion=0`, undefined, {}, total)],
      [
        "watch from now (100 new pods)",
        async () => {
          const w = request(s, "GET", `${list}?watch=1`, undefined, {}, 100);
          await new Promise((r) => setTimeout(r, 500)); // the watch is open before the pods come
          await seed(sessions, ns, 100, ownerUid, 8, "late", o.status);
          return w;
        },
      ],
    ];
    for (const [name, step] of steps) {
      const r = await peakDuring(pid, step);
      const after = await ask<Mem>(child, "mem");
      out(`${name}: HTTP ${r.value.status}, ${(r.value.bytes / MiB).toFixed(0)} MiB, ${r.value.lines} lines in ${(r.ms / 1000).toFixed(1)} s; peak RSS ${(r.peak / MiB).toFixed(0)} MiB; after GC: RSS ${(after.rss / MiB).toFixed(0)} MiB, heap ${(after.heapUsed / MiB).toFixed(0)} MiB, external ${(after.external / MiB).toFixed(0)} MiB`);
    }
    for (const x of sessions) x.close();
  } finally {
    child.send({ op: "stop" });
    await new Promise((r) => child.once("exit", r));
  }
}

if (process.argv.includes("--child")) await serve();
else await main();
