// Plain JSON values (what JSON.parse gives and what objects are made of): the one object test,
// deep equality and deep copy every layer uses.

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Deep equality as the values' JSON texts would compare: a key whose value is undefined counts
 * as absent (JSON.stringify drops it), an absent key differs from a null one.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let unmatched = 0;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v === undefined) continue;
    if (!Object.prototype.hasOwnProperty.call(y, k) || !deepEqual(v, y[k])) return false;
    unmatched++;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) unmatched--;
  return unmatched === 0;
}

/** A deep copy of a JSON value (objects and arrays copied, everything else shared). */
export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = deepClone(v[k]);
    return out as T;
  }
  return v;
}
