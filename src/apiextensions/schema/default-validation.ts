// Defaults must validate and be pruned (upstream defaulting.ValidateDefaults, simplified: each
// `default` is checked against the schema node it sits on, and must survive pruning unchanged).
import { type FieldError, invalid } from "../../apimachinery/validation.js";
import { prune } from "./prune.js";
import { validateObject } from "./validate.js";
import { child, deepCopy, index, key, type JSONSchemaProps } from "./types.js";
import { applyDefaults } from "./defaults.js";

export function validateDefaults(schema: JSONSchemaProps | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, path, true, errs);
  return errs;
}

function walk(s: JSONSchemaProps | undefined, p: string, isRoot: boolean, errs: FieldError[]): void {
  if (!s) return;
  if (s.default !== undefined && s.default !== null) {
    const d = deepCopy(s.default);
    applyDefaults(d, s);
    errs.push(...validateObject(d, s, { path: child(p, "default") }));
    const pruned = deepCopy(d);
    const removed = prune(pruned, s, { isResourceRoot: false });
    if (removed.length > 0) errs.push(invalid(child(p, "default"), s.default, "must not have unknown fields"));
  }
  const items = Array.isArray(s.items) ? undefined : s.items;
  walk(items, child(p, "items"), false, errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, key(child(p, "properties"), k), false, errs);
  if (typeof s.additionalProperties === "object") walk(s.additionalProperties, child(p, "additionalProperties"), false, errs);
  void index;
  void isRoot;
}
