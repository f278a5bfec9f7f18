// `kapi validate -f FILE|DIR ...`: each object of the manifests goes through the server's own
// pipeline — decoding, field validation, defaulting, the type's validation (CRD schemas and CEL
// rules), admission (ValidatingAdmissionPolicies and bindings from the files) — in an in-process
// memory server on a loopback port, as a dry-run create; the result is the Status message the
// server would answer. What later objects depend on is created for real first (plan.ts).
import { Agent, request } from "node:https";
import { parse } from "yaml";
import { goQuote } from "../../apimachinery/go-quote.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { defaultOptions } from "../../server/options.js";
import { startApiServer, type RunningServer } from "../../server/start.js";
import { manifestFiles, readManifests, type Manifest } from "./manifests.js";
import { planSteps } from "./plan.js";

export const validateHelp = `Usage:
  kapi validate -f FILE|DIR [-f ...] [--validate=strict|warn|ignore]

Checks manifests without a cluster: each object is created as a dry run in an in-process kapi, so
it meets the server's own decoding, field validation, defaulting, validation (CRD schemas and CEL
rules) and admission (ValidatingAdmissionPolicies and their bindings). CustomResourceDefinitions,
Namespaces, policies, bindings and the params policies name are created first, so custom resources
of the files' CRDs are checked against them. A directory contributes its .yaml, .yml and .json
files. --validate is the field validation for unknown or duplicate fields (kubectl's names; default
strict). Prints one line per object and exits 1 when any object is invalid, 2 on a usage error.
`;

interface Io {
  out(t: string): void;
  err(t: string): void;
}

interface Args {
  files: string[];
  fieldValidation: "Strict" | "Warn" | "Ignore";
}

function parseArgs(args: string[]): Args {
  const files: string[] = [];
  let fieldValidation: Args["fieldValidation"] = "Strict";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^(-f|--filename|--validate)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(a.startsWith("-") ? `unknown flag: ${a}` : `unexpected argument ${goQuote(a)} (files are given with -f)`);
    let v = m[2];
    if (v === undefined) {
      if (i + 1 >= args.length) throw new Error(`flag needs an argument: ${m[1]}`);
      v = args[++i];
    }
    if (m[1] === "--validate") {
      const fv = ({ strict: "Strict", true: "Strict", warn: "Warn", ignore: "Ignore", false: "Ignore" } as const)[v.toLowerCase() as "strict"];
      if (!fv) throw new Error(`invalid - validate option ${goQuote(v)}; must be one of: strict (or true), warn, ignore (or false)`);
      fieldValidation = fv;
    } else files.push(v);
  }
  if (files.length === 0) throw new Error("must specify one of -f");
  return { files, fieldValidation };
}

export async function runValidate(argv: string[], io: Io): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(validateHelp);
    return 0;
  }
  let args: Args;
  let manifests: Manifest[];
  try {
    args = parseArgs(argv);
    manifests = manifestFiles(args.files).flatMap((f) => readManifests(f));
  } catch (e) {
    io.err(`kapi validate: ${(e as Error).message}\n\n${validateHelp}`);
    return 2;
  }
  let invalid = 0;
  const report = (m: Manifest, verdict: string) => io.out(`${where(m)}: ${verdict}\n`);
  for (const m of manifests.filter((x) => x.error)) {
    invalid++;
    report(m, `invalid: ${m.error}`);
  }
  const server = await startApiServer({ ...defaultOptions(), storageBackend: "memory", securePort: 0, bindAddress: "127.0.0.1", dataDir: "", writeKubeconfig: false });
  const client = apiClient(server);
  try {
    const steps = planSteps(manifests);
    for (const [phase, step] of steps.entries()) {
      if (phase === 1) await ensureNamespaces(client, server.parts.types, steps.slice(1).flat().map((s) => s.manifest.object));
      for (const { manifest, persist } of step) {
        const r = await submit(client, server.parts.types, manifest.object, persist, args.fieldValidation);
        if (!r.ok) invalid++;
        report(manifest, r.ok ? "valid" : `invalid: ${r.message}`);
        for (const w of r.warnings) io.out(`  Warning: ${w}\n`);
      }
      // What the next phases rely on must be in effect before they run.
      if (phase === 1) await crdsServed(server.parts.types, step.filter((s) => s.persist).map((s) => s.manifest.object));
      if (phase === 3 && step.length) await caughtUp(client, ["validatingadmissionpolicies", "validatingadmissionpolicybindings"]);
    }
  } finally {
    client.close();
    await server.stop();
  }
  const total = manifests.length;
  io.out(`${total} object${total === 1 ? "" : "s"}: ${total - invalid} valid, ${invalid} invalid\n`);
  return invalid ? 1 : 0;
}

function where(m: Manifest): string {
  const o = m.object;
  const doc = `${m.file} document ${m.document}${m.item === undefined ? "" : ` item ${m.item}`}`;
  if (!o) return doc;
  const ns = o.metadata?.namespace ? `${o.metadata.namespace}/` : "";
  return `${doc} ${o.kind} ${ns}${o.metadata?.name ?? o.metadata?.generateName ?? "(no name)"}`;
}

interface Reply {
  status: number;
  body: any;
  warnings: string[];
}

interface Client {
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  close(): void;
}

function apiClient(server: RunningServer): Client {
  const kc = parse(server.kubeconfig);
  const d = (s: string) => Buffer.from(s, "base64").toString("utf8");
  const agent = new Agent({
    keepAlive: true,
    ca: d(kc.clusters[0].cluster["certificate-authority-data"]),
    cert: d(kc.users[0].user["client-certificate-data"]),
    key: d(kc.users[0].user["client-key-data"]),
  });
  return {
    call: (method, path, body) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = request(new URL(path, server.url), { method, agent, headers: { accept: "application/json", ...(payload ? { "content-type": "application/json" } : {}) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const warning = res.headers.warning;
            const warnings = (Array.isArray(warning) ? warning : warning ? [warning] : []).map((w) => /^\d{3} \S+ "(.*)"$/.exec(w)?.[1]?.replace(/\\(.)/g, "$1") ?? w);
            let json: any;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = { message: text };
            }
            resolve({ status: res.statusCode ?? 0, body: json, warnings });
          });
        });
        req.on("error", reject);
        req.end(payload);
      }),
    close: () => agent.destroy(),
  };
}

function typeOf(types: TypeRegistry, o: KObject): ResourceType | undefined {
  return types.all().find((t) => t.apiVersion === o.apiVersion && t.kind === o.kind && !t.resource.includes("/"));
}

function collectionPath(t: ResourceType, namespace: string): string {
  const base = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  return `${base}${t.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : ""}/${t.resource}`;
}

async function submit(client: Client, types: TypeRegistry, o: KObject, persist: boolean, fieldValidation: string): Promise<{ ok: boolean; message?: string; warnings: string[] }> {
  const t = typeOf(types, o);
  if (!t) return { ok: false, message: `no matches for kind ${goQuote(o.kind ?? "")} in version ${goQuote(o.apiVersion ?? "")}`, warnings: [] };
  const collection = collectionPath(t, o.metadata?.namespace || "default");
  const query = `?fieldValidation=${fieldValidation}${persist ? "" : "&dryRun=All"}`;
  let r = await client.call("POST", collection + query, o);
  // An object the server already has (the default namespace, a name given twice): validate it as an update.
  if (r.status === 409 && r.body?.reason === "AlreadyExists" && o.metadata?.name) {
    r = await client.call("PUT", `${collection}/${encodeURIComponent(o.metadata.name)}?fieldValidation=${fieldValidation}&dryRun=All`, o);
  }
  if (r.status >= 200 && r.status < 300) return { ok: true, warnings: r.warnings };
  return { ok: false, message: r.body?.message ?? `HTTP ${r.status}`, warnings: r.warnings };
}

/** Namespaces the objects are in that neither exist nor were created from the files. */
async function ensureNamespaces(client: Client, types: TypeRegistry, objects: KObject[]): Promise<void> {
  const names = new Set<string>();
  for (const o of objects) if (typeOf(types, o)?.namespaced) names.add(o.metadata?.namespace || "default");
  for (const name of names) {
    const r = await client.call("GET", `/api/v1/namespaces/${encodeURIComponent(name)}`);
    if (r.status === 404) await client.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
}

/** Until every served version of the created CRDs is a registered type (or 10 s). */
async function crdsServed(types: TypeRegistry, crds: KObject[]): Promise<void> {
  const wanted = crds.flatMap((c) => {
    const spec = (c as { spec?: { group?: string; names?: { plural?: string }; versions?: { name: string; served?: boolean }[] } }).spec;
    return (spec?.versions ?? []).filter((v) => v.served).map((v) => [spec?.group ?? "", v.name, spec?.names?.plural ?? ""] as const);
  });
  const deadline = Date.now() + 10_000;
  while (wanted.some(([g, v, r]) => !types.get(g, v, r)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/** A consistent list of each resource: the watch cache the policy informers follow has every write by then. */
async function caughtUp(client: Client, resources: string[]): Promise<void> {
  for (const r of resources) await client.call("GET", `/apis/admissionregistration.k8s.io/v1/${r}`);
}
