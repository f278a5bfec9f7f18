// Small shared pieces for the per-kind validators: JSON access, field paths, upstream's generic
// messages (immutable field, port numbers, port names) and the "not found" field error.
import { deepEqual, isPlainObject } from "../../apimachinery/json-value.js";
import { invalid, isDNS1123Label, type FieldError } from "../../apimachinery/validation.js";

export type Obj = Record<string, any>;

export const isObj = isPlainObject as (v: unknown) => v is Obj;
export const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
export const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));

/** `<path>.<name>` (no leading dot for an empty path). */
export const child = (path: string, ...names: string[]): string =>
  names.reduce((p, n) => (p ? `${p}.${n}` : n), path);
/** `<path>[i]` */
export const index = (path: string, i: number): string => `${path}[${i}]`;
/** `<path>[key]` (upstream Path.Key: the key unquoted). */
export const key = (path: string, k: string): string => `${path}[${k}]`;

/** Upstream apimachineryvalidation.FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE = "field is immutable";

export function immutable(field: string, newValue: unknown, oldValue: unknown): FieldError[] {
  return deepEqual(newValue, oldValue) ? [] : [invalid(field, newValue === undefined ? null : newValue, FIELD_IMMUTABLE)];
}

/** Upstream field.NotFound (`Not found: <value>`). */
export { notFound } from "../../apimachinery/validation.js";

/** Upstream validation.IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ["must be between 1 and 65535, inclusive"];
}

/** Upstream validation.IsInRange. */
export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [`must be between ${min} and ${max}, inclusive`];
}

const portNameCharsetRe = /^[-a-z0-9]+$/;
const portNameOneLetterRe = /[a-z]/;

/** Upstream validation.IsValidPortName (IANA_SVC_NAME). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push("must be no more than 15 characters");
  if (!portNameCharsetRe.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!portNameOneLetterRe.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** Upstream IsNegativeErrorMsg / ValidateNonnegativeField. */
export const IS_NEGATIVE = "must be greater than or equal to 0";
export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === "number" && value < 0 ? [invalid(field, value, IS_NEGATIVE)] : [];
}

export function dnsLabelErrors(value: string, field: string): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(field, value, m));
}


/** Sets `o[k] = v` only when `o[k]` is undefined or null (Go: unset pointer / empty value). */
export function setDefault(o: Obj, k: string, v: unknown): void {
  if (o[k] === undefined || o[k] === null) o[k] = v;
}

/** As setDefault, also when the current value is "" (Go zero string). */
export function setDefaultStr(o: Obj, k: string, v: string): void {
  if (o[k] === undefined || o[k] === null || o[k] === "") o[k] = v;
}
