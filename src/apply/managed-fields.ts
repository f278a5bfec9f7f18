// `metadata.managedFields`: decoding from and encoding to the API form, the
// identifiers that separate entries (manager, operation, apiVersion for
// Update, subresource), the reset rule, the manager name of a request and the
// validation of `fieldManager` and of entries, with upstream's wording.

import { FieldSet, FieldsV1Error } from "./fieldpath.js";
import type { FieldsV1 } from "./fieldpath.js";
import { goQuote, isGoPrintable } from "../apimachinery/go-quote.js";
import { isObject } from "./value.js";
import { compareStrings, goJSONString } from "../apimachinery/go-json.js";

/** One `metadata.managedFields` entry, in upstream's key order. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update" | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** The fields one manager identifier owns. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** True for an Apply entry. */
  readonly applied: boolean;
}

/** Decoded managed fields: sets and times keyed by manager identifier. */
export interface Managed {
  readonly fields: Map<string, VersionedSet>;
  readonly times: Map<string, string | undefined>;
}

/** Raised when `metadata.managedFields` cannot be decoded (upstream's wording in `message`). */
export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManagedFieldsError";
  }
}

/** An empty Managed. */
export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** Upstream's FieldManagerMaxLength (bytes). */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** Upstream's MaxSubresourceNameLength (bytes). */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;
/** Upstream's cap on the number of Update entries before the oldest merge into "ancient-changes". */
export const MAX_UPDATE_MANAGERS = 10;

/**
 * The identifier of an entry: the JSON of manager, operation, apiVersion
 * (Update only) and subresource, as upstream's BuildManagerIdentifier, e.g.
 * `{"manager":"kubectl","operation":"Apply"}` or
 * `{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1"}`.
 */
export function buildManagerIdentifier(e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string }): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goJSONString(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goJSONString(e.operation)}`);
  if (e.operation !== "Apply" && e.apiVersion) parts.push(`"apiVersion":${goJSONString(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goJSONString(e.subresource)}`);
  return "{" + parts.join(",") + "}";
}

/** The fields of an identifier. */
export function parseManagerIdentifier(id: string): { manager: string; operation: string; apiVersion: string; subresource: string } {
  try {
    const o = JSON.parse(id) as Record<string, unknown>;
    const s = (k: string): string => (typeof o[k] === "string" ? (o[k] as string) : "");
    return { manager: s("manager"), operation: s("operation"), apiVersion: s("apiVersion"), subresource: s("subresource") };
  } catch {
    return { manager: id, operation: "", apiVersion: "", subresource: "" };
  }
}

/**
 * A manager as conflict messages print it: `"name"` for Apply entries,
 * `"name" using apps/v1` for Update entries, with ` with subresource "status"`
 * after the name when there is one (upstream's printManager).
 */
export function printManager(id: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(id) as Record<string, unknown>;
    if (!isObject(o)) throw new Error();
  } catch {
    return goQuote(id);
  }
  const str = (k: string): string => (typeof o[k] === "string" ? (o[k] as string) : "");
  let out = goQuote(str("manager"));
  if (str("subresource") !== "") out += ` with subresource ${goQuote(str("subresource"))}`;
  if (str("operation") === "Update") {
    out += ` using ${str("apiVersion")}`;
    if (str("time") !== "") out += ` at ${str("time")}`;
  }
  return out;
}

function describeEntry(e: unknown): string {
  return JSON.stringify(e);
}

/**
 * Decodes entries into sets per manager identifier, with upstream's checks
 * (operation Apply/Update, apiVersion set, fieldsType FieldsV1, readable
 * fieldsV1). Throws ManagedFieldsError.
 */
export function decodeManagedFields(entries: readonly unknown[] | undefined | null): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError("managedFields must be a list");
  entries.forEach((raw, i) => {
    if (!isObject(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== "Apply" && e.operation !== "Update") throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    if (typeof e.apiVersion !== "string" || e.apiVersion.length < 1) throw new ManagedFieldsError("apiVersion must not be empty");
    if (e.fieldsType === undefined || e.fieldsType === "") throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== "FieldsV1") throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = buildManagerIdentifier({
      manager: typeof e.manager === "string" ? e.manager : "",
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: typeof e.subresource === "string" ? e.subresource : "",
    });
    let set: FieldSet;
    try {
      set = e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(e.fieldsV1);
    } catch (err) {
      const msg = err instanceof FieldsV1Error ? err.message : String(err);
      throw new ManagedFieldsError(`error decoding versioned set from ${describeEntry(raw)}: error decoding set: ${msg}`);
    }
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === "Apply" });
    managed.times.set(id, typeof e.time === "string" ? e.time : undefined);
  });
  return managed;
}

function timeSeconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Entries in upstream's order: operation, then time (seconds), manager, apiVersion, subresource. */
export function sortManagedFields(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return entries.sort((p, q) => {
    const po = p.operation ?? "";
    const qo = q.operation ?? "";
    if (po !== qo) return compareStrings(po, qo);
    const ps = timeSeconds(p.time);
    const qs = timeSeconds(q.time);
    if (ps !== qs) return ps < qs ? -1 : 1;
    if ((p.manager ?? "") !== (q.manager ?? "")) return compareStrings(p.manager ?? "", q.manager ?? "");
    if ((p.apiVersion ?? "") !== (q.apiVersion ?? "")) return compareStrings(p.apiVersion ?? "", q.apiVersion ?? "");
    return compareStrings(p.subresource ?? "", q.subresource ?? "");
  });
}

/** Encodes decoded managed fields into sorted API entries (empty list when no manager is left). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (info.manager !== "") e.manager = info.manager;
    e.operation = vs.applied ? "Apply" : info.operation || "Update";
    e.apiVersion = vs.apiVersion;
    const t = managed.times.get(id);
    if (t !== undefined) e.time = t;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource !== "") e.subresource = info.subresource;
    out.push(e);
  }
  return sortManagedFields(out);
}

/**
 * Whether a non-apply write asks to reset managed fields: the list holds
 * exactly one entry with no field set (`[{}]`). An empty list does not reset
 * (the spec's rule; see `opts.emptyListResets` of recordUpdate for upstream's
 * code behaviour, where a non-nil empty list also resets).
 */
export function isResetManagedFields(entries: unknown, emptyListResets = false): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return emptyListResets;
  if (entries.length !== 1) return false;
  const e = entries[0];
  if (!isObject(e)) return false;
  for (const [k, v] of Object.entries(e)) {
    if (v === null) continue;
    if (typeof v === "string" && v === "" && k !== "fieldsV1") continue;
    return false;
  }
  return true;
}

/** A field validation error, shaped like upstream's field.Error. */
export interface FieldError {
  /** "FieldValueRequired", "FieldValueNotSupported", "FieldValueInvalid", "FieldValueTooLong". */
  readonly type: "FieldValueRequired" | "FieldValueNotSupported" | "FieldValueInvalid" | "FieldValueTooLong";
  /** e.g. "metadata.managedFields[0].operation" or "fieldManager". */
  readonly field: string;
  /** Body without the field, e.g. `Unsupported value: "X": supported values: "Apply", "Update"`. */
  readonly detail: string;
  /** `<field>: <detail>`, as upstream prints it. */
  readonly message: string;
}

function fieldError(type: FieldError["type"], field: string, detail: string): FieldError {
  return { type, field, detail, message: `${field}: ${detail}` };
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * Validates a `fieldManager` value as upstream: at most 128 bytes, printable
 * characters only. Empty means "not set" and is valid here.
 */
export function validateFieldManager(fieldManager: string, field = "fieldManager"): FieldError[] {
  const errs: FieldError[] = [];
  if (utf8Length(fieldManager) > FIELD_MANAGER_MAX_LENGTH) {
    errs.push(fieldError("FieldValueTooLong", field, `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`));
  }
  let pos = 0;
  for (const ch of fieldManager) {
    if (!isGoPrintable(ch)) {
      const cp = ch.codePointAt(0)!;
      const u = "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
      errs.push(fieldError("FieldValueInvalid", field, `Invalid value: ${goQuote(fieldManager)}: invalid character ${u} (at position ${pos})`));
    }
    pos += utf8Length(ch);
  }
  return errs;
}

/**
 * Validates `metadata.managedFields` entries of an object about to be
 * stored (upstream's ValidateManagedFields: operation, fieldsType, manager,
 * subresource length). Errors are for a 422 Invalid response.
 */
export function validateManagedFields(entries: readonly ManagedFieldsEntry[], field = "metadata.managedFields"): FieldError[] {
  const errs: FieldError[] = [];
  entries.forEach((e, i) => {
    const p = `${field}[${i}]`;
    const op = e.operation ?? "";
    if (op === "") errs.push(fieldError("FieldValueRequired", `${p}.operation`, "Required value: must not be empty"));
    else if (op !== "Apply" && op !== "Update") {
      errs.push(fieldError("FieldValueNotSupported", `${p}.operation`, `Unsupported value: ${JSON.stringify(op)}: supported values: "Apply", "Update"`));
    }
    if (e.fieldsType !== undefined && e.fieldsType !== "" && e.fieldsType !== "FieldsV1") {
      errs.push(fieldError("FieldValueInvalid", `${p}.fieldsType`, `Invalid value: ${JSON.stringify(e.fieldsType)}: must be \`FieldsV1\``));
    }
    errs.push(...validateFieldManager(e.manager ?? "", `${p}.manager`));
    if (utf8Length(e.subresource ?? "") > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(fieldError("FieldValueTooLong", `${p}.subresource`, `Too long: may not be more than ${MAX_SUBRESOURCE_NAME_LENGTH} bytes`));
    }
  });
  return errs;
}

/**
 * The prefix of a User-Agent used as manager name (upstream's
 * prefixFromUserAgent): the part before the first "/", without non-printable
 * characters, cut to at most 128 bytes.
 */
export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split("/")[0] ?? "";
  let out = "";
  let len = 0;
  for (const ch of head) {
    if (!isGoPrintable(ch)) continue;
    const n = utf8Length(ch);
    if (len + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    len += n;
  }
  return out;
}

/**
 * The manager name of a request: `fieldManager` when set, else the
 * User-Agent prefix (an empty result is later recorded as "unknown").
 */
export function managerName(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== "") return fieldManager;
  return prefixFromUserAgent(userAgent ?? "");
}

/** Normalizes a time to the RFC 3339 seconds form metav1.Time uses ("2024-01-02T03:04:05Z"). */
export function formatTime(t: string | Date): string {
  // Already in the seconds form (the server passes its formatted "now"): nothing to do.
  if (typeof t === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(t)) return t;
  const d = typeof t === "string" ? new Date(t) : t;
  if (Number.isNaN(d.getTime())) throw new RangeError(`invalid time: ${String(t)}`);
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
