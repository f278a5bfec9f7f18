// Enum facts of the built-in types, from the Go packages that declare them: a string type whose
// doc comment carries the `+enum` marker is an enumeration, its values are the constants declared
// with that type (any package read), and every struct field of that type — directly, through a
// pointer, or as the element of a slice or map — gets the sorted list as `enum` in the OpenAPI
// definition of the struct. This is the rule upstream's OpenAPI generator applies; we read the
// same markers, never the prose around them.
//
// enumOverlay(goDir, definitions) → { [definition]: { properties: { [json name]: Node } } }
//   Node = { enum: string[] } | { items: Node } | { additionalProperties: Node }
//   goDir holds the packages as <repository>/<package path>/*.go (k8s.io/<repository>/...).
//   Every field put in the overlay is checked against the definition: the property exists and
//   is a string at that place. Anything not understood stops the generator.

import { goTypes } from "./go-types.mjs";

export function enumOverlay(goDir, definitions) {
  const { packages, pkgAt, importedDir, declOf: resolve, jsonFields, structs } = goTypes(goDir, definitions, "enum facts");
  /** A named type's declaration; an alias marked +enum must alias an enumeration. */
  const declOf = (pkg, named) =>
    resolve(pkg, named, (target, decl, resolved) => {
      if (decl.tags.has("enum") && !(resolved?.decl && isEnumDecl(resolved.pkg, resolved.decl))) {
        throw new Error(`enum facts: ${target.dir}.${decl.name} is marked +enum but aliases a type that is not`);
      }
    });
  const isEnumDecl = (pkg, decl) =>
    decl.tags.has("enum") && !decl.alias && decl.expr.kind === "named" && !decl.expr.pkg && decl.expr.name === "string" && !pkg.types.has("string");
  const typeKey = (pkg, decl) => `${pkg.dir}.${decl.name}`;

  /** The enumeration a type expression names (through one pointer, as upstream does), if any. */
  const enumOf = (pkg, expr) => {
    const e = expr.kind === "pointer" ? expr.elem : expr;
    if (e.kind !== "named") return undefined;
    const found = declOf(pkg, e);
    return found?.decl && isEnumDecl(found.pkg, found.decl) ? typeKey(found.pkg, found.decl) : undefined;
  };

  // Every enumeration's values: the constants of its type in every package read so far (made
  // again when a field's type has brought in another package).
  let valuesByType;
  let valuesFromPackages = -1;
  const enumValues = () => {
    if (valuesByType && valuesFromPackages === packages.size) return valuesByType;
    valuesFromPackages = packages.size;
    valuesByType = new Map();
    const constType = (pkg, c, depth = 0) => {
      if (c.type) return c.type.kind === "named" ? declOf(pkg, c.type) : undefined;
      const v = c.value;
      if (!v || depth > 8) return undefined;
      if (v.kind === "convert") return declOf(pkg, v.type);
      if (v.kind === "ref") {
        const [p2, c2] = constRef(pkg, v);
        return c2 ? constType(p2, c2, depth + 1) : undefined;
      }
      return undefined;
    };
    for (const pkg of [...packages.values()].filter(Boolean)) {
      for (const c of pkg.consts.values()) {
        const t = constType(pkg, c);
        if (!t?.decl || !isEnumDecl(t.pkg, t.decl)) continue;
        const value = stringValue(pkg, c.value);
        if (value === undefined) throw new Error(`enum facts: ${pkg.dir}.${c.name} is of enum type ${t.decl.name} but its value is not a string constant`);
        const key = typeKey(t.pkg, t.decl);
        if (!valuesByType.has(key)) valuesByType.set(key, new Set());
        valuesByType.get(key).add(value);
      }
    }
    return valuesByType;
  };
  const constRef = (pkg, ref) => {
    if (!ref.pkg) return [pkg, pkg.consts.get(ref.name)];
    const dir = importedDir(pkg, ref);
    const p2 = dir === undefined ? undefined : pkgAt(dir);
    return [p2, p2?.consts.get(ref.name)];
  };
  const stringValue = (pkg, v, depth = 0) => {
    if (!v || depth > 8) return undefined;
    if (v.kind === "string") return v.value;
    if (v.kind === "convert") return stringValue(pkg, v.arg, depth + 1);
    if (v.kind === "concat") {
      const parts = v.parts.map((x) => stringValue(pkg, x, depth + 1));
      return parts.every((x) => x !== undefined) ? parts.join("") : undefined;
    }
    if (v.kind === "ref") {
      const [p2, c2] = constRef(pkg, v);
      return c2 ? stringValue(p2, c2.value, depth + 1) : undefined;
    }
    return undefined;
  };

  /**
   * Where the enumerations sit in a field's schema: [] for the field itself, ["items"] for a
   * slice's elements, ["additionalProperties"] for a map's values, and deeper for nested ones.
   * Named non-struct types (ResourceList, ...) stand for what they are declared as.
   */
  const placements = (pkg, expr, at, out, depth = 0) => {
    if (depth > 16) throw new Error(`enum facts: type nesting too deep in ${pkg.dir}`);
    const enumType = enumOf(pkg, expr);
    if (enumType) {
      out.push({ at, enumType });
      return;
    }
    const e = expr.kind === "pointer" ? expr.elem : expr;
    if (e.kind === "slice") return placements(pkg, e.elem, [...at, "items"], out, depth + 1);
    if (e.kind === "map") return placements(pkg, e.elem, [...at, "additionalProperties"], out, depth + 1);
    if (e.kind === "named") {
      const found = declOf(pkg, e);
      if (found?.decl && found.decl.expr.kind !== "struct" && found.decl.expr.kind !== "named") {
        placements(found.pkg, found.decl.expr, at, out, depth + 1);
      }
    }
  };

  const overlay = {};
  for (const { def, pkg, struct } of structs) {
    for (const f of jsonFields(pkg, struct)) {
      if (f.opts.includes("string")) continue;
      const found = [];
      placements(f.pkg, f.type, [], found);
      for (const { at, enumType } of found) {
        const values = enumValues().get(enumType);
        if (!values || values.size === 0) continue;
        let node = definitions[def].properties[f.name];
        if (!node) throw new Error(`enum facts: ${def} has no property ${f.name} (Go field of enum type ${enumType})`);
        for (const step of at) node = node?.[step];
        if (!node || node.type !== "string") {
          throw new Error(`enum facts: ${def}.${[f.name, ...at].join(".")} is not a string in the OpenAPI document`);
        }
        let target = ((overlay[def] ??= { properties: {} }).properties[f.name] ??= {});
        for (const step of at) target = target[step] ??= {};
        // upstream sorts the values as quoted Go strings; JSON quoting orders them the same way
        target.enum = [...values].sort((a, b) => cmp(JSON.stringify(a), JSON.stringify(b)));
      }
    }
  }
  return overlay;
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
