// Go's encoding/json decoding a JSON text into a flat struct of string and int64 fields, for the
// small structs kube-apiserver reads from values a client hands back (a list's continue token).
// What it decodes and the errors it gives are Go's: fields matched by their JSON name exactly, else
// case-insensitively; unknown members skipped; null leaves a field as it was; the last of
// duplicate members wins; a value of the wrong kind is an UnmarshalTypeError ("json: cannot
// unmarshal string into Go struct field continueToken.rv of type int64"), the first one reported
// once the whole text is read. goDecodeStruct reads a text Go's scanner accepts (go-json-syntax.ts)
// without checking it; goUnmarshalStruct checks it first, as json.Unmarshal does.
import { goJsonSyntaxError } from "./go-json-syntax.js";

export interface GoStruct {
  /** The type as Go prints it ("storage.continueToken", or an anonymous struct's literal). */
  readonly type: string;
  /** The struct's name in field errors ("" for an anonymous struct). */
  readonly name: string;
  readonly fields: readonly { readonly json: string; readonly type: "string" | "int64" }[];
}

export interface GoStructValues {
  /** By JSON name; absent when the text did not set the field. */
  readonly values: ReadonlyMap<string, string | bigint>;
  /** The first UnmarshalTypeError's text. */
  readonly error?: string;
}

const int64Min = -(1n << 63n);
const int64Max = (1n << 63n) - 1n;
const integer = /^-?(?:0|[1-9][0-9]*)$/;

/** json.Unmarshal into the struct: the scanner's error for `input` (its bytes, or text), else the decode's. */
export function goUnmarshalStruct(input: Uint8Array | string, struct: GoStruct): GoStructValues {
  const syntax = goJsonSyntaxError(input);
  if (syntax !== undefined) return { values: new Map(), error: syntax };
  return goDecodeStruct(typeof input === "string" ? input : Buffer.from(input).toString("utf8"), struct);
}

export function goDecodeStruct(text: string, struct: GoStruct): GoStructValues {
  const values = new Map<string, string | bigint>();
  let at = skipSpace(text, 0);
  const first = text[at];
  if (first === "n") return { values };
  if (first !== "{") return { values, error: `json: cannot unmarshal ${kindOf(first)} into Go value of type ${struct.type}` };
  let error: string | undefined;
  at = skipSpace(text, at + 1);
  while (text[at] !== "}") {
    const keyEnd = endOfValue(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    const valueAt = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const valueEnd = endOfValue(text, valueAt);
    const field = fieldFor(struct, key);
    if (field) {
      const raw = text.slice(valueAt, valueEnd);
      const kind = kindOf(raw[0]);
      const typeError = (what: string) => `json: cannot unmarshal ${what} into Go struct field ${struct.name}.${field.json} of type ${field.type}`;
      if (kind === "null") {
        // Leaves the field as it was.
      } else if (field.type === "string" && kind === "string") values.set(field.json, JSON.parse(raw) as string);
      else if (field.type === "int64" && kind === "number") {
        const n = integer.test(raw) ? BigInt(raw) : undefined;
        if (n !== undefined && n >= int64Min && n <= int64Max) values.set(field.json, n);
        else error ??= typeError(`number ${raw}`);
      } else error ??= typeError(kind);
    }
    at = skipSpace(text, valueEnd);
    if (text[at] === ",") at = skipSpace(text, at + 1);
  }
  return error === undefined ? { values } : { values, error };
}

function fieldFor(struct: GoStruct, key: string): GoStruct["fields"][number] | undefined {
  const exact = struct.fields.find((f) => f.json === key);
  if (exact) return exact;
  const folded = fold(key);
  return struct.fields.find((f) => fold(f.json) === folded);
}

/** Go's case folding of member names: each character's upper case of its lower case (so "ſ" matches "s"). */
function fold(s: string): string {
  let out = "";
  for (const ch of s) {
    const u = ch.toLowerCase().toUpperCase();
    // A character whose case mapping is several characters (ß) stays itself, as a Go rune does.
    out += [...u].length === 1 ? u : ch;
  }
  return out;
}

function kindOf(c: string | undefined): string {
  switch (c) {
    case "{":
      return "object";
    case "[":
      return "array";
    case '"':
      return "string";
    case "t":
    case "f":
      return "bool";
    case "n":
      return "null";
    default:
      return "number";
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === " " || text[at] === "\t" || text[at] === "\n" || text[at] === "\r")) at++;
  return at;
}

/** Where the value starting at `at` ends (nested values walked with a depth count, not recursion). */
function endOfValue(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return endOfString(text, at);
  if (c !== "{" && c !== "[") {
    while (at < text.length && !",}] \t\n\r".includes(text[at]!)) at++;
    return at;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const d = text[i];
    if (d === '"') i = endOfString(text, i) - 1;
    else if (d === "{" || d === "[") depth++;
    else if (d === "}" || d === "]") {
      if (--depth === 0) return i + 1;
    }
  }
  return text.length;
}

function endOfString(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}
