// The Go declarations behind the OpenAPI definitions of the built-in types: the packages read on
// demand from goDir (<repository>/<package path>/*.go, k8s.io/<repository>/...), named types
// resolved through imports and aliases, and each definition's struct with its JSON fields. The
// fact tables made from Go (enum-facts.mjs, null-facts.mjs) share it. Anything not understood
// stops the generator, naming `label` and where.

import fs from "node:fs";
import path from "node:path";
import { readGoPackage } from "./go-source.mjs";

const K8S = "k8s.io/";

/**
 * goTypes(goDir, definitions, label) → {
 *   packages: Map<dir, package | null>  (every package read so far),
 *   declOf(pkg, named) → { pkg, decl } | { external: "pkg.Name" } | undefined (predeclared),
 *   jsonFields(pkg, struct) → [{ name, type, pkg, opts: string[] }]  (inline structs flattened),
 *   structs: [{ def, pkg, struct }]  (the definitions that are Go structs with properties),
 * }
 */
export function goTypes(goDir, definitions, label) {
  const packages = new Map();
  const pkgAt = (dir) => {
    let p = packages.get(dir);
    if (p === undefined) {
      const full = path.join(goDir, dir);
      p = fs.existsSync(full) ? readGoPackage(full) : null;
      packages.set(dir, p);
    }
    return p;
  };
  /** The package directory a qualified name (`pkg.Name`) of `pkg` names, or undefined when not a Kubernetes one. */
  const importedDir = (pkg, qualified) => {
    const importPath = pkg.importsByFile.get(qualified.file)?.get(qualified.pkg);
    if (importPath === undefined) throw new Error(`${pkg.dir}/${qualified.file}: unknown package ${qualified.pkg}`);
    return importPath.startsWith(K8S) ? importPath.slice(K8S.length) : undefined;
  };
  const requirePkg = (dir, why) => {
    const p = pkgAt(dir);
    if (!p) throw new Error(`${label}: ${why} needs the Go package ${K8S}${dir} under ${goDir}`);
    return p;
  };

  /** A named type's declaration, Go aliases (`type A = B`) followed (`onAlias` sees each one). */
  const declOf = (pkg, named, onAlias, seen = []) => {
    if (!named.pkg && !pkg.types.has(named.name)) return undefined; // predeclared (string, int32, ...)
    let target = pkg;
    if (named.pkg) {
      const dir = importedDir(pkg, named);
      if (dir === undefined) return { external: `${named.pkg}.${named.name}` };
      target = requirePkg(dir, `${pkg.dir}: ${named.pkg}.${named.name}`);
    }
    const decl = target.types.get(named.name);
    if (!decl) throw new Error(`${label}: ${target.dir} declares no type ${named.name}`);
    if (decl.alias && decl.expr.kind === "named") {
      if (seen.length > 8) throw new Error(`${label}: alias chain at ${target.dir}.${named.name}`);
      const resolved = declOf(target, decl.expr, onAlias, [...seen, named.name]);
      onAlias?.(target, decl, resolved);
      if (resolved) return resolved;
    }
    return { pkg: target, decl };
  };

  /** The struct's fields as JSON properties, embedded `,inline` structs flattened. */
  const jsonFields = (pkg, struct, out = []) => {
    for (const f of struct.fields) {
      const tag = /(?:^|\s)json:"([^"]*)"/.exec(f.tag)?.[1];
      const [jsonName = "", ...opts] = tag === undefined ? [] : tag.split(",");
      if (jsonName === "-") continue;
      if (opts.includes("inline")) {
        const named = f.type.kind === "pointer" ? f.type.elem : f.type;
        const found = named.kind === "named" ? declOf(pkg, named) : undefined;
        if (!found?.decl || found.decl.expr.kind !== "struct") throw new Error(`${label}: ${pkg.dir}: inline field of a non-struct type`);
        jsonFields(found.pkg, found.decl.expr, out);
        continue;
      }
      const name = jsonName || f.name || (f.type.kind === "pointer" ? f.type.elem : f.type).name;
      out.push({ name, type: f.type, pkg, opts });
    }
    return out;
  };

  // Read every definition's package first (enum-facts needs their constants).
  const structs = [];
  for (const def of Object.keys(definitions).sort()) {
    const m = /^io\.k8s\.(.+)\.([A-Za-z0-9]+)$/.exec(def);
    if (!m) continue;
    const dir = m[1].replace(/\./g, "/");
    const pkg = requirePkg(dir, `definition ${def}`);
    const found = pkg.types.has(m[2]) ? declOf(pkg, { name: m[2] }) : undefined;
    if (!found?.decl) throw new Error(`${label}: no Go type for definition ${def} in ${dir}`);
    if (found.decl.expr.kind === "struct" && definitions[def].properties) structs.push({ def, pkg: found.pkg, struct: found.decl.expr });
  }
  return { packages, pkgAt, importedDir, declOf, jsonFields, structs };
}
