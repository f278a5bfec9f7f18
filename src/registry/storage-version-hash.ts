// storageVersionHash of legacy discovery: lets clients (the storage version migrator, GC) notice
// when the version a resource is persisted in changes. Upstream hashes "<group>/<version>/<kind>"
// of the *storage* version with SHA-256 and keeps the first 8 bytes, base64 (standard alphabet,
// padded) — so every served version of one group-resource reports the same value. Each type
// declares its hash (built-ins from their storage facts, custom resources from their storage
// version); discovery only prints it.
import { createHash } from "node:crypto";

export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}
