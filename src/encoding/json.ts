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
 */
export function duplicateJsonKeys(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const str = (): string => {
    // text[i] === '"'
    const start = ++i;
    let escaped = false;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 34) break;
      i++;
    }
    const raw = text.slice(start, i);
    i++; // closing quote
    return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) dups.push(child);
        seen.add(key);
        ws();
        i++; // ':'
        value(child);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        i++; // '}'
        return;
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let idx = 0; ; idx++) {
        value(`${path}[${idx}]`);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        i++; // ']'
        return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < n && !",}] \n\r\t".includes(text[i])) i++;
    }
  };
  value("");
  return dups;
}
