// Go's %q: strconv.Quote of a string, of runes and bytes, of a []string and of one character, as kapi's messages
// quote values byte for byte as upstream's do. The one quoting function: a JSON.stringify stands
// in for %q only where it gives the same text, so nothing else quotes values in messages.

// Made on first use: creating it parses its Unicode classes (~0.4 ms of loading kapi).
let printableRe: RegExp | undefined;

/**
 * strconv.IsPrint of one character: letters, marks, numbers, punctuation, symbols and the ASCII
 * space. Visible ASCII (all of it in those classes) is answered without the Unicode expression,
 * whose first use compiles it (~1.5 ms of a start that quotes one host name in a parse error).
 */
export function isGoPrintable(ch: string): boolean {
  return (ch >= " " && ch <= "~") || (printableRe ??= new RegExp("^[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}]$", "u")).test(ch);
}

/** Go's strconv.Quote / fmt %q of a string. */
export function goQuote(s: string): string {
  return goQuoteRunes(validRunes(s));
}

/** The runes of a string; a lone surrogate reads as U+FFFD, as Go reads invalid UTF-8. */
function* validRunes(s: string): Generator<string> {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    yield cp >= 0xd800 && cp <= 0xdfff ? "\uFFFD" : ch;
  }
}

/**
 * strconv.Quote over what Go ranges over: runes (strings of one code point) and, as numbers,
 * bytes that are not UTF-8 (written `\xNN`), as a CEL bytes literal holds them.
 */
export function goQuoteRunes(runes: Iterable<string | number>): string {
  let out = '"';
  for (const ch of runes) {
    if (typeof ch === "number") {
      out += "\\x" + ch.toString(16).padStart(2, "0");
      continue;
    }
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (isGoPrintable(ch)) {
      out += ch;
    } else if (cp < 0x80) {
      out += "\\x" + cp.toString(16).padStart(2, "0");
    } else if (cp < 0x10000) {
      out += "\\u" + cp.toString(16).padStart(4, "0");
    } else {
      out += "\\U" + cp.toString(16).padStart(8, "0");
    }
  }
  return out + '"';
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(" ")}]`;
}

/** encoding/json's quoteChar: one character of a syntax error, `'x'` (`'\''` for a quote). */
export function goQuoteRune(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  return `'${goQuote(c).slice(1, -1)}'`;
}
