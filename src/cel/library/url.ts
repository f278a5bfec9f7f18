// The Kubernetes URL library (k8s.io/apiserver/pkg/cel/library, urls; always on): url(),
// isURL(), getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery. A string is a URL
// when Go's url.ParseRequestURI accepts it (an absolute URI or an absolute path); the value is
// then what url.Parse makes of it (fragment split off). This module mirrors Go's net/url parsing,
// escaping and error texts (Go 1.24).
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, listOf, mapOf, opaque, StringType } from "../types.js";
import { CelMap, type CelOpaque, type CelValue } from "../value.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { celError, nominalCost, stringParseCost } from "./k8s-common.js";

export const URLType = opaque("kubernetes.URL");

type Mode = "path" | "pathSegment" | "host" | "zone" | "userPassword" | "queryComponent" | "fragment";

class UrlParseError extends Error {}
const fail = (msg: string): never => {
  throw new UrlParseError(msg);
};

const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** Go's url.shouldEscape for one byte. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === "host" || mode === "zone") {
    switch (String.fromCharCode(c)) {
      case "!": case "$": case "&": case "'": case "(": case ")": case "*": case "+": case ",": case ";":
      case "=": case ":": case "[": case "]": case "<": case ">": case '"':
        return false;
    }
  }
  switch (String.fromCharCode(c)) {
    case "-": case "_": case ".": case "~":
      return false;
    case "$": case "&": case "+": case ",": case "/": case ":": case ";": case "=": case "?": case "@":
      switch (mode) {
        case "path":
          return c === 63; // ?
        case "pathSegment":
          return c === 47 || c === 59 || c === 44 || c === 63;
        case "userPassword":
          return c === 64 || c === 47 || c === 63 || c === 58;
        case "queryComponent":
          return true;
        case "fragment":
          return false;
      }
  }
  if (mode === "fragment") {
    switch (String.fromCharCode(c)) {
      case "!": case "(": case ")": case "*":
        return false;
    }
  }
  return true;
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const unhex = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 ? c - 87 : c - 55);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Go's url.unescape; fails with Go's EscapeError / InvalidHostError texts. */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      n++;
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        fail("invalid URL escape " + goQuote(s.slice(i, i + 3)));
      }
      const v = (unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2));
      if (mode === "host" && unhex(s.charCodeAt(i + 1)) < 8 && s.slice(i, i + 3) !== "%25") {
        fail("invalid URL escape " + goQuote(s.slice(i, i + 3)));
      }
      if (mode === "zone" && s.slice(i, i + 3) !== "%25" && v !== 32 && shouldEscape(v, "host")) {
        fail("invalid URL escape " + goQuote(s.slice(i, i + 3)));
      }
      i += 3;
    } else if (c === 43) {
      hasPlus = mode === "queryComponent";
      i++;
    } else {
      if ((mode === "host" || mode === "zone") && c < 0x80 && shouldEscape(c, mode)) {
        fail(`invalid character ${goQuote(s[i]!)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const bytes = encoder.encode(s);
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 37) {
      out.push((unhex(bytes[i + 1]!) << 4) | unhex(bytes[i + 2]!));
      i += 2;
    } else if (c === 43) out.push(mode === "queryComponent" ? 32 : 43);
    else out.push(c);
  }
  return decoder.decode(new Uint8Array(out));
}

const HEX = "0123456789ABCDEF";

/** Go's url.escape over the UTF-8 bytes. */
function escape(s: string, mode: Mode): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || shouldEscape(c, mode)) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  let out = "";
  for (const c of encoder.encode(s)) {
    if (shouldEscape(c, mode)) {
      if (c === 32 && mode === "queryComponent") out += "+";
      else out += "%" + HEX[c >> 4] + HEX[c & 15];
    } else out += String.fromCharCode(c);
  }
  return out;
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  for (let i = 1; i < port.length; i++) {
    const c = port.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function validUserinfo(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (isAlnum(c)) continue;
    if ("-._:~!$&'()*+,;=%@".includes(ch)) continue;
    return false;
  }
  return true;
}

/** The parts of a Go *url.URL that the library reads or that String() prints. */
interface ParsedURL {
  scheme: string;
  opaque: string;
  user?: { username: string; password?: string };
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) continue;
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === 58) {
      if (i === 0) fail("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) fail("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) fail(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) {
      return unescape(host.slice(0, zone), "host") + unescape(host.slice(zone, i), "zone") + unescape(host.slice(i), "host");
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) fail(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, "host");
}

function parseAuthority(authority: string, u: ParsedURL): void {
  const i = authority.lastIndexOf("@");
  u.host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return;
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) fail("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) u.user = { username: unescape(userinfo, "userPassword") };
  else {
    u.user = {
      username: unescape(userinfo.slice(0, colon), "userPassword"),
      password: unescape(userinfo.slice(colon + 1), "userPassword"),
    };
  }
}

function setPath(u: ParsedURL, p: string): void {
  u.path = unescape(p, "path");
  u.rawPath = escape(u.path, "path") === p ? "" : p;
}

/** Go's url.parse(rawURL, viaRequest). */
function parse(rawURL: string, viaRequest: boolean): ParsedURL {
  for (let i = 0; i < rawURL.length; i++) {
    const c = rawURL.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) fail("net/url: invalid control character in URL");
  }
  if (rawURL === "" && viaRequest) fail("empty url");
  const u: ParsedURL = {
    scheme: "",
    opaque: "",
    host: "",
    path: "",
    rawPath: "",
    omitHost: false,
    forceQuery: false,
    rawQuery: "",
    fragment: "",
    rawFragment: "",
  };
  if (rawURL === "*") {
    u.path = "*";
    return u;
  }
  let [scheme, rest] = getScheme(rawURL);
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) fail("invalid URI for request");
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) fail("first path segment in URL cannot contain colon");
  }
  if ((u.scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const i = authority.indexOf("/");
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    parseAuthority(authority, u);
  } else if (u.scheme !== "" && rest.startsWith("/")) {
    u.omitHost = true;
  }
  setPath(u, rest);
  return u;
}

/** Go's url.Error text: `parse "<url>": <err>`. */
const urlError = (url: string, e: UrlParseError): string => `parse ${goQuote(url)}: ${e.message}`;

/** Go's url.ParseRequestURI; returns the error text or undefined. */
export function parseRequestURIError(raw: string): string | undefined {
  try {
    parse(raw, true);
    return undefined;
  } catch (e) {
    if (e instanceof UrlParseError) return urlError(raw, e);
    throw e;
  }
}

/** Go's url.Parse (fragment split off first). */
function parseURL(raw: string): ParsedURL {
  const hash = raw.indexOf("#");
  const head = hash < 0 ? raw : raw.slice(0, hash);
  let u: ParsedURL;
  try {
    u = parse(head, false);
  } catch (e) {
    if (e instanceof UrlParseError) throw new UrlParseError(urlError(head, e));
    throw e;
  }
  if (hash >= 0) {
    const frag = raw.slice(hash + 1);
    try {
      u.fragment = unescape(frag, "fragment");
    } catch (e) {
      if (e instanceof UrlParseError) throw new UrlParseError(urlError(raw, e));
      throw e;
    }
    u.rawFragment = escape(u.fragment, "fragment") === frag ? "" : frag;
  }
  return u;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if ("!$&'()*+,;=:@[]%".includes(ch)) continue;
    const c = s.charCodeAt(i);
    if (c >= 0x80 || shouldEscape(c, mode)) return false;
  }
  return true;
}

function escapedOf(raw: string, decoded: string, mode: Mode): string {
  if (raw !== "" && validEncoded(raw, mode)) {
    try {
      if (unescape(raw, mode) === decoded) return raw;
    } catch {
      // fall through to escaping
    }
  }
  return escape(decoded, mode);
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = "";
  const colon = host.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return [host, port];
}

/** A kubernetes.URL value. */
export class URLValue implements CelOpaque {
  readonly celType = URLType;
  constructor(private readonly u: ParsedURL) {}

  get scheme(): string {
    return this.u.scheme;
  }
  get host(): string {
    return this.u.host;
  }
  hostname(): string {
    return splitHostPort(this.u.host)[0];
  }
  port(): string {
    return splitHostPort(this.u.host)[1];
  }
  /** Go's URL.EscapedPath. */
  escapedPath(): string {
    if (this.u.path === "*" && this.u.rawPath === "") return "*";
    return escapedOf(this.u.rawPath, this.u.path, "path");
  }
  /** Go's URL.Query(): repeated keys collect values; malformed pairs are skipped. */
  query(): CelMap {
    const m = new Map<string, string[]>();
    let query = this.u.rawQuery;
    while (query !== "") {
      const amp = query.indexOf("&");
      let key = amp < 0 ? query : query.slice(0, amp);
      query = amp < 0 ? "" : query.slice(amp + 1);
      if (key.includes(";") || key === "") continue;
      const eq = key.indexOf("=");
      let value = "";
      if (eq >= 0) {
        value = key.slice(eq + 1);
        key = key.slice(0, eq);
      }
      try {
        key = unescape(key, "queryComponent");
        value = unescape(value, "queryComponent");
      } catch {
        continue;
      }
      const list = m.get(key);
      if (list) list.push(value);
      else m.set(key, [value]);
    }
    return CelMap.fromEntries(m.entries());
  }
  /** Go's URL.String (upstream compares URLs by it). */
  toString(): string {
    const u = this.u;
    let out = "";
    if (u.scheme !== "") out += u.scheme + ":";
    if (u.opaque !== "") out += u.opaque;
    else {
      if (u.scheme !== "" || u.host !== "" || u.user) {
        if (!(u.omitHost && u.host === "" && !u.user)) {
          if (u.host !== "" || u.path !== "" || u.user) out += "//";
          if (u.user) {
            out += escape(u.user.username, "userPassword");
            if (u.user.password !== undefined) out += ":" + escape(u.user.password, "userPassword");
            out += "@";
          }
          if (u.host !== "") out += escape(u.host, "host");
        }
      }
      const path = this.escapedPath();
      if (path !== "" && path[0] !== "/" && u.host !== "") out += "/";
      if (out === "") {
        const slash = path.indexOf("/");
        if ((slash < 0 ? path : path.slice(0, slash)).includes(":")) out += "./";
      }
      out += path;
    }
    if (u.forceQuery || u.rawQuery !== "") out += "?" + u.rawQuery;
    if (u.fragment !== "") out += "#" + escapedOf(u.rawFragment, u.fragment, "fragment");
    return out;
  }
  equals(other: CelOpaque): boolean {
    return other instanceof URLValue && this.toString() === other.toString();
  }
}

/** url(string): throws CelEvalError with upstream's text. */
export function parseCelURL(s: string): URLValue {
  const err = parseRequestURIError(s);
  if (err !== undefined) celError(`URL parse error during conversion from string: ${err}`);
  try {
    return new URLValue(parseURL(s));
  } catch (e) {
    if (e instanceof UrlParseError) celError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

const asURL = (v: CelValue): URLValue => v as unknown as URLValue;

export const urlsLibrary: CelLibrary = {
  name: "kubernetes.urls",
  functions: [
    // upstream's estimator applies the string traversal to url() (and sets the result size)
    { name: "url", overloads: [overload("string_to_url", [StringType], URLType, ([s]) => parseCelURL(s as string), { cost: stringParseCost(0, true) })] },
    { name: "getScheme", overloads: [memberOverload("url_get_scheme", [URLType], StringType, ([u]) => asURL(u!).scheme, { cost: nominalCost })] },
    { name: "getHost", overloads: [memberOverload("url_get_host", [URLType], StringType, ([u]) => asURL(u!).host, { cost: nominalCost })] },
    { name: "getHostname", overloads: [memberOverload("url_get_hostname", [URLType], StringType, ([u]) => asURL(u!).hostname(), { cost: nominalCost })] },
    { name: "getPort", overloads: [memberOverload("url_get_port", [URLType], StringType, ([u]) => asURL(u!).port(), { cost: nominalCost })] },
    { name: "getEscapedPath", overloads: [memberOverload("url_get_escaped_path", [URLType], StringType, ([u]) => asURL(u!).escapedPath(), { cost: nominalCost })] },
    {
      name: "getQuery",
      overloads: [memberOverload("url_get_query", [URLType], mapOf(StringType, listOf(StringType)), ([u]) => asURL(u!).query(), { cost: nominalCost })],
    },
    // isURL has no entry in upstream's cost estimator: cel-go's default of 1
    { name: "isURL", overloads: [overload("is_url_string", [StringType], BoolType, ([s]) => parseRequestURIError(s as string) === undefined)] },
  ],
};
