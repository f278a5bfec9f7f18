// storageVersionHash of legacy discovery: lets clients (the storage version migrator, GC) notice
// when the version a resource is persisted in changes. Upstream hashes "<group>/<version>/<kind>"
// of the *storage* version with SHA-256 and keeps the first 8 bytes, base64 (standard alphabet,
// padded) — so every served version of one group-resource reports the same value. Each type
// declares the version it is stored as; discovery hashes it when it builds its documents (off the
// start-up path, and once per type).
import { createHash } from "node:crypto";
import type { ResourceType } from "../registry/resource-type.js";

export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}

const hashes = new WeakMap<ResourceType, string | null>();

/** The hash discovery reports for a type; undefined for types that store nothing. */
export function storageVersionHashOf(t: ResourceType): string | undefined {
  let h = hashes.get(t);
  if (h === undefined) {
    const s = t.storageVersion;
    hashes.set(t, (h = s ? storageVersionHash(s.group, s.version, s.kind) : null));
  }
  return h ?? undefined;
}
