// The built package entry, as a project that depends on kapi imports it (plain Node, by package
// name): an admission plugin refuses writes by throwing the exported ApiError helpers, and the
// client gets their Status. Needs `npm run build` (npm ci runs it).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// The types a plugin author writes against, from the same entry (checked by tsc in npm test).
import type { AdmissionAttributes, AdmissionPlugin, ApiError, FieldError, KObject, ResourceType, UserInfo } from "../src/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));

const script = `
import { startServer, ApiError, forbidden, invalid, field } from "kapi";
import { request } from "node:https";
import { parse } from "yaml";
const plugin = {
  name: "TestPolicy",
  validate(a) {
    const name = a.object?.metadata?.name;
    if (name === "forbidden-one") throw forbidden({ group: "", resource: "configmaps" }, name, "not on my watch");
    if (name === "invalid-one") throw invalid({ group: "", kind: "ConfigMap" }, name, [field.required("data.k", "a k is needed")]);
    if (name === "teapot") throw new ApiError(418, "", "short and stout");
  },
};
const s = await startServer({ storage: "memory", admissionPlugins: [plugin] });
const kc = parse(s.kubeconfig);
const b64 = (x) => Buffer.from(x, "base64");
const post = (name) => new Promise((resolve, reject) => {
  const r = request(s.url + "/api/v1/namespaces/default/configmaps", { method: "POST", headers: { "content-type": "application/json" },
    ca: b64(kc.clusters[0].cluster["certificate-authority-data"]), cert: b64(kc.users[0].user["client-certificate-data"]), key: b64(kc.users[0].user["client-key-data"]) }, (res) => {
    let t = ""; res.on("data", (c) => (t += c)); res.on("end", () => resolve(JSON.parse(t)));
  });
  r.on("error", reject);
  r.end(JSON.stringify({ metadata: { name } }));
});
const out = {};
for (const n of ["forbidden-one", "invalid-one", "teapot", "fine"]) { const st = await post(n); out[n] = [st.code ?? 201, st.reason ?? "", st.message ?? ""]; }
out.isError = forbidden({ group: "", resource: "x" }, "y", "z") instanceof ApiError && new ApiError(400, "BadRequest", "m") instanceof Error;
await s.stop();
process.stdout.write(JSON.stringify(out));
`;

function runNode(code: string, env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", code], { cwd: root, timeout: 60_000, env }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr })));
  });
}

describe("the package entry", () => {
  it("exports ApiError and the Status helpers an admission plugin throws, and the client sees their Status", async () => {
    expect(existsSync(`${root}dist/bundle/index.js`), "dist/bundle/index.js is missing: run npm run build").toBe(true);
    const out = JSON.parse((await runNode(script)).stdout);
    expect(out["forbidden-one"]).toEqual([403, "Forbidden", 'configmaps "forbidden-one" is forbidden: not on my watch']);
    expect(out["invalid-one"]).toEqual([422, "Invalid", 'ConfigMap "invalid-one" is invalid: data.k: Required value: a k is needed']);
    expect(out["teapot"]).toEqual([418, "", "short and stout"]);
    expect(out["fine"][0]).toBe(201);
    expect(out.isError).toBe(true);
  });

  it("resolves to the code-cached entry where Node can require ES modules, exporting what the ES module entry exports", async () => {
    const probe = `
const esm = await import(${JSON.stringify(root + "dist/bundle/index.js")});
const cached = await import(${JSON.stringify(root + "dist/bundle/index-cached.js")});
process.stdout.write(JSON.stringify({ resolved: import.meta.resolve("kapi"), esm: Object.keys(esm).sort(), cached: Object.keys(cached).sort(),
  sameTypes: Object.keys(esm).every((k) => typeof esm[k] === typeof cached[k]) }));
`;
    const out = JSON.parse((await runNode(probe)).stdout);
    const requireModule = (process.features as { require_module?: boolean }).require_module === true;
    expect(out.resolved.endsWith(requireModule ? "dist/bundle/index-cached.js" : "dist/bundle/index.js")).toBe(true);
    expect(out.cached).toEqual(out.esm);
    expect(out.esm).toContain("startServer");
    expect(out.sameTypes).toBe(true);
  });

  it("keeps the bootstrap objects' stored forms of a first server for the next process, and none when in-process plugins could act on them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-entry-cache-"));
    try {
      const env = { ...process.env, NODE_COMPILE_CACHE: dir };
      const start = (plugins: boolean) => `
import { startServer } from "kapi";
const s = await startServer({ storage: "memory"${plugins ? ', admissionPlugins: [{ name: "Noop", validate() {} }]' : ""} });
await s.stop();
`;
      const forms = () => readdirSync(dir, { recursive: true }).map(String).filter((f) => f.includes("-bootstrap-"));
      await runNode(start(true), env);
      expect(forms()).toEqual([]);
      await runNode(start(false), env);
      const requireModule = (process.features as { require_module?: boolean }).require_module === true;
      // Only the code-cached entry knows its build (the ES module entry keeps none).
      expect(forms()).toHaveLength(requireModule ? 1 : 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("types a plugin against the exported types", () => {
    const seen: string[] = [];
    const plugin: AdmissionPlugin = {
      name: "Typed",
      admit(a: AdmissionAttributes) {
        const obj: KObject | undefined = a.object;
        const user: UserInfo | undefined = a.user;
        const t: ResourceType = a.type;
        seen.push(`${t.resource}/${obj?.metadata.name}/${user?.name ?? ""}`);
      },
    };
    const errs: FieldError[] = [];
    const e: ApiError | undefined = undefined;
    expect(plugin.name).toBe("Typed");
    expect([seen, errs, e]).toEqual([[], [], undefined]);
  });
});
