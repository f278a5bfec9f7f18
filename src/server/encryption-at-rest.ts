// --encryption-provider-config: the storage of the configured resources is wrapped in a
// transforming storage (storage/encryption/), whatever the backend. With
// --encryption-provider-config-automatic-reload the file is polled (upstream: every minute); a
// valid change applies from the next read or write, an invalid one keeps the current providers
// and is logged, as upstream's reload controller does.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { loadEncryptionConfiguration, type EncryptionTransformers } from "../storage/encryption/config.js";
import { TransformingStorage } from "../storage/encryption/transforming-storage.js";
import type { Storage } from "../storage/interface.js";
import { resourceOfKey } from "../registry/storage-resources.js";
import type { TypeRegistry } from "../registry/type-registry.js";

export interface EncryptionFlags {
  /** --encryption-provider-config: an EncryptionConfiguration file. */
  encryptionProviderConfig?: string;
  /** --encryption-provider-config-automatic-reload. */
  encryptionProviderConfigAutomaticReload?: boolean;
  /** Library-only (tests): how often a reloading configuration file is read (default one minute). */
  encryptionConfigReloadPollMs?: number;
}

export interface EncryptionAtRest {
  storage: Storage;
  /** Reads the file now and applies it when it changed and is valid (tests; the poll does the same). */
  reload(): void;
  stop(): void;
}

const defaultPollMs = 60_000;

export function checkEncryptionFlags(o: EncryptionFlags): void {
  if (!o.encryptionProviderConfig && o.encryptionProviderConfigAutomaticReload) {
    throw new Error("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
  }
}

function readConfig(file: string): { text: string; hash: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`error while parsing file: error while loading file: error reading encryption provider configuration file "${file}": ${(e as Error).message}`);
  }
  return { text, hash: createHash("sha256").update(text).digest("hex") };
}

/** The backend as the store sees it: unchanged without a configuration file. Throws start-up errors in upstream's words. */
export function encryptionAtRest(backend: Storage, o: EncryptionFlags & { log: (msg: string) => void }, types: TypeRegistry): EncryptionAtRest {
  const file = o.encryptionProviderConfig;
  if (!file) return { storage: backend, reload: () => undefined, stop: () => undefined };
  let { text, hash } = readConfig(file);
  let current: EncryptionTransformers = loadEncryptionConfiguration(text, file);
  const resourceOf = resourceOfKey(types);
  const storage = new TransformingStorage(backend, (key) => {
    const gr = resourceOf(key);
    return gr ? current.forResource(gr) : undefined;
  });
  const reload = () => {
    try {
      const next = readConfig(file);
      if (next.hash === hash) return;
      current = loadEncryptionConfiguration(next.text, file);
      ({ text, hash } = next);
      o.log(`kapi: loaded new encryption provider configuration from ${file}`);
    } catch (e) {
      o.log(`kapi: error processing encryption config file ${file}: ${(e as Error).message}`);
    }
  };
  const timer = o.encryptionProviderConfigAutomaticReload ? setInterval(reload, o.encryptionConfigReloadPollMs ?? defaultPollMs) : undefined;
  timer?.unref();
  return { storage, reload, stop: () => clearInterval(timer) };
}
