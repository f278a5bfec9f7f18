// Go's base64 decoders, for the texts kube-apiserver decodes with them. encoding/json takes a string
// for a []byte field with base64.StdEncoding (padding required, line breaks skipped) and fails the
// whole body with "illegal base64 data at input byte N" where the decoder stopped: kube-apiserver
// answers such a Secret or ConfigMap with a 400, and storing it as written would leave an object
// Go clients cannot read. A list's continue token is base64.RawURLEncoding.

/** The usual form: whole quanta, padded, nothing else. */
const canonical = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isAlphabet = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
const isLineBreak = (c: number | undefined) => c === 0x0a || c === 0x0d;

/** Go's error for decoding `text` as standard padded base64, or undefined when it decodes. */
export function goBase64Error(text: string): string | undefined {
  if (canonical.test(text)) return undefined;
  const src = Buffer.from(text, "utf8");
  const corrupt = (at: number) => `illegal base64 data at input byte ${at}`;
  let si = 0;
  // One quantum of four symbols at a time, as base64.Encoding.decodeQuantum reads them.
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return corrupt(si - j); // padding is required
      }
      const c = src[si++]!;
      if (isAlphabet(c)) continue;
      if (isLineBreak(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d /* = */ || j < 2) return corrupt(si - 1);
      if (j === 2) {
        // "==" is wanted: the second one, past any line breaks.
        while (isLineBreak(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (isLineBreak(src[si])) si++;
      return si < src.length ? corrupt(si) : undefined;
    }
  }
  return undefined;
}

const urlSafe = /^[A-Za-z0-9_-]*$/;
const isUrlAlphabet = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;

/**
 * Go's base64.RawURLEncoding.DecodeString (URL alphabet, no padding, line breaks skipped, trailing
 * bits not checked): the bytes, or Go's error ("illegal base64 data at input byte N", N counting
 * the text's UTF-8 bytes). Node's decoder takes both alphabets and padding, and stops at the first
 * character it does not know, so it cannot tell a token Go refuses.
 */
export function goRawUrlBase64Decode(text: string): { bytes: Buffer } | { error: string } {
  if (urlSafe.test(text) && text.length % 4 !== 1) return { bytes: Buffer.from(text, "base64url") };
  const src = Buffer.from(text, "utf8");
  const symbols: number[] = [];
  for (let si = 0; si < src.length; si++) {
    const c = src[si]!;
    if (isLineBreak(c)) continue;
    if (!isUrlAlphabet(c)) return { error: `illegal base64 data at input byte ${si}` };
    symbols.push(si);
  }
  // A last quantum of one symbol holds less than a byte; Go reports it where the input ended.
  if (symbols.length % 4 === 1) return { error: `illegal base64 data at input byte ${src.length - 1}` };
  return { bytes: Buffer.from(symbols.map((i) => String.fromCharCode(src[i]!)).join(""), "base64url") };
}
