// `node bench/startserver-warm.mjs [--runs N] [--entry PATH] [--trace]`
// The library figures of issue 22: `startServer({ storage: "memory" })` of the built package, imported
// by name as a project that depends on kapi imports it (dist/bundle/index-cached.js where Node can
// require ES modules, else dist/bundle/index.js; --entry names another), from the call to its first authenticated answer (GET
// /api/v1/namespaces/default with the admin kubeconfig's client certificate). The first start in
// the process is the cold one (module loading included, measured from the process's start); the
// following ones are warm (the figure the ≤ 50 ms goal is about). With --trace, the server's
// KAPI_STARTUP_TRACE phases of each start. Plain .mjs run by bare node, so the cold figure is
// the bundle's own (no TypeScript loader in the process).
import { request } from "node:https";
import { loadavg } from "node:os";


function args(argv) {
  const o = { runs: 7, entry: "kapi", trace: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    if (flag === "--runs") o.runs = Math.max(1, Number(inline ?? argv[++i]));
    else if (flag === "--entry") o.entry = inline ?? argv[++i];
    else if (flag === "--trace") o.trace = true;
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  return o;
}

/** The admin kubeconfig's base64 fields (kapi writes it in one fixed shape). */
function credentials(kubeconfig) {
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)[1], "base64").toString();
  return { ca: field("certificate-authority-data"), cert: field("client-certificate-data"), key: field("client-key-data") };
}

function get(url, creds, path) {
  return new Promise((done, fail) => {
    const u = new URL(url);
    const r = request({ host: u.hostname, port: u.port, path, ...creds, agent: false }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
    });
    r.on("error", fail);
    r.end();
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const o = args(process.argv.slice(2));
  if (o.trace) process.env.KAPI_STARTUP_TRACE = "1";
  const load = loadavg()[0].toFixed(2);
  const importStart = performance.now();
  const { startServer } = await import(o.entry);
  const importMs = performance.now() - importStart;
  const warm = [];
  const warmCpu = [];
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (let i = 0; i <= o.runs; i++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const s = await startServer({ storage: "memory" });
    const status = await get(s.url, credentials(s.kubeconfig), "/api/v1/namespaces/default");
    const ms = performance.now() - t0;
    const cpu = cpuMs() - c0;
    // The process's CPU time since it started (node's own start included), read at the 200.
    const cpuSinceStart = cpuMs();
    const sinceStart = performance.now();
    if (status !== 200) throw new Error(`first authenticated request answered ${status}`);
    await s.stop();
    if (i > 0) (warm.push(ms), warmCpu.push(cpu));
    // Cold: the bundle's import plus the first start (wall), and the process's CPU since it started.
    const cold = i === 0 ? ` (+ import ${importMs.toFixed(1)} ms = ${(importMs + ms).toFixed(1)} ms cold, process start → 200 ${sinceStart.toFixed(1)} ms; process CPU since its start ${cpuSinceStart.toFixed(1)} ms)` : "";
    process.stdout.write(`${i === 0 ? "cold" : "warm"} start ${i}: call → first authenticated 200 in ${ms.toFixed(1)} ms, CPU ${cpu.toFixed(1)} ms${cold}\n`);
  }
  process.stdout.write(`startServer({ storage: "memory" }) warm: median ${median(warm).toFixed(1)} ms (CPU ${median(warmCpu).toFixed(1)} ms), min ${Math.min(...warm).toFixed(1)}, max ${Math.max(...warm).toFixed(1)} over ${o.runs} starts; node ${process.version}; load ${load} → ${loadavg()[0].toFixed(2)}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`startserver-warm: ${e.stack}\n`);
    process.exit(1);
  },
);
