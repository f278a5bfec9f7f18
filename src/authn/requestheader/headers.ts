// Reading the authenticating proxy's identity headers, as kube-apiserver reads them: header names
// case-insensitive; the first username (and uid) header with a non-empty value wins; every
// non-empty value of every group header is a group; every header starting with an extra prefix
// gives the extra key (the rest of the name, lowercased, then percent-decoded) its values.
import { goQuote } from "../../apimachinery/go-quote.js";

export type HeaderMap = Record<string, string | string[] | undefined>;

export interface IdentityHeaders {
  usernameHeaders: readonly string[];
  uidHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
}

/** The headers as a list of [lowercased name, value] in arrival order, repeated headers apart. */
export function headerEntries(headers: HeaderMap, rawHeaders?: readonly string[]): [string, string][] {
  if (rawHeaders) {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) out.push([rawHeaders[i]!.toLowerCase(), rawHeaders[i + 1]!]);
    return out;
  }
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push([k.toLowerCase(), one]);
  }
  return out;
}

/** Go's url.PathUnescape; a malformed escape keeps the key as it was. */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes("%")) return encoded;
  if (/%(?![0-9a-fA-F]{2})/.test(encoded)) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; ) {
    if (encoded[i] === "%") {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = encoded.codePointAt(i)!;
      for (const b of Buffer.from(String.fromCodePoint(cp), "utf8")) bytes.push(b);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

const lower = (xs: readonly string[]) => xs.map((x) => x.toLowerCase());

export interface HeaderIdentity {
  name: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** The identity the headers carry; undefined without a non-empty username header. */
export function identityFromHeaders(h: IdentityHeaders, headers: HeaderMap, rawHeaders?: readonly string[]): HeaderIdentity | undefined {
  const entries = headerEntries(headers, rawHeaders);
  // Go's Header.Get: the first value of that header.
  const first = (names: readonly string[]) => {
    for (const n of lower(names)) {
      const e = entries.find(([k]) => k === n);
      if (e && e[1].length > 0) return e[1];
    }
    return "";
  };
  const name = first(h.usernameHeaders);
  if (!name) return undefined;
  const uid = first(h.uidHeaders);
  const groups: string[] = [];
  for (const n of lower(h.groupHeaders)) for (const [k, v] of entries) if (k === n && v.length > 0) groups.push(v);
  const extra: Record<string, string[]> = {};
  for (const p of lower(h.extraHeaderPrefixes)) {
    for (const [k, v] of entries) {
      if (!k.startsWith(p)) continue;
      const key = unescapeExtraKey(k.slice(p.length));
      (extra[key] ??= []).push(v);
    }
  }
  return { name, uid, groups, extra };
}

/** Removes every identity header (names and prefixes, any case) from the request's headers. */
export function clearIdentityHeaders(h: IdentityHeaders, headers: HeaderMap, rawHeaders?: string[]): void {
  const names = new Set(lower([...h.usernameHeaders, ...h.uidHeaders, ...h.groupHeaders]));
  const prefixes = lower(h.extraHeaderPrefixes);
  const drop = (k: string) => {
    const l = k.toLowerCase();
    return names.has(l) || prefixes.some((p) => l.startsWith(p));
  };
  for (const k of Object.keys(headers)) if (drop(k)) delete headers[k];
  if (rawHeaders) {
    for (let i = rawHeaders.length - 2; i >= 0; i -= 2) if (drop(rawHeaders[i]!)) rawHeaders.splice(i, 2);
  }
}

/** kube-apiserver's check of the header flags: an empty (or blank) entry is refused. */
export function checkHeaderFlag(flag: string, values: readonly string[]): string[] {
  for (const v of values) if (v.trim() === "") throw new Error(`empty value in ${goQuote(flag)}`);
  return values.map((v) => v.trim());
}
