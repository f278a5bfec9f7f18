// Applying a MutatingAdmissionPolicy mutation to an object (upstream: mutating/patch smd.go and
// json_patch.go). ApplyConfiguration: the expression's `Object{...}` is merged into the object
// with server-side apply's structural merge (lists and maps by their schema types), after
// checking that nested type names follow the field path, that every field is declared and that
// no atomic list, map or struct is touched. JSONPatch: the operations are applied in order; a
// failed `test` leaves the object as it was.
import { fromCel } from "../../../cel/convert.js";
import { CelMap, CelObject, type CelValue } from "../../../cel/value.js";
import { SchemaContext, fieldType, type TypeRef } from "../../../apply/schema.js";
import { merge } from "../../../apply/typed.js";
import { isObject } from "../../../apply/value.js";
import { applyJsonPatch } from "../../../patch/json-patch.js";
import { PatchError } from "../../../patch/errors.js";
import type { KObject } from "../../../apimachinery/object.js";
import type { ResourceType } from "../../../registry/resource-type.js";

export class MutationError extends Error {}

/** Every nested Object value must be named by its field path from the root (upstream: CheckTypeNamesMatchFieldPathNames). */
export function typeNameMismatch(v: CelValue, path: string): string | undefined {
  if (v instanceof CelObject) {
    if (v.typeName !== path && path !== "") return `unexpected type name "${v.typeName}", expected "${path}", which matches field name path from root Object type`;
    for (const [k, field] of v.entries()) {
      const m = typeNameMismatch(field, `${v.typeName}.${String(k)}`);
      if (m) return m;
    }
    return undefined;
  }
  if (Array.isArray(v)) {
    for (const item of v) {
      const m = typeNameMismatch(item, path);
      if (m) return m;
    }
    return undefined;
  }
  if (v instanceof CelMap) {
    for (const [, item] of v.entries()) {
      const m = typeNameMismatch(item, path);
      if (m) return m;
    }
  }
  return undefined;
}

const contexts = new WeakMap<object, SchemaContext>();

function schemaFor(t: ResourceType): { ctx: SchemaContext; root: TypeRef } {
  let ctx = contexts.get(t.schema.definition);
  if (!ctx) contexts.set(t.schema.definition, (ctx = new SchemaContext(t.schema.definition)));
  const name = t.schema.nameOf(t.group, t.version, t.kind);
  return { ctx, root: name === undefined ? undefined : { $ref: name } };
}

/**
 * The patch's fields not declared in the schema (first one), and the atomic lists, maps and
 * structs it sets (as upstream's findAtomics paths: ".spec.selector").
 */
function inspect(ctx: SchemaContext, v: unknown, t: TypeRef, path: string, atomics: string[]): string | undefined {
  const a = ctx.atomFor(t, v);
  if (a.kind === "map" && isObject(v)) {
    if (a.atomic && path !== "") atomics.push(path);
    for (const [k, val] of Object.entries(v)) {
      const f = fieldType(a, k);
      if (!f.declared && a.fields !== undefined && a.elem === undefined && !a.deduced) return `${path}.${k}: field not declared in schema`;
      const bad = inspect(ctx, val, f.type, `${path}.${k}`, atomics);
      if (bad) return bad;
    }
  } else if (a.kind === "list" && Array.isArray(v)) {
    if (a.atomic) atomics.push(path);
    for (let i = 0; i < v.length; i++) {
      const bad = inspect(ctx, v[i], a.elem, `${path}[${i}]`, atomics);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** Applies an ApplyConfiguration result to `obj` (of type `t`); throws MutationError with upstream's words. */
export function applyConfiguration(obj: KObject, t: ResourceType, result: CelValue): KObject {
  const mismatch = typeNameMismatch(result, "Object");
  if (mismatch) throw new MutationError(`type mismatch: ${mismatch}`);
  const patch = fromCel(result) as Record<string, unknown>;
  patch.apiVersion = obj.apiVersion;
  patch.kind = obj.kind;
  const { ctx, root } = schemaFor(t);
  const atomics: string[] = [];
  const undeclared = inspect(ctx, patch, root, "", atomics);
  if (undeclared) throw new MutationError(`error applying patch: failed to convert patch object to typed object: ${undeclared}`);
  if (atomics.length > 0) throw new MutationError(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(", ")}`);
  try {
    return merge(ctx, obj, patch, root) as KObject;
  } catch (e) {
    throw new MutationError(`error applying patch: failed to merge patch: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Applies a JSONPatch result (a list of JSONPatch values) to `obj`. */
export function applyJsonPatchMutation(obj: KObject, result: CelValue): KObject {
  if (!Array.isArray(result)) throw new MutationError("type mismatch: JSONPatchType.expression should evaluate to array");
  const ops: Record<string, unknown>[] = [];
  for (const item of result as CelValue[]) {
    if (!(item instanceof CelMap)) throw new MutationError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch");
    const op: Record<string, unknown> = { op: item.get("op") ?? "", path: item.get("path") ?? "" };
    const from = item.get("from");
    if (typeof from === "string" && from !== "") op.from = from;
    const value = item.get("value");
    if (value !== undefined) {
      if (value instanceof CelObject) {
        const mismatch = typeNameMismatch(value, value.typeName);
        if (mismatch) throw new MutationError(`type mismatch: ${mismatch}`);
      }
      op.value = fromCel(value);
    }
    ops.push(op);
  }
  try {
    return applyJsonPatch(obj, ops) as KObject;
  } catch (e) {
    if (e instanceof PatchError && /test failed/.test(e.message)) return obj; // a failed test: no change
    throw new MutationError(`JSON Patch: ${e instanceof Error ? e.message : String(e)}`);
  }
}
