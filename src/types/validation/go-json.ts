// The error text Go's encoding/json gives for a malformed document (json.Unmarshal), for the
// messages of validators that parse user JSON (docker config secrets).

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

class SyntaxErr extends Error {}

/** Undefined when `text` is valid JSON, else Go's syntax error message. */
export function goJSONSyntaxError(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && " \t\r\n".includes(text[i]!)) i++;
  };
  const eof = () => {
    throw new SyntaxErr("unexpected end of JSON input");
  };
  const bad = (ctx: string) => {
    throw new SyntaxErr(`invalid character ${quoteChar(text[i]!)} ${ctx}`);
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++, i++) {
      if (i >= n) eof();
      if (text[i] !== word[k]) bad(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
  };
  const digits = (ctx: string) => {
    if (i >= n) eof();
    if (!/[0-9]/.test(text[i]!)) bad(ctx);
    while (i < n && /[0-9]/.test(text[i]!)) i++;
  };
  const number = () => {
    if (text[i] === "-") {
      i++;
      if (i >= n) eof();
      if (!/[0-9]/.test(text[i]!)) bad("in numeric literal");
    }
    if (text[i] === "0") i++;
    else digits("in numeric literal");
    if (text[i] === ".") {
      i++;
      digits("after decimal point in numeric literal");
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      digits("in exponent of numeric literal");
    }
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= n) eof();
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        i++;
        if (i >= n) eof();
        if (!'"\\/bfnrtu'.includes(text[i]!)) bad("in string escape code");
        if (text[i] === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= n) eof();
            if (!/[0-9a-fA-F]/.test(text[i]!)) bad("in \\u hexadecimal character escape");
          }
        }
        i++;
        continue;
      }
      if (c < " ") bad("in string literal");
      i++;
    }
  };
  const value = (): void => {
    ws();
    if (i >= n) eof();
    const c = text[i]!;
    if (c === "{") {
      i++;
      ws();
      if (i >= n) eof();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (i >= n) eof();
        if (text[i] !== '"') bad("looking for beginning of object key string");
        string();
        ws();
        if (i >= n) eof();
        if (text[i] !== ":") bad("after object key");
        i++;
        value();
        ws();
        if (i >= n) eof();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        bad("after object key:value pair");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (i >= n) eof();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (i >= n) eof();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        bad("after array element");
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || /[0-9]/.test(c)) return number();
    bad("looking for beginning of value");
  };
  try {
    value();
    ws();
    if (i < n) bad("after top-level value");
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxErr) return e.message;
    throw e;
  }
}

/** json.Unmarshal into map[string]interface{}: syntax errors, then type mismatch. */
export function goUnmarshalMapError(text: string): string | undefined {
  const syntax = goJSONSyntaxError(text);
  if (syntax) return syntax;
  const v = JSON.parse(text);
  if (v === null || (typeof v === "object" && !Array.isArray(v))) return undefined;
  const kind = Array.isArray(v) ? "array" : typeof v === "string" ? "string" : typeof v === "number" ? "number" : "bool";
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
