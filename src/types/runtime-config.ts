// --runtime-config: "<group>/<version>[=bool]", "api/all", "api/ga|beta|alpha", "<group>/<version>/<resource>".
// Core is "api/v1" (also accepted: "v1"). Returns whether a resource is served.
import type { ResourceFacts } from "./builtin-resources.js";
import { parseGoBool } from "../apimachinery/booleans.js";
import { goQuote } from "../apimachinery/go-quote.js";

export type RuntimeConfig = (f: ResourceFacts) => boolean;

function parseBool(v: string | undefined, key: string): boolean {
  if (v === undefined || v === "") return true;
  const b = parseGoBool(v);
  if (b !== undefined) return b;
  throw new Error(`--runtime-config: invalid value ${goQuote(v)} for ${key}: must be true or false`);
}

export function parseRuntimeConfig(spec: string, known: readonly ResourceFacts[]): RuntimeConfig {
  const levels = new Map<string, boolean>();
  const gvs = new Map<string, boolean>();
  const gvrs = new Map<string, boolean>();
  const knownGV = new Set(known.map((f) => `${f.group}/${f.version}`));
  for (const item of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf("=");
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = parseBool(eq < 0 ? undefined : item.slice(eq + 1), key);
    if (key === "api/all" || key === "api/ga" || key === "api/beta" || key === "api/alpha") {
      levels.set(key.slice(4), value);
      continue;
    }
    const parts = key.split("/");
    let group: string, version: string, resource: string | undefined;
    if (parts[0] === "api" && parts.length >= 2) [group, version, resource] = ["", parts[1], parts[2]];
    else if (parts.length === 1) [group, version] = ["", parts[0]];
    else [group, version, resource] = parts;
    if (!knownGV.has(`${group}/${version}`)) throw new Error(`--runtime-config: unknown api groupVersion "${group ? group + "/" : ""}${version}"`);
    if (resource) gvrs.set(`${group}/${version}/${resource}`, value);
    else gvs.set(`${group}/${version}`, value);
  }
  return (f) => {
    const gvr = gvrs.get(`${f.group}/${f.version}/${f.resource}`);
    if (gvr !== undefined) return gvr;
    const gv = gvs.get(`${f.group}/${f.version}`);
    if (gv !== undefined) return gv;
    const level = levels.get(f.level) ?? levels.get("all");
    if (level !== undefined) return level;
    return f.enabledByDefault;
  };
}
