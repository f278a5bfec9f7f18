// Runtime CEL values. Plain JS where it is unambiguous — null, boolean, int as bigint, double as
// number, string, bytes as Uint8Array, list as a JS array — and small classes for the rest:
// uint, map (keys of several kinds, numeric keys equal across int/uint/double), timestamp,
// duration, optional, type values, and opaque library values (Quantity, IP, URL, …).
import type { CelType, OpaqueType } from "./types.js";

export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | readonly CelValue[]
  | CelUint
  | CelMap
  | CelTimestamp
  | CelDuration
  | CelOptional
  | CelTypeValue
  | CelOpaque;

export class CelUint {
  constructor(readonly value: bigint) {}
}

/** An instant: nanoseconds since the Unix epoch (UTC). Range as CEL's: years 0001–9999. */
export class CelTimestamp {
  constructor(readonly nanos: bigint) {}
}

/** A signed span in nanoseconds. Range as CEL's: about ±10,000 years (±315,576,000,000 s). */
export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

export class CelOptional {
  private constructor(
    readonly hasValue: boolean,
    readonly value: CelValue,
  ) {}
  static readonly none = new CelOptional(false, null);
  static of(value: CelValue): CelOptional {
    return new CelOptional(true, value);
  }
}

/** A type as a value: what `type(x)`, `int`, `string`, … evaluate to. */
export class CelTypeValue {
  constructor(readonly type: CelType) {}
}

/** A library value known by its type name (kubernetes.Quantity, net.IP, net.CIDR, net.URL, …). */
export interface CelOpaque {
  readonly celType: OpaqueType;
  /** CEL `==` between two values of this type. */
  equals(other: CelOpaque): boolean;
}

export type MapKey = string | bigint | boolean | CelUint;
type StoredKey = string | bigint | boolean;

/**
 * A CEL map. Keys are string, int, uint or bool; int and uint keys with the same number are the
 * same key (CEL's heterogeneous equality), and a double with an integral value finds them too.
 */
export class CelMap {
  private readonly entriesByKey = new Map<StoredKey, CelValue>();
  private uintKeys?: Set<bigint>;

  /** From a string-keyed record (JSON objects after conversion): the common, fast case. */
  static fromRecord(record: Readonly<Record<string, CelValue>>): CelMap {
    const m = new CelMap();
    for (const k of Object.keys(record)) m.entriesByKey.set(k, record[k]!);
    return m;
  }

  static fromEntries(entries: Iterable<readonly [MapKey, CelValue]>): CelMap {
    const m = new CelMap();
    for (const [k, v] of entries) m.set(k, v);
    return m;
  }

  get size(): number {
    return this.entriesByKey.size;
  }

  /** Adds or replaces; only while building a map (CEL maps are immutable once made). */
  set(key: MapKey, value: CelValue): void {
    if (key instanceof CelUint) {
      (this.uintKeys ??= new Set()).add(key.value);
      this.entriesByKey.set(key.value, value);
    } else this.entriesByKey.set(key, value);
  }

  /** The value under `key`, or undefined; a key of a kind no map can hold finds nothing. */
  get(key: CelValue): CelValue | undefined {
    const stored = storedKey(key);
    return stored === undefined ? undefined : this.entriesByKey.get(stored);
  }

  has(key: CelValue): boolean {
    const stored = storedKey(key);
    return stored !== undefined && this.entriesByKey.has(stored);
  }

  *keys(): IterableIterator<MapKey> {
    for (const k of this.entriesByKey.keys()) yield this.restore(k);
  }

  *entries(): IterableIterator<[MapKey, CelValue]> {
    for (const [k, v] of this.entriesByKey) yield [this.restore(k), v];
  }

  private restore(k: StoredKey): MapKey {
    return typeof k === "bigint" && this.uintKeys?.has(k) ? new CelUint(k) : k;
  }
}

function storedKey(key: CelValue): StoredKey | undefined {
  switch (typeof key) {
    case "string":
    case "bigint":
    case "boolean":
      return key;
    case "number":
      return Number.isInteger(key) ? BigInt(key) : undefined;
  }
  if (key instanceof CelUint) return key.value;
  return undefined;
}

/**
 * A CEL evaluation error (no such overload, division by zero, overflow, no such key, cost limit
 * exceeded, …). Thrown by the interpreter and library functions; `message` is upstream's text.
 */
export class CelEvalError extends Error {
  override readonly name = "CelEvalError";
  /** What the evaluation had cost when it failed (set by the interpreter), for budget accounting. */
  declare cost?: number;
}

/**
 * A constructed message (`Object.spec{replicas: 3}`, `JSONPatch{op: "add", ...}`): a string-keyed
 * map of its set fields that remembers the type name it was constructed as.
 */
export class CelObject extends CelMap {
  constructor(readonly typeName: string) {
    super();
  }
}

