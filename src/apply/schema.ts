// The merge-relevant shape of an OpenAPI-v2-style schema node ("atom"), as
// structured-merge-diff derives it from the x-kubernetes-* markers:
// scalars, lists (atomic, set, or map with key fields) and maps (structs with
// declared fields and/or free-form maps with an element type; atomic or
// granular). A schema that is absent or says nothing is "deduced" from the
// value itself: objects are granular maps, lists are atomic, the rest scalars.

import type { SchemaNode as SchemaFacts } from "../apimachinery/schema.js";
import { isObject } from "./value.js";
import type { JsonValue } from "./value.js";

/** Looks a definition up by name ("io.k8s.api.apps.v1.Deployment" or "#/definitions/…"); undefined when unknown. */
export type SchemaResolver = (ref: string) => SchemaFacts | undefined;

/** A schema node, or undefined for "deduce from the value" (schema-less data). */
export type TypeRef = SchemaFacts | undefined;

/** A scalar (string, number, boolean, int-or-string, …): always a leaf. */
export interface ScalarAtom {
  readonly kind: "scalar";
}

/** A list. `atomic` lists are leaves; otherwise items are keyed by `keys`, or by value when `keys` is empty (a set). */
export interface ListAtom {
  readonly kind: "list";
  readonly atomic: boolean;
  readonly keys: readonly string[];
  readonly elem: TypeRef;
  /** Defaults of key fields (used when an item omits one). */
  readonly keyDefaults: Readonly<Record<string, JsonValue>>;
}

/** A map or struct. Declared `fields` win over `elem`, which types other keys; `atomic` maps are leaves. */
export interface MapAtom {
  readonly kind: "map";
  readonly atomic: boolean;
  readonly fields: Readonly<Record<string, TypeRef>> | undefined;
  /** Type of undeclared keys; undefined = deduced. */
  readonly elem: TypeRef;
  /** True for a schema-less map (every key deduced). */
  readonly deduced: boolean;
}

/** The merge shape of a node. */
export type Atom = ScalarAtom | ListAtom | MapAtom;

const SCALAR: ScalarAtom = { kind: "scalar" };
const DEDUCED_MAP: MapAtom = { kind: "map", atomic: false, fields: undefined, elem: undefined, deduced: true };
const DEDUCED_LIST: ListAtom = { kind: "list", atomic: true, keys: [], elem: undefined, keyDefaults: {} };

// Defaults of list-map key fields that upstream's Go types declare but the
// OpenAPI v2 document does not carry (so `ports` items without `protocol` are
// keyed with "TCP", as a real server does).
const BUILTIN_KEY_DEFAULTS: Readonly<Record<string, Readonly<Record<string, JsonValue>>>> = {
  "io.k8s.api.core.v1.ContainerPort": { protocol: "TCP" },
  "io.k8s.api.core.v1.ServicePort": { protocol: "TCP" },
};

/** Resolves schema nodes into atoms (cached per node). */
export class SchemaContext {
  private readonly cache = new WeakMap<object, Atom | null>();

  constructor(readonly resolver: SchemaResolver) {}

  private lookup(ref: string): { def: SchemaFacts | undefined; name: string } {
    const bare = ref.startsWith("#/definitions/") ? ref.slice("#/definitions/".length) : ref;
    return { def: this.resolver(bare) ?? this.resolver("#/definitions/" + bare), name: bare };
  }

  /** The definition a node refers to (following `$ref`s), with the markers of the referring node on top. */
  private flatten(node: SchemaFacts): { node: SchemaFacts; name: string | undefined } | undefined {
    let cur: SchemaFacts = node;
    let name: string | undefined;
    const overlay: Record<string, unknown> = {};
    for (let depth = 0; cur.$ref !== undefined; depth++) {
      if (depth > 32) return undefined;
      for (const [k, v] of Object.entries(cur)) if (k.startsWith("x-kubernetes-") && !(k in overlay)) overlay[k] = v;
      const r = this.lookup(cur.$ref);
      if (r.def === undefined) return undefined;
      name = r.name;
      cur = r.def;
    }
    if (Object.keys(overlay).length === 0) return { node: cur, name };
    const merged: Record<string, unknown> = { ...cur };
    for (const [k, v] of Object.entries(overlay)) merged[k] = v;
    return { node: merged as SchemaFacts, name };
  }

  /** The atom of a schema node; undefined when the node is absent or says nothing (deduce from the value). */
  atom(t: TypeRef): Atom | undefined {
    if (t === undefined) return undefined;
    const hit = this.cache.get(t);
    if (hit !== undefined) return hit ?? undefined;
    const a = this.compute(t);
    this.cache.set(t, a ?? null);
    return a;
  }

  private compute(t: SchemaFacts): Atom | undefined {
    const flat = this.flatten(t);
    if (flat === undefined) return undefined;
    const n = flat.node;
    if (n["x-kubernetes-int-or-string"]) return SCALAR;
    if (n.type === "array" || n.items !== undefined) {
      let listType = n["x-kubernetes-list-type"];
      let keys: readonly string[] = [];
      if (listType === undefined) {
        const strategies = (n["x-kubernetes-patch-strategy"] ?? "").split(",").map((s) => s.trim());
        if (strategies.includes("merge")) {
          const mk = n["x-kubernetes-patch-merge-key"];
          listType = mk !== undefined && mk !== "" ? "map" : "set";
          if (mk !== undefined && mk !== "") keys = [mk];
        }
      } else if (listType === "map") {
        keys = n["x-kubernetes-list-map-keys"] ?? [];
      }
      const elem = n.items;
      let keyDefaults: Record<string, JsonValue> = {};
      if (listType === "map" && elem !== undefined) {
        const ef = this.flatten(elem);
        if (ef !== undefined) {
          if (ef.name !== undefined && BUILTIN_KEY_DEFAULTS[ef.name]) keyDefaults = { ...BUILTIN_KEY_DEFAULTS[ef.name] };
          for (const k of keys) {
            const d = ef.node.properties?.[k]?.default;
            if (d !== undefined) keyDefaults[k] = d as JsonValue;
          }
        }
      }
      return {
        kind: "list",
        atomic: listType === undefined || listType === "atomic",
        keys: listType === "map" ? keys : [],
        elem,
        keyDefaults,
      };
    }
    const hasProps = n.properties !== undefined && Object.keys(n.properties).length > 0;
    const addl = n.additionalProperties;
    const atomic = n["x-kubernetes-map-type"] === "atomic";
    if (n.type === "object" || hasProps || addl !== undefined) {
      if (!hasProps && (addl === undefined || addl === true || addl === false)) {
        // Free-form object: deduced, unless declared atomic.
        return atomic ? { ...DEDUCED_MAP, atomic: true } : n["x-kubernetes-preserve-unknown-fields"] || addl === true || n.type === "object" ? DEDUCED_MAP : undefined;
      }
      return {
        kind: "map",
        atomic,
        fields: hasProps ? n.properties : undefined,
        elem: typeof addl === "object" ? addl : undefined,
        deduced: false,
      };
    }
    if (n.type === "string" || n.type === "integer" || n.type === "number" || n.type === "boolean") return SCALAR;
    return undefined;
  }

  /** The atom to use for a value of type `t` (deduced from the value when the schema says nothing or does not fit). */
  atomFor(t: TypeRef, v: unknown): Atom {
    const a = this.atom(t);
    if (a !== undefined) {
      if (v === undefined || v === null) return a;
      if (a.kind === "map" && isObject(v)) return a;
      if (a.kind === "list" && Array.isArray(v)) return a;
      if (a.kind === "scalar" && !isObject(v) && !Array.isArray(v)) return a;
      // The value does not fit the schema: treat it as a leaf.
      return SCALAR;
    }
    return deducedAtom(v);
  }

  /** The atom of a node without a value at hand (deduced nodes count as deduced maps). */
  atomNoValue(t: TypeRef): Atom {
    return this.atom(t) ?? DEDUCED_MAP;
  }
}

/** The atom of schema-less data. */
export function deducedAtom(v: unknown): Atom {
  if (isObject(v)) return DEDUCED_MAP;
  if (Array.isArray(v)) return DEDUCED_LIST;
  return SCALAR;
}

/** The type of key `key` inside map atom `m`, and whether it is a declared field. */
export function fieldType(m: MapAtom, key: string): { type: TypeRef; declared: boolean } {
  if (m.fields !== undefined && Object.prototype.hasOwnProperty.call(m.fields, key)) return { type: m.fields[key], declared: true };
  return { type: m.elem, declared: false };
}
