// Validation of a custom object against its CRD version's OpenAPI v3 schema, with the messages
// and field paths of upstream's kube-openapi validator as apiextensions-apiserver maps them to
// field errors (pkg/apiserver/validation: kubeOpenAPIResultToFieldErrors). Values are JSON as
// decoded by Go's unstructured decoder: integral numbers are int64, others float64.
import type { RE2JS } from "re2js";
import { re2 } from "../../cel/regex.js";
import { invalid, isDNS1035Label, isValidPathSegmentName, isDNS1123Label, notSupported, required, tooLong, tooMany, typeInvalid, validateAnnotations, validateLabels, type FieldError } from "../../apimachinery/validation.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { effectiveFormat, validFormat } from "./formats.js";
import { child, index, isObject, itemsSchema, jsonEqual, propertyOf, type JSONSchemaProps } from "./types.js";

// ---------------------------------------------------------------------------------------------
// kube-openapi results

type Code =
  | "invalidType" | "required" | "tooLong" | "tooShort" | "pattern" | "enum" | "multipleOf" | "max" | "min"
  | "unique" | "maxItems" | "minItems" | "tooFewProperties" | "tooManyProperties" | "unallowedProperty"
  | "multipleOfMustBePositive" | "plain";

interface OErr {
  code: Code;
  name: string;
  message: string;
  value?: unknown;
  valid?: number;
  values?: unknown[];
}

class Result {
  errors: OErr[] = [];
  matchCount = 0;
  add(...errs: OErr[]): void {
    for (const e of errs) if (!this.errors.some((x) => x.message === e.message)) this.errors.push(e);
  }
  merge(...others: (Result | undefined)[]): this {
    for (const o of others) {
      if (!o) continue;
      this.add(...o.errors);
      this.matchCount += o.matchCount;
    }
    return this;
  }
  get valid(): boolean {
    return this.errors.length === 0;
  }
}

function single(e: OErr): Result {
  const r = new Result();
  r.errors.push(e);
  return r;
}

const IN = "body";

// Go's %v of a float64 (strconv 'g', shortest; exponent form below 1e-4 and from 1e+06).
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mant, expStr] = f.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 21 || exp >= 6) {
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${mant}e${exp < 0 ? "-" : "+"}${e}`;
  }
  return String(f);
}

const INT64_LIMIT = 2 ** 63;
/** Whether a decoded JSON number is an int64 in Go's unstructured decoding. */
function isInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < INT64_LIMIT;
}
/** swag.IsFloat64AJSONInteger */
function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false;
  return Number.isInteger(f);
}

function numText(n: number, asInt: boolean): string {
  return asInt ? String(Math.trunc(n)) : goFloat(n);
}

// Go's %v of a decoded JSON value (for the enum message).
function goV(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "number") return isInt(v) ? String(v) : goFloat(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return "[" + v.map(goV).join(" ") + "]";
  const o = v as Record<string, unknown>;
  return "map[" + Object.keys(o).sort().map((k) => `${k}:${goV(o[k])}`).join(" ") + "]";
}

function withIn(name: string, rest: string): string {
  return `${name} in ${IN} ${rest}`;
}

function invalidType(name: string, typeName: string, value: string): OErr {
  return { code: "invalidType", name, value, message: withIn(name, `must be of type ${typeName}: ${goQuote(value)}`) };
}

// ---------------------------------------------------------------------------------------------
// The schema as kube-openapi sees it after conversion

function typesOf(s: JSONSchemaProps): string[] {
  if (s["x-kubernetes-int-or-string"]) return ["integer", "string"];
  return s.type ? [s.type] : [];
}

type Kind = "null" | "boolean" | "string" | "integer" | "number" | "array" | "object";
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return isInt(v) ? "integer" : "number";
  if (Array.isArray(v)) return "array";
  return "object";
}

const regexCache = new Map<string, RE2JS | Error>();
function compilePattern(p: string): RE2JS | Error {
  let re = regexCache.get(p);
  if (re) return re;
  try {
    re = re2().RE2JS.compile(p);
  } catch (e) {
    re = e as Error;
  }
  if (regexCache.size > 1000) regexCache.delete(regexCache.keys().next().value as string);
  regexCache.set(p, re);
  return re;
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Validators (in kube-openapi's order: type, schema props, string, format, number, slice,
// common (enum), object)

function validateType(path: string, s: JSONSchemaProps, data: unknown): Result {
  const r = new Result();
  r.matchCount++;
  const types = typesOf(s);
  const fmt = effectiveFormat(s.format);
  const kind = kindOf(data);
  if (kind === "null") {
    if (types.length > 0 && !types.includes("null") && s.nullable !== true) return single(invalidType(path, types.join(","), "null"));
    return r;
  }
  let schType: string = kind;
  let format = "";
  if (kind === "integer") format = "int64";
  else if (kind === "number") format = "float64";
  const isFloatInt = kind === "number" && isJSONInteger(data as number) && types.includes("integer");
  const isIntFloat = kind === "integer" && types.includes("number");
  if (kind !== "string" && kind !== "array" && fmt !== "" && !(types.includes(schType) || format === fmt || isFloatInt || isIntFloat)) {
    return single(invalidType(path, fmt, format));
  }
  if (!(types.includes("number") || types.includes("integer")) && fmt !== "" && (kind === "string" || kind === "array")) return r;
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) return single(invalidType(path, types.join(","), schType));
  return r;
}

function validateSchemaProps(path: string, s: JSONSchemaProps, data: unknown): Result {
  const main = new Result();
  if (s.anyOf && s.anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let ok = false;
    for (const sub of s.anyOf) {
      const r = validateNode(path, sub, data);
      if (r.valid) {
        best = undefined;
        ok = true;
        firstSuccess ??= r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!ok) main.add({ code: "plain", name: path, message: `${goQuote(path)} must validate at least one schema (anyOf)` });
    if (best) main.merge(best);
    else if (firstSuccess) main.merge(firstSuccess);
  }
  if (s.oneOf && s.oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const sub of s.oneOf) {
      const r = validateNode(path, sub, data);
      if (r.valid) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const extra = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
      main.add({ code: "plain", name: path, message: `${goQuote(path)} must validate one and only one schema (oneOf). ${extra}` });
      if (best) main.merge(best);
    } else if (firstSuccess) main.merge(firstSuccess);
  }
  if (s.allOf && s.allOf.length > 0) {
    let validated = 0;
    for (const sub of s.allOf) {
      const r = validateNode(path, sub, data);
      if (r.valid) validated++;
      main.merge(r);
    }
    if (validated !== s.allOf.length) {
      const extra = validated === 0 ? ". None validated" : "";
      main.add({ code: "plain", name: path, message: `${goQuote(path)} must validate all the schemas (allOf)${extra}` });
    }
  }
  if (s.not) {
    if (validateNode(path, s.not, data).valid) {
      main.add({ code: "plain", name: path, message: `${goQuote(path)} must not validate the schema (not)` });
    }
  }
  main.matchCount++;
  return main;
}

function validateString(path: string, s: JSONSchemaProps, data: string): Result | undefined {
  if (s.maxLength !== undefined && s.maxLength !== null && runeCount(data) > s.maxLength) {
    return single({ code: "tooLong", name: path, value: data, valid: s.maxLength, message: withIn(path, `should be at most ${s.maxLength} chars long`) });
  }
  if (s.minLength !== undefined && s.minLength !== null && runeCount(data) < s.minLength) {
    return single({ code: "tooShort", name: path, value: data, valid: s.minLength, message: withIn(path, `should be at least ${s.minLength} chars long`) });
  }
  if (s.pattern) {
    const re = compilePattern(s.pattern);
    if (re instanceof Error) {
      return single({ code: "pattern", name: path, value: data, message: withIn(path, `should match '${s.pattern}, but pattern is invalid: ${re.message}'`) });
    }
    if (!re.matcher(data).find()) return single({ code: "pattern", name: path, value: data, message: withIn(path, `should match '${s.pattern}'`) });
  }
  return undefined;
}

function validateFormat(path: string, fmt: string, data: string): Result | undefined {
  if (!validFormat(fmt, data)) return single(invalidType(path, fmt, data));
  return undefined;
}

/** swag.ConvertInt64 / ConvertInt32 / ConvertFloat32 range checks of IsValueValidAgainstRange. */
function rangeError(v: number, typeName: string, prefix: string, path: string): OErr | undefined {
  if (typeName !== "integer") return undefined;
  const ok = isJSONInteger(v) || (isInt(v) && Math.abs(v) <= 2 ** 53);
  if (ok) return undefined;
  return { code: "plain", name: "", message: `${prefix} value must be of type integer (default format) in ${path}` };
}

function validateNumber(path: string, s: JSONSchemaProps, data: number): Result {
  const res = new Result();
  const types = typesOf(s);
  const typeName = types.length === 1 && (types[0] === "integer" || types[0] === "number") ? types[0] : "";
  const dataInt = isInt(data);
  const checked = rangeError(data, typeName, "Checked", path);
  if (checked) res.add(checked);
  const resMultiple = new Result();
  const resMin = new Result();
  const resMax = new Result();
  if (s.multipleOf !== undefined && s.multipleOf !== null) {
    const f = s.multipleOf;
    const re = rangeError(f, typeName, "MultipleOf", path);
    if (re) resMultiple.add(re);
    const native = !re && dataInt;
    if (native) {
      const fi = Math.trunc(f);
      if (fi <= 0) resMultiple.add({ code: "multipleOfMustBePositive", name: path, value: fi, message: `factor MultipleOf declared for ${path} must be positive: ${fi}` });
      else if (data % fi !== 0) resMultiple.add({ code: "multipleOf", name: path, value: data, message: withIn(path, `should be a multiple of ${fi}`) });
    } else if (f <= 0) {
      resMultiple.add({ code: "multipleOfMustBePositive", name: path, value: f, message: `factor MultipleOf declared for ${path} must be positive: ${goFloat(f)}` });
    } else {
      const mult = f < 1 ? (1 / f) * data : data / f;
      if (!isJSONInteger(mult)) resMultiple.add({ code: "multipleOf", name: path, value: data, message: withIn(path, `should be a multiple of ${goFloat(f)}`) });
    }
  }
  if (s.maximum !== undefined && s.maximum !== null) {
    const re = rangeError(s.maximum, typeName, "Maximum boundary", path);
    if (re) resMax.add(re);
    const native = !re && dataInt;
    const max = native ? Math.trunc(s.maximum) : s.maximum;
    const ex = s.exclusiveMaximum === true;
    if ((!ex && data > max) || (ex && data >= max)) {
      resMax.add({ code: "max", name: path, value: data, message: withIn(path, `should be less than ${ex ? "" : "or equal to "}${numText(max, native)}`) });
    }
  }
  if (s.minimum !== undefined && s.minimum !== null) {
    const re = rangeError(s.minimum, typeName, "Minimum boundary", path);
    if (re) resMin.add(re);
    const native = !re && dataInt;
    const min = native ? Math.trunc(s.minimum) : s.minimum;
    const ex = s.exclusiveMinimum === true;
    if ((!ex && data < min) || (ex && data <= min)) {
      resMin.add({ code: "min", name: path, value: data, message: withIn(path, `should be greater than ${ex ? "" : "or equal to "}${numText(min, native)}`) });
    }
  }
  res.merge(resMultiple, resMin, resMax);
  res.matchCount++;
  return res;
}

function validateSlice(path: string, s: JSONSchemaProps, data: unknown[]): Result {
  const r = new Result();
  const items = itemsSchema(s);
  if (items) data.forEach((v, i) => r.merge(validateNode(`${path}[${i}]`, items, v)));
  const size = data.length;
  if (s.minItems !== undefined && s.minItems !== null && size < s.minItems) {
    r.add({ code: "minItems", name: path, value: size, valid: s.minItems, message: withIn(path, `should have at least ${s.minItems} items`) });
  }
  if (s.maxItems !== undefined && s.maxItems !== null && size > s.maxItems) {
    r.add({ code: "maxItems", name: path, value: size, valid: s.maxItems, message: withIn(path, `should have at most ${s.maxItems} items`) });
  }
  if (s.uniqueItems) {
    let dup = false;
    for (let i = 0; i < size && !dup; i++) for (let j = 0; j < i; j++) if (jsonEqual(data[i], data[j])) { dup = true; break; }
    if (dup) r.add({ code: "unique", name: path, message: withIn(path, "shouldn't contain duplicates") });
  }
  r.matchCount++;
  return r;
}

function enumMatches(data: unknown, e: unknown): boolean {
  if (data === null || data === undefined || e === null || e === undefined) return false;
  if (typeof e === "number" && typeof data === "number") {
    // reflect Convert between int64 and float64 (a float converted to int64 truncates)
    if (isInt(e)) return Math.trunc(data) === e;
    return data === e;
  }
  if (typeof e === "string" && typeof data === "number" && isInt(data)) {
    // Go converts an integer to the string of that code point
    return (data >= 0 && data <= 0x10ffff && !(data >= 0xd800 && data <= 0xdfff) ? String.fromCodePoint(data) : "\uFFFD") === e;
  }
  return jsonEqual(data, e);
}

function validateEnum(path: string, s: JSONSchemaProps, data: unknown): Result | undefined {
  const values = s.enum;
  if (!values || values.length === 0) return undefined;
  for (const e of values) if (enumMatches(data, e)) return undefined;
  return single({ code: "enum", name: path, value: data, values, message: withIn(path, `should be one of ${goV(values)}`) });
}

function validateObjectKeywords(path: string, s: JSONSchemaProps, data: Record<string, unknown>): Result {
  const r = new Result();
  const keys = Object.keys(data);
  const n = keys.length;
  if (s.minProperties !== undefined && s.minProperties !== null && n < s.minProperties) {
    r.add({ code: "tooFewProperties", name: path, value: n, valid: s.minProperties, message: withIn(path, `should have at least ${s.minProperties} properties`) });
  }
  if (s.maxProperties !== undefined && s.maxProperties !== null && n > s.maxProperties) {
    r.add({ code: "tooManyProperties", name: path, value: n, valid: s.maxProperties, message: withIn(path, `should have at most ${s.maxProperties} properties`) });
  }
  const ap = s.additionalProperties;
  if (ap === false) {
    for (const k of keys) {
      if (propertyOf(s, k) === undefined) {
        r.add({ code: "unallowedProperty", name: path, value: k, message: `${path}.${k} in ${IN} is a forbidden property` });
      }
    }
  } else if (typeof ap === "object" && ap !== null) {
    for (const k of keys) if (propertyOf(s, k) === undefined) r.merge(validateNode(`${path}.${k}`, ap, data[k]));
  }
  for (const [p, ps] of Object.entries(s.properties ?? {})) {
    if (Object.prototype.hasOwnProperty.call(data, p)) r.merge(validateNode(path === "" ? p : `${path}.${p}`, ps, data[p]));
  }
  for (const k of s.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(data, k)) {
      r.add({ code: "required", name: `${path}.${k}`, message: withIn(`${path}.${k}`, "is required") });
    }
  }
  return r;
}

function validateNode(path: string, s: JSONSchemaProps, data: unknown): Result {
  const result = new Result();
  const kind = kindOf(data);
  if (kind === "null") {
    result.merge(validateType(path, s, data));
    result.merge(validateEnum(path, s, data));
    return result;
  }
  const types = typesOf(s);
  const fmt = effectiveFormat(s.format);
  const steps: (() => Result | undefined)[] = [];
  if (types.length > 0 || fmt !== "") steps.push(() => validateType(path, s, data));
  steps.push(() => validateSchemaProps(path, s, data));
  if (kind === "string") {
    steps.push(() => validateString(path, s, data as string));
    if (fmt !== "") steps.push(() => validateFormat(path, fmt, data as string));
  }
  if (kind === "integer" || kind === "number") steps.push(() => validateNumber(path, s, data as number));
  if (kind === "array") steps.push(() => validateSlice(path, s, data as unknown[]));
  steps.push(() => validateEnum(path, s, data));
  if (kind === "object") steps.push(() => validateObjectKeywords(path, s, data as Record<string, unknown>));
  for (const st of steps) {
    result.merge(st());
    result.matchCount++;
  }
  result.matchCount++;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Mapping to field errors (kubeOpenAPIResultToFieldErrors)

function enumValueText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

function toFieldErrors(base: string, errs: OErr[]): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errs) {
    if (e.code === "plain") {
      out.push(invalid(base, "", e.message));
      continue;
    }
    let p = base;
    if (e.name.length > 0 && e.name !== ".") p = child(base, e.name.startsWith(".") ? e.name.slice(1) : e.name);
    const value = e.value === undefined ? "" : e.value;
    switch (e.code) {
      case "required":
        out.push(required(p, ""));
        break;
      case "enum":
        out.push(notSupported(p, e.value === undefined ? null : e.value, (e.values ?? []).map(enumValueText)));
        break;
      case "tooLong":
        out.push(tooLong(p, e.valid ?? -1));
        break;
      case "maxItems":
      case "tooManyProperties":
        out.push(tooMany(p, typeof e.value === "number" ? e.value : -1, e.valid ?? -1));
        break;
      case "invalidType":
        out.push(typeInvalid(p, value, e.message));
        break;
      default:
        out.push(invalid(p, value, e.message));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Embedded resources (upstream schema/objectmeta Validate, below the resource root)

function parseGroupVersionError(gv: string): string | undefined {
  if (gv === "" || gv === "/") return undefined;
  const n = gv.split("/").length - 1;
  if (n <= 1) return undefined;
  return `unexpected GroupVersion string: ${gv}`;
}

function validateEmbeddedResource(p: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!("apiVersion" in x)) errs.push(required(child(p, "apiVersion"), ""));
  if (!("kind" in x)) errs.push(required(child(p, "kind"), ""));
  for (const [k, v] of Object.entries(x)) {
    if (k === "apiVersion") {
      const f = child(p, "apiVersion");
      if (typeof v !== "string") errs.push(invalid(f, v, "must be a string"));
      else if (v.length === 0) errs.push(invalid(f, v, "must not be empty"));
      else {
        const e = parseGroupVersionError(v);
        if (e) errs.push(invalid(f, v, e));
      }
    } else if (k === "kind") {
      const f = child(p, "kind");
      if (typeof v !== "string") errs.push(invalid(f, v, "must be a string"));
      else if (v.length === 0) errs.push(invalid(f, v, "must not be empty"));
      else {
        const e = isDNS1035Label(v.toLowerCase());
        if (e.length > 0) errs.push(invalid(f, v, "may have mixed case, but should otherwise match: " + e.join(",")));
      }
    } else if (k === "metadata") {
      const f = child(p, "metadata");
      if (v === null) continue;
      if (!isObject(v)) {
        errs.push(invalid(f, v, "expected object"));
        continue;
      }
      const name = typeof v.name === "string" && v.name !== "" ? v.name : "fakename";
      for (const m of isValidPathSegmentName(name)) errs.push(invalid(child(f, "name"), name, m));
      if (typeof v.namespace === "string" && v.namespace !== "") {
        for (const m of isDNS1123Label(v.namespace)) errs.push(invalid(child(f, "namespace"), v.namespace, m));
      }
      if (isObject(v.labels)) errs.push(...validateLabels(v.labels as Record<string, string>, child(f, "labels")));
      if (isObject(v.annotations)) errs.push(...validateAnnotations(v.annotations as Record<string, string>, child(f, "annotations")));
    }
  }
  return errs;
}

function validateEmbedded(p: string, x: unknown, s: JSONSchemaProps | undefined): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (Array.isArray(x)) {
    const it = itemsSchema(s);
    x.forEach((v, i) => errs.push(...validateEmbedded(index(p, i), v, it)));
  } else if (isObject(x)) {
    if (s["x-kubernetes-embedded-resource"]) errs.push(...validateEmbeddedResource(p, x));
    const ap = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
    for (const [k, v] of Object.entries(x)) {
      const prop = propertyOf(s, k);
      if (prop) errs.push(...validateEmbedded(child(p, k), v, prop));
      else if (ap) errs.push(...validateEmbedded(`${p}[${k}]`, v, ap));
    }
  }
  return errs;
}

/**
 * Validates a custom object (or any JSON value) against `schema`: every OpenAPI keyword as
 * upstream's schema validator, then the embedded-resource checks (apiVersion, kind, metadata)
 * below the root. `path` prefixes every field path (default: none, as custom objects).
 */
export function validateObject(obj: unknown, schema: JSONSchemaProps | undefined, opts: { path?: string; isResourceRoot?: boolean } = {}): FieldError[] {
  if (!schema) return [];
  const base = opts.path ?? "";
  const r = validateNode("", schema, obj);
  const errs = toFieldErrors(base, r.errors);
  const rootSchema = opts.isResourceRoot === true ? { ...schema, "x-kubernetes-embedded-resource": false } : schema;
  errs.push(...validateEmbedded(base, obj, rootSchema));
  return errs;
}
