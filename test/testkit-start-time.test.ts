// How long a test waits for its server: in a fresh Node process that imports the built package
// entry by name (cold: module loading and certificate generation included, counted from the
// process's start) and for a second startServer() in the same process (warm), each up to the
// first authenticated response. Prints the figures; timing never fails the suite.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

// performance.now() in the child counts from its process's start (timeOrigin).
const script = `
import { request } from "node:https";
import { parse } from "yaml";
const { startServer } = await import("kapi");
const firstResponse = async (t0) => {
  const s = await startServer({ storage: "memory" });
  const kc = parse(s.kubeconfig);
  const b64 = (x) => Buffer.from(x, "base64");
  const code = await new Promise((resolve, reject) => {
    const r = request(s.url + "/api/v1/namespaces/default", { agent: false, ca: b64(kc.clusters[0].cluster["certificate-authority-data"]),
      cert: b64(kc.users[0].user["client-certificate-data"]), key: b64(kc.users[0].user["client-key-data"]) }, (res) => { res.resume(); res.on("end", () => resolve(res.statusCode)); });
    r.on("error", reject);
    r.end();
  });
  const ms = performance.now() - t0;
  return { s, code, ms };
};
const cold = await firstResponse(0);
const warm = await firstResponse(performance.now());
await Promise.all([cold.s.stop(), warm.s.stop()]);
process.stdout.write(JSON.stringify({ cold: [cold.code, cold.ms], warm: [warm.code, warm.ms] }));
`;

function runNode(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", code], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

it("startServer(): cold (a fresh process, from its start) and warm, to the first authenticated response", async () => {
  expect(existsSync(`${root}dist/bundle/index.js`), "dist/bundle/index.js is missing: run npm run build").toBe(true);
  const out = JSON.parse(await runNode(script)) as { cold: [number, number]; warm: [number, number] };
  expect(out.cold[0]).toBe(200);
  expect(out.warm[0]).toBe(200);
  console.log(`startServer({ storage: "memory" }) to the first authenticated response: cold ${out.cold[1].toFixed(0)} ms from process start, warm ${out.warm[1].toFixed(0)} ms`);
});
