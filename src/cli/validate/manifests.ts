// The documents of `-f` files and directories, each named by its file and its index there (a
// directory contributes its .yaml, .yml and .json files in name order, as kubectl -f reads one).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KObject } from "../../apimachinery/object.js";

export interface Manifest {
  file: string;
  /** 1-based position of the document in its file (List items: the List's, with `item`). */
  document: number;
  item?: number;
  object?: KObject;
  /** Why the document is not an object (YAML error, not a mapping, no kind or apiVersion). */
  error?: string;
}

const manifestFile = /\.(ya?ml|json)$/i;

/** Expands directories; throws when a path cannot be read. */
export function manifestFiles(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort()) if (manifestFile.test(name) && statSync(join(p, name)).isFile()) out.push(join(p, name));
    } else out.push(p);
  }
  return out;
}

export function readManifests(file: string, text = readFileSync(file, "utf8")): Manifest[] {
  const out: Manifest[] = [];
  let document = 0;
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length === 0 && (doc.contents === null || doc.contents === undefined)) continue; // an empty document
    document++;
    if (doc.errors.length) {
      out.push({ file, document, error: `error parsing YAML: ${doc.errors[0].message.split("\n")[0]}` });
      continue;
    }
    const value: unknown = doc.toJS();
    const shapeError = objectError(value);
    if (shapeError) {
      out.push({ file, document, error: shapeError });
      continue;
    }
    const obj = value as KObject;
    if (/List$/.test(obj.kind ?? "") && Array.isArray((obj as { items?: unknown }).items)) {
      (obj as unknown as { items: unknown[] }).items.forEach((item, i) => {
        const e = objectError(item);
        out.push(e ? { file, document, item: i, error: e } : { file, document, item: i, object: item as KObject });
      });
      continue;
    }
    out.push({ file, document, object: obj });
  }
  return out;
}

function objectError(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not an object";
  const o = v as Record<string, unknown>;
  if (typeof o.apiVersion !== "string" || o.apiVersion === "") return "Object 'apiVersion' is missing";
  if (typeof o.kind !== "string" || o.kind === "") return "Object 'Kind' is missing";
  return undefined;
}
