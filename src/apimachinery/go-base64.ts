// Whether Go's encoding/json takes a string for a []byte field: it decodes it with
// base64.StdEncoding (padding required, line breaks skipped) and fails the whole body with
// "illegal base64 data at input byte N" where the decoder stopped. kube-apiserver answers such a
// Secret or ConfigMap with a 400; storing it as written would leave an object Go clients cannot read.

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
