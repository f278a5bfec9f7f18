// A snapshot: every stored object of a server, as a JSON document a test suite can check in.
// This file is the format alone — its shape, reading it back and the checks that need nothing
// but the document; the checks against a server's types are in restore.ts.
//
// Objects are kept in their stored form (no resourceVersion: a restore writes them as new
// revisions, so resourceVersions never go back) under their storage keys, sorted by key.
import { readFileSync } from "node:fs";
import type { KeyValue } from "../storage/interface.js";
import { HarnessInputError } from "./input-error.js";

/** Bumped whenever the shape of a snapshot or of the objects in it changes. */
export const snapshotFormatVersion = 1;
export const snapshotKind = "KapiSnapshot";

export interface SnapshotObject {
  /** The storage key: /registry/<group>/<resource>/[<namespace>/]<name>. */
  key: string;
  /** The object as stored (every field but metadata.resourceVersion). */
  object: StoredObject;
}

export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface Snapshot {
  kind: typeof snapshotKind;
  formatVersion: typeof snapshotFormatVersion;
  /** The kapi that wrote it (information: the format version decides whether it can be read). */
  kapiVersion: string;
  /** The revision it was read at (information: restoring writes new revisions). */
  revision: number;
  objects: SnapshotObject[];
}

/** A snapshot that cannot be restored; the message names the problem and where it is (400 from the control endpoint). */
export class SnapshotError extends HarnessInputError {
  override name = "SnapshotError";
}

/** The snapshot of a storage range read (keys come sorted from every backend). */
export function snapshotOf(items: readonly KeyValue[], revision: number, kapiVersion: string): Snapshot {
  return { kind: snapshotKind, formatVersion: snapshotFormatVersion, kapiVersion, revision, objects: items.map((kv) => ({ key: kv.key, object: JSON.parse(kv.value) as StoredObject })) };
}

/** The bytes each object is stored as (what a restore writes and compares). */
export function storedValue(o: SnapshotObject): string {
  return JSON.stringify(o.object);
}

/** Reads a snapshot file; every problem (missing, not JSON, wrong shape) names the file. */
export function readSnapshotFile(path: string): Snapshot {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new SnapshotError(`snapshot ${path}: cannot be read: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new SnapshotError(`snapshot ${path}: not JSON (the file is corrupted or truncated): ${(e as Error).message}`);
  }
  return checkSnapshot(value, `snapshot ${path}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks the shape of a snapshot document: its kind and format version, and for each object its
 * key and that it decodes to an object whose name and namespace are the key's. Returns it with
 * any metadata.resourceVersion dropped (a hand-edited file may carry one; storage never does).
 */
export function checkSnapshot(value: unknown, what = "snapshot"): Snapshot {
  if (!isRecord(value) || value.kind !== snapshotKind) throw new SnapshotError(`${what}: not a kapi snapshot (kind must be "${snapshotKind}")`);
  if (value.formatVersion !== snapshotFormatVersion) {
    throw new SnapshotError(`${what}: format version ${JSON.stringify(value.formatVersion)} (written by kapi ${String(value.kapiVersion)}) cannot be read: this kapi reads format version ${snapshotFormatVersion}`);
  }
  if (!Array.isArray(value.objects)) throw new SnapshotError(`${what}: "objects" must be a list`);
  const seen = new Set<string>();
  const objects = value.objects.map((item: unknown, i) => {
    const where = `${what}: objects[${i}]`;
    if (!isRecord(item) || typeof item.key !== "string") throw new SnapshotError(`${where}: must be {key, object} with a string key`);
    const { key, object } = item;
    const at = `${where} (${key})`;
    if (!key.startsWith("/registry/")) throw new SnapshotError(`${at}: a storage key starts with /registry/`);
    if (seen.has(key)) throw new SnapshotError(`${at}: the key appears twice`);
    seen.add(key);
    if (!isRecord(object)) throw new SnapshotError(`${at}: the object does not decode: not a JSON object`);
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") throw new SnapshotError(`${at}: the object does not decode: apiVersion and kind must be strings`);
    const meta = object.metadata;
    if (!isRecord(meta) || typeof meta.name !== "string" || meta.name === "") throw new SnapshotError(`${at}: the object does not decode: metadata.name must be a non-empty string`);
    if (!key.endsWith(`/${meta.name}`)) throw new SnapshotError(`${at}: metadata.name ${JSON.stringify(meta.name)} is not the key's name`);
    if (meta.namespace !== undefined && (typeof meta.namespace !== "string" || !key.endsWith(`/${meta.namespace}/${meta.name}`))) {
      throw new SnapshotError(`${at}: metadata.namespace ${JSON.stringify(meta.namespace)} is not the key's namespace`);
    }
    const { resourceVersion: _dropped, ...stored } = meta;
    return { key, object: { ...object, metadata: stored } as StoredObject };
  });
  return {
    kind: snapshotKind,
    formatVersion: snapshotFormatVersion,
    kapiVersion: typeof value.kapiVersion === "string" ? value.kapiVersion : "unknown",
    revision: typeof value.revision === "number" ? value.revision : 0,
    objects,
  };
}
