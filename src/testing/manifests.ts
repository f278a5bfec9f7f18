// Manifests as fixtures: files and directories of YAML or JSON (several documents per file, and
// `kind: List` documents whose items are the objects) read into the objects to create, each
// remembered with its file and document index so every error can point at it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

export interface ManifestObject {
  /** The file it came from. */
  file: string;
  /** Its document's index in the file (0-based), and its item's in a List. */
  index: number;
  item?: number;
  object: Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };
}

export class ManifestError extends Error {
  override name = "ManifestError";
}

/** "file: document N" (and ", item M" inside a List): where an object was read. */
export function whereOf(m: Pick<ManifestObject, "file" | "index" | "item">): string {
  return `${m.file}: document ${m.index}${m.item !== undefined ? `, item ${m.item}` : ""}`;
}

const manifestExtensions = [".yaml", ".yml", ".json"];

/** The files a path names: itself, or a directory's manifest files in name order (not recursive, as kubectl -f). */
export function manifestFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new ManifestError(`manifests: ${path}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => manifestExtensions.some((ext) => name.endsWith(ext)))
    .sort()
    .map((name) => join(path, name));
}

/** Every object of the files the paths name, in order; an empty document is skipped. */
export function readManifests(paths: readonly string[]): ManifestObject[] {
  return paths.flatMap(manifestFiles).flatMap((file) => parseManifestText(readFileSync(file, "utf8"), file));
}

/** The objects of one file's text (YAML is a superset of JSON, so one parser reads both). */
export function parseManifestText(text: string, file: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  parseAllDocuments(text).forEach((doc, index) => {
    if (doc.errors.length > 0) throw new ManifestError(`manifests: ${whereOf({ file, index })}: not valid YAML or JSON: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    const top = checkObject(value, { file, index });
    if (top.kind.endsWith("List") && Array.isArray(top.items)) {
      top.items.forEach((item: unknown, i) => out.push({ file, index, item: i, object: checkObject(item, { file, index, item: i }) }));
    } else out.push({ file, index, object: top });
  });
  return out;
}

function checkObject(value: unknown, where: Pick<ManifestObject, "file" | "index" | "item">): ManifestObject["object"] {
  const at = `manifests: ${whereOf(where)}`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ManifestError(`${at}: not an object`);
  const o = value as Record<string, unknown>;
  if (typeof o.apiVersion !== "string" || o.apiVersion === "") throw new ManifestError(`${at}: apiVersion is not set`);
  if (typeof o.kind !== "string" || o.kind === "") throw new ManifestError(`${at}: kind is not set`);
  if (o.kind.endsWith("List") && Array.isArray(o.items)) return o as ManifestObject["object"];
  if (typeof o.metadata !== "object" || o.metadata === null || Array.isArray(o.metadata)) throw new ManifestError(`${at}: metadata is not set`);
  return o as ManifestObject["object"];
}
