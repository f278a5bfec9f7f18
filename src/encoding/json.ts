// JSON request bodies. JSON.parse keeps the last of duplicate keys silently; field validation
// must see them, so a small scanner reports their paths (only when asked: it costs a pass).
import { DecodeError } from "./decode-error.js";
import { goJsonSyntaxError, mayNestTooDeep } from "../apimachinery/go-json-syntax.js";

/** A JSON body (its bytes, or its text) parsed; what Go's decoder would refuse throws JsonSyntaxError. */
export function parseJson(body: Buffer | string): unknown {
  const text = typeof body === "string" ? body : body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JsonSyntaxError(goVerdict(body) ?? (e as Error).message);
  }
  // JSON.parse takes any depth; Go refuses past 10,000 levels, and so does the server.
  if (mayNestTooDeep(text)) {
    const refused = goVerdict(body);
    if (refused !== undefined) throw new JsonSyntaxError(refused);
  }
  return value;
}

/** Go's scanner's verdict on the body's bytes (asked only when JSON.parse refused it or it may nest too deep). */
function goVerdict(body: Buffer | string): string | undefined {
  return goJsonSyntaxError(typeof body === "string" ? Buffer.from(body) : body);
}

/** A body that is not JSON, or nested deeper than Go allows, in the words of Go's scanner. */
export class JsonSyntaxError extends DecodeError {}

/** What one open object of the scanned text has named so far (a Set only from its second key on). */
interface NamedKeys {
  first: string | undefined;
  seen: Set<string> | undefined;
}

/**
 * Paths of duplicated object keys, in upstream's notation (`spec.replicas`,
 * `spec.containers[0].name`). Assumes `text` is valid JSON (call after JSON.parse succeeded).
 * Runs on every JSON write, so it allocates little: paths are built only for a duplicate.
 * `parsed`, JSON.parse of `text` untouched since, lets most texts skip the scan: a text with no
 * duplicate names exactly as many keys as its parse holds (counted natively: about half the scan's
 * time for a pod). Neither walk recurses: a body may nest as deep as Go allows.
 */
export function duplicateJsonKeys(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && keysInText(text) === keysIn(parsed)) return [];
  const dups: string[] = [];
  /** The key or index of each open member, outermost first. */
  const path: (string | number)[] = [];
  /** Each open container: an object's keys so far, or undefined for an array. */
  const open: (NamedKeys | undefined)[] = [];
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
  /** Reads an object member's key and colon; its value comes next. */
  const member = (keys: NamedKeys) => {
    ws();
    const key = str();
    if (keys.first === undefined) keys.first = key;
    else {
      keys.seen ??= new Set([keys.first]);
      if (keys.seen.has(key)) dups.push(render(key));
      keys.seen.add(key);
    }
    ws();
    i++; // ':'
    path.push(key);
  };
  for (;;) {
    // A value starts here.
    ws();
    const c = text.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      i++;
      ws();
      if (text.charCodeAt(i) !== c + 2 /* } or ] */) {
        if (c === 123) {
          const keys: NamedKeys = { first: undefined, seen: undefined };
          open.push(keys);
          member(keys);
        } else {
          open.push(undefined);
          path.push(0);
        }
        continue;
      }
      i++; // empty
    } else if (c === 34 /* " */) {
      str();
    } else {
      // number, true, false, null
      for (let d = text.charCodeAt(i); i < n && d !== 44 && d !== 125 && d !== 93 && d !== 32 && d !== 10 && d !== 13 && d !== 9; d = text.charCodeAt(++i));
    }
    // A value ended: close what ends with it, up to the next member.
    for (;;) {
      if (open.length === 0) return dups;
      ws();
      const keys = open[open.length - 1];
      if (text.charCodeAt(i) === 44 /* , */) {
        i++;
        if (keys) {
          path.pop();
          member(keys);
        } else path.push((path.pop() as number) + 1);
        break;
      }
      i++; // '}' or ']'
      path.pop();
      open.pop();
    }
  }
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
function keysIn(root: unknown): number {
  let n = 0;
  const pending: object[] = [];
  let v: unknown = root;
  for (;;) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item !== null && typeof item === "object") pending.push(item);
      }
    } else if (v !== null && typeof v === "object") {
      const o = v as Record<string, unknown>;
      for (const k in o) {
        n++;
        const item = o[k];
        if (item !== null && typeof item === "object") pending.push(item);
      }
    }
    if (pending.length === 0) return n;
    v = pending.pop();
  }
}
