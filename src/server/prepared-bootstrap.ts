// The bootstrap objects' stored forms kept across starts (src/registry/prepared-creates.ts): a
// start into an empty store writes the forms an earlier start of the same build and configuration
// kept, and keeps the ones it had to compute. Kept per build of the bundle (the code that computed
// them) and per configuration: every option except where the server keeps its files and listens
// (which no bootstrap object's stored form depends on; an object built from them, such as the
// kubernetes Service, differs as an input and is prepared anew), plus the content of the
// admission configuration file. Etcd is left out: its store is shared and may be written by others.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PreparedCreates, type PreparedCreatesData } from "../registry/prepared-creates.js";
import { ReconciledBatches, type ReconciledBatchesData } from "../registry/reconciled-batches.js";
import type { ServerOptions } from "./options.js";
import { ownedCacheDir, readOwned, writeOwned } from "./owned-cache-dir.js";

export interface PreparedBootstrap {
  /** The forms kept so far (none when there is no file, or it cannot be read). */
  load(): PreparedCreates;
  /** Keeps the forms when this start added some. */
  save(forms: PreparedCreates): void;
  /** What restarts' reconciliations found unchanged (src/registry/reconciled-batches.ts); none when unreadable. */
  loadReconciled(): ReconciledBatches;
  /** Keeps it when this start recorded something new. */
  saveReconciled(batches: ReconciledBatches): void;
}

/** Options that say where the server keeps files and listens, not what it stores at start. */
const placeOptions = new Set(["dataDir", "certDir", "securePort", "bindAddress", "writeKubeconfig", "load", "tlsCertFile", "tlsPrivateKeyFile"]);

/** The store of `build`'s forms for these options, or undefined when none is kept. */
export function preparedBootstrapFile(o: ServerOptions & { admissionControlConfigFile?: string }, build: string | undefined, dir = ownedCacheDir()): PreparedBootstrap | undefined {
  if (!build || !dir || (o.storageBackend !== "memory" && o.storageBackend !== "sqlite")) return undefined;
  let configuration: string;
  try {
    const options = JSON.stringify(o, (k, v: unknown) => (typeof v === "function" || placeOptions.has(k) ? undefined : v));
    const admission = o.admissionControlConfigFile ? readFileSync(o.admissionControlConfigFile, "utf8") : "";
    configuration = createHash("sha256").update(`${options}\u0000${admission}`).digest("hex").slice(0, 16);
  } catch {
    return undefined;
  }
  const path = join(dir, `${build}-bootstrap-${configuration}.json`);
  const reconciledPath = join(dir, `${build}-reconciled-${configuration}.json`);
  return {
    load() {
      return new PreparedCreates(readJson<PreparedCreatesData>(path));
    },
    save(forms) {
      if (forms.changed) writeOwned(path, JSON.stringify(forms));
    },
    loadReconciled() {
      return new ReconciledBatches(readJson<ReconciledBatchesData>(reconciledPath));
    },
    saveReconciled(batches) {
      if (batches.changed) writeOwned(reconciledPath, JSON.stringify(batches));
    },
  };
}

/** A kept file's JSON; undefined when there is none or it cannot be read (it is then kept anew). */
function readJson<T>(path: string): T | undefined {
  const text = readOwned(path);
  try {
    return text ? (JSON.parse(text.toString("utf8")) as T) : undefined;
  } catch {
    return undefined;
  }
}
