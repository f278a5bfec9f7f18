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
 * Tries each transformer whose prefix the data starts with, in order (upstream
 * NewPrefixTransformers): the first that reads it wins; several may share a prefix (the same
 * provider twice during a rotation), so a failure moves on to the next. An empty prefix (identity)
 * that refuses is skipped without counting as a failure. Writes use the first.
 */
export function prefixTransformers(noMatch: string, list: readonly PrefixedTransformer[]): ValueTransformer {
  return {
    fromStorage(data, key) {
      const errs: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const { prefix, transformer } = list[i]!;
        if (!data.startsWith(prefix)) continue;
        try {
          const out = transformer.fromStorage(data.slice(prefix.length), key);
          return { data: out.data, stale: out.stale || i !== 0 };
        } catch (e) {
          if (prefix.length === 0) continue;
          errs.push((e as Error).message);
        }
      }
      // Upstream reduces an aggregate of one error to that error, several to "[e1, e2]".
      if (errs.length === 1) throw new TransformError(errs[0]!);
      if (errs.length > 1) throw new TransformError(`[${errs.join(", ")}]`);
      throw new TransformError(noMatch);
    },
    toStorage(data, key) {
      const first = list[0]!;
      return first.prefix + first.transformer.toStorage(data, key);
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
