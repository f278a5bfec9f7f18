// JSON request bodies. JSON.parse keeps the last of duplicate keys silently; field validation
// must see them, so a small scanner reports their paths (only when asked: it costs a pass).
import { DecodeError } from "./decode-error.js";

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DecodeError((e as Error).message);
  }
}

/**
 * Paths of duplicated object keys, in upstream's notation (`spec.replicas`,
 * `spec.containers[0].name`). Assumes `text` is valid JSON (call after JSON.parse succeeded).
 * Runs on every JSON write, so it allocates little: paths are built only for a duplicate.
 * `parsed`, JSON.parse of `text` untouched since, lets most texts skip the scan: a text with no
 * duplicate names exactly as many keys as its parse holds (counted natively: about half the scan's
 * time for a pod).
 */
export function duplicateJsonKeys(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && keysInText(text) === keysIn(parsed)) return [];
  const dups: string[] = [];
  const path: (string | number)[] = [];
  const n = text.length;
  let i = 0;
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  };
  const str = (): string => {
    const start = ++i; // past the opening quote
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i += 2;
      } else if (c === 34 || i >= n) break;
      else i++;
    }
    const raw = text.slice(start, i++);
    return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
  };
  const render = (last: string) => {
    let out = "";
    for (const seg of path) out += typeof seg === "number" ? `[${seg}]` : out ? `.${seg}` : seg;
    return out ? `${out}.${last}` : last;
  };
  const value = (): void => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 123 /* { */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 125) {
        i++;
        return;
      }
      let seen: Set<string> | undefined;
      let first: string | undefined;
      for (;;) {
        ws();
        const key = str();
        // Most objects have few keys; a Set is made only from the second key on.
        if (first === undefined) first = key;
        else {
          if (!seen) seen = new Set([first]);
          if (seen.has(key)) dups.push(render(key));
          seen.add(key);
        }
        ws();
        i++; // ':'
        path.push(key);
        value();
        path.pop();
        ws();
        if (text.charCodeAt(i) === 44 /* , */) {
          i++;
          continue;
        }
        i++; // '}'
        return;
      }
    } else if (c === 91 /* [ */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 93) {
        i++;
        return;
      }
      for (let idx = 0; ; idx++) {
        path.push(idx);
        value();
        path.pop();
        ws();
        if (text.charCodeAt(i) === 44) {
          i++;
          continue;
        }
        i++; // ']'
        return;
      }
    } else if (c === 34 /* " */) {
      str();
    } else {
      // number, true, false, null
      for (let d = text.charCodeAt(i); i < n && d !== 44 && d !== 125 && d !== 93 && d !== 32 && d !== 10 && d !== 13 && d !== 9; d = text.charCodeAt(++i));
    }
  };
  value();
  return dups;
}

/** Every string of a JSON text, escapes included: once they are gone, no colon is left but those after keys. */
const jsonStrings = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/** How many object keys a valid JSON text names (duplicates each counted). */
function keysInText(text: string): number {
  const bare = text.replace(jsonStrings, "");
  let n = 0;
  for (let i = bare.indexOf(":"); i !== -1; i = bare.indexOf(":", i + 1)) n++;
  return n;
}

/** How many keys the objects of a parsed JSON value hold. */
function keysIn(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += keysIn(v[i]);
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) n += 1 + keysIn(o[k]);
  return n;
}
