// What a JSON null becomes in the built-in types, from the Go declarations: upstream decodes a
// body into its Go struct (a null leaves a field at its zero value) and encodes that struct
// again, so what it stores and serves for `"field": null` is the field's zero value as Go's
// encoder writes it. Only the answers that differ from keeping the null are listed:
//   "omit"        a nil pointer, slice, map or zero scalar under `omitempty`, or a zero
//                 metav1.Time under `omitzero` (ObjectMeta.creationTimestamp since 1.33);
//   { zero: v }   a scalar without `omitempty` (its zero value), or a struct held by value (its
//                 zero value encoded: its fields' zero values, `omitempty` ones left out).
// Kept as null (not listed): nil pointers, slices and maps without `omitempty`, a zero metav1.Time
// or MicroTime (their encoder writes null), and every type with an encoder of its own
// (IntOrString, Quantity, RawExtension, ...), whose zero form is not derived here.
//
// nullOverlay(goDir, definitions) → { [definition]: { properties: { [json name]: "omit" | { zero: value } } } }

import fs from "node:fs";
import path from "node:path";
import { goTypes } from "./go-types.mjs";

/** Types whose encoder writes null for their zero value. */
const nullWhenZero = new Set(["apimachinery/pkg/apis/meta/v1.Time", "apimachinery/pkg/apis/meta/v1.MicroTime"]);
const scalarZero = new Map([
  ["string", ""],
  ["bool", false],
  ...["int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "byte", "rune"].map((t) => [t, 0]),
]);

export function nullOverlay(goDir, definitions) {
  const { declOf, jsonFields, structs } = goTypes(goDir, definitions, "null facts");
  /** Per package (its directory): the types with a MarshalJSON method of their own. */
  const marshalers = new Map();
  const hasOwnEncoder = (pkg, name) => {
    let names = marshalers.get(pkg.dir);
    if (!names) {
      names = new Set();
      for (const f of fs.readdirSync(pkg.dir)) {
        if (!f.endsWith(".go") || f.endsWith("_test.go")) continue;
        for (const m of fs.readFileSync(path.join(pkg.dir, f), "utf8").matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(\)/gm)) names.add(m[1]);
      }
      marshalers.set(pkg.dir, names);
    }
    return names.has(name);
  };

  /** What a Go type is for encoding its zero value. */
  const shape = (pkg, expr, depth = 0) => {
    if (depth > 16) throw new Error(`null facts: type nesting too deep in ${pkg.dir}`);
    if (expr.kind === "pointer" || expr.kind === "slice" || expr.kind === "map" || expr.kind === "other") return { kind: "nilable" };
    if (expr.kind === "struct") return { kind: "struct", pkg, struct: expr };
    if (expr.kind !== "named") throw new Error(`null facts: ${pkg.dir}: unexpected type ${expr.kind}`);
    const found = declOf(pkg, expr);
    if (found === undefined) {
      if (!scalarZero.has(expr.name)) throw new Error(`null facts: ${pkg.dir}: unknown predeclared type ${expr.name}`);
      return { kind: "scalar", zero: scalarZero.get(expr.name) };
    }
    if (found.external) return { kind: "own" };
    const key = `${path.relative(goDir, found.pkg.dir)}.${found.decl.name}`;
    if (nullWhenZero.has(key)) return { kind: "time" };
    if (hasOwnEncoder(found.pkg, found.decl.name)) return { kind: "own" };
    return shape(found.pkg, found.decl.expr, depth + 1);
  };

  /** The zero value of a struct as Go encodes it, or undefined when a field's encoding is its type's own. */
  const zeroOf = (pkg, struct) => {
    const out = {};
    for (const f of jsonFields(pkg, struct)) {
      const s = shape(f.pkg, f.type);
      const omitempty = f.opts.includes("omitempty");
      if (f.opts.includes("omitzero")) continue;
      if (s.kind === "own") return undefined;
      if (s.kind === "nilable") {
        if (!omitempty) out[f.name] = null;
      } else if (s.kind === "scalar") {
        if (!omitempty) out[f.name] = s.zero;
      } else if (s.kind === "time") {
        out[f.name] = null;
      } else {
        const inner = zeroOf(s.pkg, s.struct);
        if (inner === undefined) return undefined;
        out[f.name] = inner;
      }
    }
    return out;
  };

  const overlay = {};
  for (const { def, pkg, struct } of structs) {
    for (const f of jsonFields(pkg, struct)) {
      if (!definitions[def].properties[f.name]) continue; // not served (the OpenAPI document leaves it out)
      const s = shape(f.pkg, f.type);
      const omitempty = f.opts.includes("omitempty");
      let rule;
      if (s.kind === "nilable") rule = omitempty ? "omit" : undefined;
      else if (s.kind === "scalar") rule = omitempty ? "omit" : { zero: s.zero };
      else if (s.kind === "time") rule = f.opts.includes("omitzero") ? "omit" : undefined;
      else if (s.kind === "struct") {
        const zero = zeroOf(s.pkg, s.struct);
        rule = zero === undefined ? undefined : { zero };
      }
      if (rule !== undefined) ((overlay[def] ??= { properties: {} }).properties[f.name] = rule);
    }
  }
  return overlay;
}
