// Value transformers: what stands between an object's stored JSON and the value a backend keeps
// (upstream k8s.io/apiserver/pkg/storage/value). Values are text, as every backend keeps them: a
// provider's prefix (`k8s:enc:aescbc:v1:<key name>:`) is followed by the base64 of upstream's
// byte layout, so no backend has to hold arbitrary bytes. A transformer may refuse a value; a read
// through any provider but the first is "stale", so the next write stores it again under the
// first provider even when nothing else changed (how a rotation rewrites every object).

/** The outcome of reading one stored value. */
export interface FromStorage {
  data: string;
  /** Read through a provider or key that is not the one writes use now. */
  stale: boolean;
}

export interface ValueTransformer {
  /** `key` is the storage key, bound into authenticated ciphers so a value cannot be moved to another key. */
  fromStorage(data: string, key: string): FromStorage;
  toStorage(data: string, key: string): string;
}

/** A value no configured provider could read (upstream: the transformer's error). */
export class TransformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransformError";
  }
}

export interface PrefixedTransformer {
  prefix: string;
  transformer: ValueTransformer;
}

/**
 * Hears each transformation a prefix transformer makes (upstream's RecordTransformation): its
 * direction, the prefix of the transformer that made it ("identity" for the empty one, "unknown"
 * when none matched), the storage key, how long it took and the error, if it failed.
 */
export type TransformationRecorder = (type: "from_storage" | "to_storage", prefix: string, key: string, seconds: number, error: unknown) => void;

/**
 * Tries each transformer whose prefix the data starts with, in order (upstream
 * NewPrefixTransformers): the first that reads it wins; several may share a prefix (the same
 * provider twice during a rotation), so a failure moves on to the next. An empty prefix (identity)
 * that refuses is skipped without counting as a failure. Writes use the first.
 */
export function prefixTransformers(noMatch: string, list: readonly PrefixedTransformer[], record?: TransformationRecorder): ValueTransformer {
  return {
    fromStorage(data, key) {
      const start = record && performance.now();
      const errs: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const { prefix, transformer } = list[i]!;
        if (!data.startsWith(prefix)) continue;
        let out: FromStorage;
        try {
          out = transformer.fromStorage(data.slice(prefix.length), key);
        } catch (e) {
          if (prefix.length === 0) continue;
          record?.("from_storage", prefix, key, (performance.now() - start!) / 1000, e);
          errs.push((e as Error).message);
          continue;
        }
        record?.("from_storage", prefix || "identity", key, (performance.now() - start!) / 1000, undefined);
        return { data: out.data, stale: out.stale || i !== 0 };
      }
      // Upstream reduces an aggregate of one error to that error, several to "[e1, e2]".
      if (errs.length === 1) throw new TransformError(errs[0]!);
      if (errs.length > 1) throw new TransformError(`[${errs.join(", ")}]`);
      const err = new TransformError(noMatch);
      record?.("from_storage", "unknown", key, (performance.now() - start!) / 1000, err);
      throw err;
    },
    toStorage(data, key) {
      const first = list[0]!;
      if (!record) return first.prefix + first.transformer.toStorage(data, key);
      const start = performance.now();
      let out: string;
      try {
        out = first.transformer.toStorage(data, key);
      } catch (e) {
        record("to_storage", first.prefix, key, (performance.now() - start) / 1000, e);
        throw e;
      }
      record("to_storage", first.prefix, key, (performance.now() - start) / 1000, undefined);
      return first.prefix + out;
    },
  };
}

/** Plain text, refusing to read what an encrypting provider wrote (upstream NewEncryptCheckTransformer). */
export const identityTransformer: ValueTransformer = {
  fromStorage(data) {
    if (data.startsWith("k8s:enc:")) throw new TransformError("identity transformer tried to read encrypted data");
    return { data, stale: false };
  },
  toStorage: (data) => data,
};
