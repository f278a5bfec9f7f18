// A new version of a cached object shares what did not change with the version before it. The
// watch cache keeps the replaced version in its history for minutes (watches resume from it), so
// every write would otherwise hold two full decoded copies of an object — and a status update, the
// most common write, changes a small part of it. Both versions are read-only once cached, so
// sharing their unchanged parts is safe.

type Json = unknown;

/**
 * Returns `next` with every part deeply equal to the same part of `prev` replaced by prev's (in
 * place: call on a freshly decoded value), or `prev` itself when the two are equal throughout.
 */
export function shareUnchanged(next: Json, prev: Json): Json {
  if (next === prev) return prev;
  // Frozen values are shared already (field sets): never written to.
  if (next === null || prev === null || typeof next !== "object" || typeof prev !== "object" || Object.isFrozen(next)) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return next;
    let same = next.length === prev.length;
    for (let i = 0; i < next.length; i++) {
      if (i >= prev.length) break;
      const s = shareUnchanged(next[i], prev[i]);
      if (s !== prev[i]) same = false;
      else next[i] = s;
    }
    return same ? prev : next;
  }
  if (Array.isArray(prev)) return next;
  const n = next as Record<string, Json>;
  const p = prev as Record<string, Json>;
  const pk = Object.keys(p);
  // Equal only with the same keys in the same order: the shared part is served as it was stored.
  let same = true;
  let i = 0;
  for (const k in n) {
    if (pk[i++] !== k) same = false;
    if (!(k in p)) continue;
    const s = shareUnchanged(n[k], p[k]);
    if (s === p[k]) n[k] = s;
    else same = false;
  }
  return same && i === pk.length ? prev : next;
}
