// String and bytes literal decoding as cel-go's parser/unescape.go does it: newlines normalised
// to \n, raw literals taken as written, escapes \a \b \f \n \r \t \v \\ \' \" \` \? \xHH \ooo
// (code points in strings, bytes in bytes literals), \uHHHH and \UHHHHHHHH (strings only).

export class UnescapeError extends Error {}

const simpleEscapes: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  "\\": 92,
  "'": 39,
  '"': 34,
  "`": 96,
  "?": 63,
};

const encoder = new TextEncoder();

function hexValue(s: string, from: number, n: number): number {
  if (from + n > s.length) throw new UnescapeError("unable to unescape string");
  let v = 0;
  for (let k = from; k < from + n; k++) {
    const d = parseInt(s[k]!, 16);
    if (Number.isNaN(d)) throw new UnescapeError("unable to unescape string");
    v = v * 16 + d;
  }
  return v;
}

function validRune(v: number): boolean {
  return v >= 0 && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff);
}

/** The literal's body (quotes and raw prefix removed, newlines normalised), and whether it is raw. */
function body(token: string): { text: string; raw: boolean } {
  let value = token.replace(/\r\n?/g, "\n");
  let raw = false;
  if (value[0] === "r" || value[0] === "R") {
    value = value.slice(1);
    raw = true;
  }
  const n = value.length;
  if (n < 2 || value[0] !== value[n - 1] || (value[0] !== '"' && value[0] !== "'")) {
    throw new UnescapeError("unable to unescape string");
  }
  if (n >= 6 && (value.startsWith("'''") || value.startsWith('"""'))) {
    return { text: value.slice(3, n - 3), raw };
  }
  return { text: value.slice(1, n - 1), raw };
}

/** Decodes a string literal token (`"…"`, `'…'`, triple-quoted, `r"…"`). */
export function unescapeString(token: string): string {
  const { text, raw } = body(token);
  if (raw || !text.includes("\\")) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    const bs = text.indexOf("\\", i);
    if (bs < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, bs);
    if (bs + 1 >= text.length) throw new UnescapeError("unable to unescape string, found '\\' as last character");
    const c = text[bs + 1]!;
    i = bs + 2;
    const simple = simpleEscapes[c];
    if (simple !== undefined) {
      out += String.fromCharCode(simple);
      continue;
    }
    let v: number;
    if (c === "x" || c === "X") {
      v = hexValue(text, i, 2);
      i += 2;
    } else if (c === "u") {
      v = hexValue(text, i, 4);
      i += 4;
    } else if (c === "U") {
      v = hexValue(text, i, 8);
      i += 8;
    } else if (c >= "0" && c <= "3") {
      v = octal(text, c, i);
      i += 2;
    } else throw new UnescapeError("unable to unescape string");
    if (!validRune(v)) throw new UnescapeError("invalid unicode code point");
    out += String.fromCodePoint(v);
  }
  return out;
}

function octal(text: string, first: string, i: number): number {
  if (i + 2 > text.length) throw new UnescapeError("unable to unescape octal sequence in string");
  let v = first.charCodeAt(0) - 48;
  for (let k = i; k < i + 2; k++) {
    const d = text.charCodeAt(k) - 48;
    if (d < 0 || d > 7) throw new UnescapeError("unable to unescape octal sequence in string");
    v = v * 8 + d;
  }
  return v;
}

/** Decodes a bytes literal token without its `b` prefix: characters as UTF-8, \x and octal as bytes. */
export function unescapeBytes(token: string): Uint8Array {
  const { text, raw } = body(token);
  if (raw || !text.includes("\\")) return encoder.encode(text);
  const out: number[] = [];
  let i = 0;
  const appendText = (s: string) => {
    for (const b of encoder.encode(s)) out.push(b);
  };
  while (i < text.length) {
    const bs = text.indexOf("\\", i);
    if (bs < 0) {
      appendText(text.slice(i));
      break;
    }
    appendText(text.slice(i, bs));
    if (bs + 1 >= text.length) throw new UnescapeError("unable to unescape string, found '\\' as last character");
    const c = text[bs + 1]!;
    i = bs + 2;
    const simple = simpleEscapes[c];
    if (simple !== undefined) out.push(simple);
    else if (c === "x" || c === "X") {
      out.push(hexValue(text, i, 2));
      i += 2;
    } else if (c >= "0" && c <= "3") {
      out.push(octal(text, c, i));
      i += 2;
    } else throw new UnescapeError("unable to unescape string");
  }
  return Uint8Array.from(out);
}
