// --encryption-provider-config: the storage of the configured resources is wrapped in a
// transforming storage (storage/encryption/), whatever the backend. With
// --encryption-provider-config-automatic-reload the file is polled (upstream: every minute); a
// valid change applies from the next read or write, an invalid one keeps the current providers
// and is logged, as upstream's reload controller does.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { loadEncryptionConfiguration, type EncryptionTransformers } from "../storage/encryption/config.js";
import { TransformingStorage } from "../storage/encryption/transforming-storage.js";
import type { TransformationRecorder } from "../storage/encryption/transformer.js";
import type { Storage } from "../storage/interface.js";
import type { GroupResource } from "../apimachinery/errors.js";
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

/** Hears each transformation of a value of a resource ("resource.group"; "resource" for the core group). */
export type TransformationObserver = (resource: string, type: string, prefix: string, seconds: number, failed: boolean) => void;

export interface EncryptionAtRest {
  /** The backend as the store sees it: unchanged without a configuration file. */
  wrap(backend: Storage, types: TypeRegistry): Storage;
  /** Ends the polling of a reloading configuration file. */
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

/**
 * Reads and checks the configuration file before any storage opens (a bad one refuses the start,
 * in upstream's words); the backend is wrapped once it is open.
 */
export function encryptionAtRest(o: EncryptionFlags & { log: (msg: string) => void }, observe?: TransformationObserver): EncryptionAtRest {
  const file = o.encryptionProviderConfig;
  if (!file) return { wrap: (backend) => backend, stop: () => undefined };
  // The keys' resources are known once the types are (wrap); no value is read before.
  let resourceOf: ((key: string) => GroupResource | undefined) | undefined;
  const record: TransformationRecorder | undefined = observe && ((type, prefix, key, seconds, error) => {
    const gr = resourceOf?.(key);
    observe(gr ? (gr.group ? `${gr.resource}.${gr.group}` : gr.resource) : "", type, prefix, seconds, error !== undefined);
  });
  const first = readConfig(file);
  let hash = first.hash;
  let current: EncryptionTransformers = loadEncryptionConfiguration(first.text, file, record);
  const reload = () => {
    try {
      const next = readConfig(file);
      if (next.hash === hash) return;
      current = loadEncryptionConfiguration(next.text, file, record);
      hash = next.hash;
      o.log(`kapi: loaded new encryption provider configuration from ${file}`);
    } catch (e) {
      o.log(`kapi: error processing encryption config file ${file}: ${(e as Error).message}`);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    wrap(backend, types) {
      const keyResource = resourceOfKey(types);
      resourceOf = keyResource;
      if (o.encryptionProviderConfigAutomaticReload) {
        timer = setInterval(reload, o.encryptionConfigReloadPollMs ?? defaultPollMs);
        timer.unref();
      }
      return new TransformingStorage(backend, (key) => {
        const gr = keyResource(key);
        return gr ? current.forResource(gr) : undefined;
      });
    },
    stop: () => clearInterval(timer),
  };
}
