// In-process A/B measurements of one built kapi (its dist/bundle/), for comparing two checkouts on the
// same machine when `npm run bench`'s ranges overlap:
//   node --expose-gc scripts/measure-in-process.mjs memory <kapi-root>   heap and RSS growth per pod
//   node scripts/measure-in-process.mjs list <kapi-root>                 paged LIST of 10,000 pods
// Each starts the server with the memory store in this process, creates 10,000 pods (no owners)
// over HTTPS, and prints one line. Run old and new alternately; build each with `npm run build`.
import { Agent, request } from "node:https";
import { resolve } from "node:path";
import { parse } from "yaml";

const [mode, rootArg] = process.argv.slice(2);
if ((mode !== "memory" && mode !== "list") || !rootArg) {
  process.stderr.write("usage: node [--expose-gc] scripts/measure-in-process.mjs memory|list <kapi-root>\n");
  process.exit(2);
}
if (mode === "memory" && typeof global.gc !== "function") {
  process.stderr.write("memory needs node --expose-gc\n");
  process.exit(2);
}
const root = resolve(rootArg);
const pods = 10_000;
const { startServer } = await import(`${root}/dist/bundle/index.js`);
const server = await startServer({ storage: "memory" });
const kc = parse(server.kubeconfig);
const b64 = (x) => Buffer.from(x, "base64");
const agent = new Agent({
  keepAlive: true,
  maxSockets: 8,
  ca: b64(kc.clusters[0].cluster["certificate-authority-data"]),
  cert: b64(kc.users[0].user["client-certificate-data"]),
  key: b64(kc.users[0].user["client-key-data"]),
});
const url = new URL(server.url);

function call(method, path, body) {
  return new Promise((res, rej) => {
    const r = request({ host: url.hostname, port: url.port, method, path, agent, headers: { "content-type": "application/json", accept: "application/json" } }, (resp) => {
      const chunks = [];
      resp.on("data", (c) => chunks.push(c));
      resp.on("end", () => res({ status: resp.statusCode, body: Buffer.concat(chunks) }));
    });
    r.on("error", rej);
    r.end(body ? JSON.stringify(body) : undefined);
  });
}

const pod = (i) => ({
  metadata: { name: `p${i}`, labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx:1.25", ports: [{ containerPort: 8080 }], env: [{ name: "A", value: "1" }] }] },
});

async function createPods() {
  for (let i = 0; i < pods; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, pods - i) }, (_, j) => call("POST", "/api/v1/namespaces/default/pods", pod(i + j))));
  }
  await new Promise((r) => setTimeout(r, 3000)); // background work (GC informers) settles
}

const heap = () => {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
};

if (mode === "memory") {
  await new Promise((r) => setTimeout(r, 1500));
  const before = heap();
  await createPods();
  const after = heap();
  console.log(`${root} rss/pod ${Math.round((after.rss - before.rss) / pods)} heap/pod ${Math.round((after.heap - before.heap) / pods)}`);
} else {
  await createPods();
  const rounds = [];
  for (let round = 0; round < 12; round++) {
    const t0 = performance.now();
    let cont = "";
    do {
      const r = await call("GET", `/api/v1/namespaces/default/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`);
      cont = JSON.parse(r.body).metadata.continue ?? "";
    } while (cont);
    rounds.push(performance.now() - t0);
  }
  const steady = rounds.slice(2).sort((a, b) => a - b); // the first two warm the cache
  console.log(`${root} paged list of ${pods} pods: median ${Math.round(steady[Math.floor(steady.length / 2)])} ms over ${steady.length} rounds`);
}
await server.stop();
process.exit(0);
