// Name, label and annotation validation plus field-error formatting, matching the behaviour and
// the client-visible message texts of kubernetes/apimachinery (release 1.34):
//   pkg/util/validation (IsDNS1123Subdomain, IsQualifiedName, ...),
//   pkg/api/validation (ObjectMeta name rules, annotations),
//   pkg/apis/meta/v1/validation (labels),
//   pkg/util/validation/field (Error.Error() / ErrorBody()),
//   pkg/api/errors (NewInvalid message and causes).
// Lengths are measured in UTF-8 bytes, as Go's len() does.
import { goJSON } from "./go-json.js";
import { goQuote } from "./go-quote.js";

// ---------------------------------------------------------------------------------------------
// Field errors

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotFound"
  | "FieldValueDuplicate"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid";

/**
 * One field-level validation error (upstream field.Error). `message` is upstream's `Detail`.
 * `badValue` is rendered for Invalid / Duplicate / NotSupported / TooMany; leaving it
 * `undefined` omits the value from the text, while `null` renders as `null` (Go's nil).
 */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  message: string;
  badValue?: unknown;
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotFound: "Not found",
  FieldValueDuplicate: "Duplicate value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
};

/** The error text without the field prefix (upstream ErrorBody), used as StatusCause.message. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type] ?? `<unknown error ${goQuote(String(e.type))}>`;
  switch (e.type) {
    case "FieldValueRequired":
    case "FieldValueForbidden":
    case "FieldValueTooLong":
      break;
    default:
      if (e.badValue !== undefined) s += `: ${renderBadValue(e.badValue)}`;
  }
  if (e.message.length > 0) s += `: ${e.message}`;
  return s;
}

/** Upstream field.Error.Error(): `<field>: <body>`. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * A bad value Go prints with `%#v` (a struct of an internal type, as upstream's field.Error falls
 * back to for values that are neither simple nor Stringers): `text` is that rendering.
 */
export class GoSyntaxValue {
  constructor(readonly text: string) {}
}

function renderBadValue(v: unknown): string {
  if (v instanceof GoSyntaxValue) return v.text;
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "bigint") return v.toString();
  return goJSON(v);
}

// Constructors mirroring upstream's field.Required/Invalid/... helpers.
export function required(field: string, message = ""): FieldError {
  return { type: "FieldValueRequired", field, message };
}
export function invalid(field: string, badValue: unknown, message: string): FieldError {
  return { type: "FieldValueInvalid", field, message, badValue };
}
export function forbidden(field: string, message: string): FieldError {
  return { type: "FieldValueForbidden", field, message };
}
export function notFound(field: string, badValue: unknown): FieldError {
  return { type: "FieldValueNotFound", field, message: "", badValue };
}

export function duplicate(field: string, badValue: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, message: "", badValue };
}
/** Upstream field.TypeInvalid (a value of the wrong JSON type; printed as `Invalid value`). */
export function typeInvalid(field: string, badValue: unknown, message: string): FieldError {
  return { type: "FieldValueTypeInvalid", field, message, badValue };
}
/** Upstream field.NotSupported: detail `supported values: "a", "b"` (omitted when none). */
export function notSupported(field: string, badValue: unknown, validValues: readonly string[]): FieldError {
  const message =
    validValues.length > 0 ? "supported values: " + validValues.map((v) => goQuote(v)).join(", ") : "";
  return { type: "FieldValueNotSupported", field, message, badValue };
}
/** Upstream field.TooLong: `may not be more than N bytes` (or `value is too long` when max < 0). */
export function tooLong(field: string, maxLength: number): FieldError {
  const message =
    maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long";
  return { type: "FieldValueTooLong", field, message, badValue: "<value omitted>" };
}
/** Upstream field.TooMany: `must have at most N items`; a negative actual count is omitted. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  const message = max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items";
  return { type: "FieldValueTooMany", field, message, badValue: actual >= 0 ? actual : undefined };
}

/** StatusCause.reason for a field error: upstream uses the error type string itself (CauseType). */
export function causeReason(type: FieldErrorType): string {
  return type;
}

/**
 * Upstream aggregate text of an error list (ErrorList.ToAggregate().Error()): duplicates (by
 * text) dropped, a single error printed bare, several as `[e1, e2]`. Empty list → "".
 */
export function aggregateMessage(errs: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errs) {
    const m = formatFieldError(e);
    if (seen.has(m)) continue;
    seen.add(m);
    msgs.push(m);
  }
  if (msgs.length === 0) return "";
  if (msgs.length === 1) return msgs[0]!;
  return "[" + msgs.join(", ") + "]";
}

export type QualifiedKind = string | { group?: string; kind: string };

/**
 * Status message of upstream apierrors.NewInvalid: `<Kind[.group]> "<name>" is invalid: <aggregate>`
 * (`... is invalid` alone when there are no errors).
 */
export function invalidMessage(kind: QualifiedKind, name: string, errs: readonly FieldError[]): string {
  const k = typeof kind === "string" ? kind : kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const agg = aggregateMessage(errs);
  return agg === "" ? `${k} ${goQuote(name)} is invalid` : `${k} ${goQuote(name)} is invalid: ${agg}`;
}

export interface InvalidCause {
  reason?: string;
  message?: string;
  field?: string;
}

/**
 * StatusDetails.causes of upstream apierrors.NewInvalid: one per error (no de-duplication),
 * reason = error type, message = error text without the field prefix, field = field path.
 * Empty strings are left out, as metav1.StatusCause's omitempty does.
 */
export function invalidCauses(errs: readonly FieldError[]): InvalidCause[] {
  return errs.map((e) => {
    const c: InvalidCause = {};
    const reason = causeReason(e.type);
    const message = fieldErrorBody(e);
    if (reason) c.reason = reason;
    if (message) c.message = message;
    if (e.field) c.field = e.field;
    return c;
  });
}

// ---------------------------------------------------------------------------------------------
// Message helpers (upstream MaxLenError, RegexError, EmptyError)

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = msg + " (e.g. ";
  examples.forEach((ex, i) => {
    if (i > 0) s += " or ";
    s += `'${ex}', `;
  });
  return s + `regex used for validation is '${fmt}')`;
}

export function emptyError(): string {
  return "must be non-empty";
}

function byteLen(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

// ---------------------------------------------------------------------------------------------
// String-format checks (pkg/util/validation)

const qnameCharFmt = "[A-Za-z0-9]";
const qnameExtCharFmt = "[-A-Za-z0-9_.]";
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);

/** Label keys, annotation keys (lower-cased first), finalizer names: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) {
      errs.push("prefix part " + emptyError());
    } else {
      for (const m of isDNS1123Subdomain(prefix)) errs.push("prefix part " + m);
    }
  } else {
    errs.push(
      "a qualified name " +
        regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) {
    errs.push("name part " + emptyError());
  } else if (byteLen(name) > qualifiedNameMaxLength) {
    errs.push("name part " + maxLenError(qualifiedNameMaxLength));
  }
  if (!qualifiedNameRe.test(name)) {
    errs.push("name part " + regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"));
  }
  return errs;
}

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  }
  return errs;
}

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) {
      // a valid subdomain but not a label: the only difference left is dots
      errs.push("must not contain dots");
    } else {
      errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
    }
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"));
  }
  return errs;
}

const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const DNS1035_LABEL_MAX_LENGTH = 63;
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) {
    errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"));
  }
  return errs;
}

// pkg/api/validation/path
const nameMayNotBe = [".", ".."];
const nameMayNotContain = ["/", "%"];

/** A name usable as a single URL path segment / storage key component. */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of nameMayNotBe) {
    if (name === bad) return [`may not be '${bad}'`];
  }
  return isValidPathSegmentPrefix(name);
}

/** As isValidPathSegmentName, without the exact '.'/'..' check (a suffix will be appended). */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const bad of nameMayNotContain) {
    if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Object metadata

export type NameRule = "subdomain" | "label" | "dns1035" | "path-segment";

// Upstream's generateName masking: when the prefix is longer than one character and ends with
// '-', its last TWO characters are replaced by a single 'a' before checking (upstream quirk,
// kept for identical results).
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return name.slice(0, name.length - 2) + "a";
  return name;
}

/** Upstream ValidateNameFunc for each rule; `prefix` is true when checking a generateName. */
export function validateName(name: string, prefix: boolean, rule: NameRule): string[] {
  switch (rule) {
    case "subdomain":
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case "label":
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case "dns1035":
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case "path-segment":
      return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
  }
}

function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/**
 * The name/generateName part of upstream ValidateObjectMetaAccessor: generateName errors first
 * (at `<path>.generateName`), then `<path>.name` is Required when empty, else checked.
 * Upstream generates the name from generateName before validating; callers do the same.
 */
export function validateObjectMetaName(
  name: string | undefined,
  generateName: string | undefined,
  nameRule: NameRule,
  fieldPath = "metadata",
): FieldError[] {
  const errs: FieldError[] = [];
  if (generateName) {
    for (const msg of validateName(generateName, true, nameRule)) {
      errs.push(invalid(child(fieldPath, "generateName"), generateName, msg));
    }
  }
  if (!name) {
    errs.push(required(child(fieldPath, "name"), "name or generateName is required"));
  } else {
    for (const msg of validateName(name, false, nameRule)) {
      errs.push(invalid(child(fieldPath, "name"), name, msg));
    }
  }
  return errs;
}

/** Upstream ValidateLabelName: Invalid at `fieldPath` for each message. */
export function validateLabelName(key: string, fieldPath: string): FieldError[] {
  return isQualifiedName(key).map((msg) => invalid(fieldPath, key, msg));
}

/**
 * Upstream metav1 ValidateLabels: keys must be qualified names, values valid label values; all
 * errors are reported at `fieldPath` itself (e.g. `metadata.labels`). Keys are visited in sorted
 * order (upstream's map order is random).
 */
export function validateLabels(labels: Record<string, string> | undefined | null, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const k of Object.keys(labels).sort()) {
    errs.push(...validateLabelName(k, fieldPath));
    const v = labels[k] ?? "";
    for (const msg of isValidLabelValue(v)) errs.push(invalid(fieldPath, v, msg));
  }
  return errs;
}

/** 256 KiB: upper bound on the summed byte length of all annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/**
 * Upstream ValidateAnnotations: keys are qualified names checked case-insensitively (lower-cased
 * first; the original key is the bad value); total size over 256 KiB is
 * `<fieldPath>: Too long: may not be more than 262144 bytes`.
 */
export function validateAnnotations(
  annotations: Record<string, string> | undefined | null,
  fieldPath: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const k of Object.keys(annotations).sort()) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(fieldPath, k, msg));
    total += byteLen(k) + byteLen(annotations[k] ?? "");
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(tooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Go formatting helpers (%v of numbers; %q is go-quote.ts), needed for byte-identical messages.

function goNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}
