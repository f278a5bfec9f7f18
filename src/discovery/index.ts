// Discovery and OpenAPI serving. Every document is built and encoded once, on first use:
// the set of served types is fixed for the server's life (--runtime-config is read at start),
// so answers are pre-encoded bytes with content-hash ETags.
import { ApiError, notAcceptable } from "../apimachinery/errors.js";
import type { UserInfo } from "../authn/user.js";
import { yamlCodec } from "../encoding/codec.js";
import { parseAccept } from "../encoding/media-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { NonResourceHandler } from "../http/context.js";
import { header, type Exchange } from "../http/exchange.js";
import type { RequestInfo } from "../http/request-info.js";
import { writeError } from "../http/respond.js";
import { aggregatedContentType, groupDiscoveryList, negotiateDiscovery, type DiscoveryVersion } from "./aggregated.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from "./legacy.js";
import { servedGroups } from "./model.js";
import { apisRootDocument, coreRootDocument, groupDocument, groupVersionDocument, versionDocument } from "./openapi-v3.js";
import { encodeJson, notModified, sendBytes, sha512Hex, type Encoded } from "./serve.js";

export { storageVersionHash } from "./storage-version-hash.js";

export interface DiscoveryOptions {
  /**
   * Also answer aggregated discovery in apidiscovery.k8s.io/v2beta1 (what kubectl ≤ 1.29 asks
   * for first). kube-apiserver 1.34 stops serving it by default (feature gate
   * AggregatedDiscoveryRemoveBetaType); kapi keeps it unless told otherwise. Default true.
   */
  v2beta1?: boolean;
}

interface Doc {
  obj: unknown;
  json: Encoded;
}

function doc(obj: unknown): Doc {
  return { obj, json: encodeJson(obj) };
}

interface Aggregated {
  /** Bytes per apidiscovery version; the ETag is the v2 document's hash (as upstream). */
  bytes: Map<DiscoveryVersion, Buffer>;
  etag: string;
}

function aggregated(groups: ReturnType<typeof servedGroups>, versions: DiscoveryVersion[]): Aggregated {
  const bytes = new Map<DiscoveryVersion, Buffer>();
  let etag = "";
  for (const v of versions) {
    const enc = encodeJson(groupDiscoveryList(groups, v));
    bytes.set(v, enc.bytes);
    if (v === "v2") etag = enc.etag;
  }
  return { bytes, etag };
}

const notFoundStatus = () => new ApiError(404, "NotFound", "the server could not find the requested resource", {});
const legacyTypes = ["application/json", "application/yaml"];

export function createDiscovery(types: TypeRegistry, options: DiscoveryOptions = {}): { handler: NonResourceHandler } {
  const groups = servedGroups(types);
  const discoveryVersions = new Set<DiscoveryVersion>(options.v2beta1 === false ? ["v2"] : ["v2", "v2beta1"]);
  const core = groups.filter((g) => g.name === "");
  const named = groups.filter((g) => g.name !== "");

  // Documents are built on first use (start-up stays fast) and then served as fixed bytes.
  const legacyAndAggregated = memo(() => {
    const apisDoc = doc(apiGroupList(groups));
    const groupDocs = new Map(named.map((g) => [g.name, doc(apiGroup(g, true))]));
    const versionDocs = new Map<string, Doc>();
    for (const g of groups) for (const v of g.versions) versionDocs.set(`${g.name}/${v.version}`, doc(apiResourceList(g.name, v)));
    return { apisDoc, groupDocs, versionDocs, aggCore: aggregated(core, [...discoveryVersions]), aggApis: aggregated(named, [...discoveryVersions]) };
  });

  const hashedUrl = (key: string, hash: string) => `/openapi/v3/${key}?hash=${hash}`;
  const lastModified = new Date().toUTCString();
  // OpenAPI v3: documents keyed as the index names them, then the index pointing at hashed URLs.
  const openapiDocs = memo(() => {
    const openapi = new Map<string, Encoded>();
    openapi.set("api", encodeJson(coreRootDocument(), false));
    openapi.set("apis", encodeJson(apisRootDocument(), false));
    openapi.set("version", encodeJson(versionDocument(), false));
    for (const g of groups) {
      if (g.name) openapi.set(`apis/${g.name}`, encodeJson(groupDocument(g), false));
      for (const v of g.versions) openapi.set(g.name ? `apis/${g.name}/${v.version}` : `api/${v.version}`, encodeJson(groupVersionDocument(g.name, v), false));
    }
    const indexPaths = Object.fromEntries(
      [...openapi.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, e]) => [k, { serverRelativeURL: hashedUrl(k, e.hash) }]),
    );
    return { openapi, openapiIndex: encodeJson({ paths: indexPaths }, false) };
  });

  /** /api or /apis: aggregated when asked for, else the legacy document. */
  function serveRoot(ex: Exchange, agg: Aggregated, legacy: () => Doc): void {
    const choice = negotiateDiscovery(header(ex.headers, "accept"), discoveryVersions);
    if ("aggregated" in choice) {
      const h = { etag: agg.etag, vary: "Accept", "cache-control": "public" };
      if (notModified(ex, agg.etag, h)) return;
      sendBytes(ex, 200, agg.bytes.get(choice.aggregated)!, { "content-type": aggregatedContentType(choice.aggregated), ...h });
      return;
    }
    servePlain(ex, legacy(), choice, { vary: "Accept" });
  }

  function servePlain(ex: Exchange, d: Doc, choice = negotiateDiscovery(header(ex.headers, "accept"), new Set()), extra: Record<string, string> = {}): void {
    if ("none" in choice || "aggregated" in choice) throw notAcceptable(legacyTypes);
    const h = { etag: d.json.etag, "cache-control": "no-cache, private", ...extra };
    if (notModified(ex, d.json.etag, h)) return;
    if (choice.plain === "yaml") sendBytes(ex, 200, yamlCodec.encode(d.obj), { "content-type": "application/yaml", ...h });
    else sendBytes(ex, 200, d.json.bytes, { "content-type": "application/json", ...h });
  }

  function serveOpenAPI(ex: Exchange, key: string): void {
    const enc = openapiDocs().openapi.get(key);
    if (!enc) throw notFoundStatus();
    // JSON only: a client that accepts nothing but the protobuf form gets 406.
    const json = parseAccept(header(ex.headers, "accept")).some((m) => (m.type === "application" || m.type === "*") && (m.subtype === "json" || m.subtype === "*"));
    if (!json) throw notAcceptable(["application/json"]);
    const base = { "content-type": "application/json", etag: enc.etag, vary: "Accept" };
    const hash = ex.query.get("hash");
    if (hash && hash !== enc.hash) {
      // A stale hash: upstream answers 301 with the current hashed URL (no body).
      ex.head(301, { ...base, location: hashedUrl(key, enc.hash), "cache-control": "no-cache, private", "content-length": 0 });
      ex.end();
      return;
    }
    const h: Record<string, string> = hash
      ? { ...base, "cache-control": "public, immutable", expires: new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString(), "last-modified": lastModified }
      : { ...base, "cache-control": "no-cache, private", "last-modified": lastModified };
    if (notModified(ex, enc.etag, h)) return;
    sendBytes(ex, 200, enc.bytes, h);
  }

  function route(ex: Exchange): boolean {
    const path = ex.path.length > 1 && ex.path.endsWith("/") ? ex.path.slice(0, -1) : ex.path;
    if (path === "/api") {
      serveRoot(ex, legacyAndAggregated().aggCore, () => doc(apiVersions(serverAddress(ex))));
      return true;
    }
    if (path === "/apis") {
      const d = legacyAndAggregated();
      serveRoot(ex, d.aggApis, () => d.apisDoc);
      return true;
    }
    if (path === "/openapi/v3") {
      const { openapiIndex } = openapiDocs();
      const h = { "content-type": "application/json", etag: openapiIndex.etag, "cache-control": "no-cache, private", "last-modified": lastModified };
      if (!notModified(ex, openapiIndex.etag, h)) sendBytes(ex, 200, openapiIndex.bytes, h);
      return true;
    }
    if (path.startsWith("/openapi/v3/")) {
      serveOpenAPI(ex, path.slice("/openapi/v3/".length));
      return true;
    }
    // No OpenAPI v2: kubectl falls back to v3; JSON here would be worse than nothing.
    if (path === "/openapi/v2") throw notFoundStatus();
    const parts = path.split("/").filter((s) => s !== "");
    if (parts[0] === "api" && parts.length === 2) {
      const d = legacyAndAggregated().versionDocs.get(`/${parts[1]}`);
      if (!d) throw notFoundStatus();
      servePlain(ex, d);
      return true;
    }
    if (parts[0] === "apis" && (parts.length === 2 || parts.length === 3)) {
      const { groupDocs, versionDocs } = legacyAndAggregated();
      const d = parts.length === 2 ? groupDocs.get(parts[1]) : versionDocs.get(`${parts[1]}/${parts[2]}`);
      if (!d) throw notFoundStatus();
      servePlain(ex, d);
      return true;
    }
    return false;
  }

  const handler: NonResourceHandler = (ex: Exchange, _user: UserInfo, _info: RequestInfo) => {
    if (ex.method !== "GET" && ex.method !== "HEAD") return false;
    try {
      return route(ex);
    } catch (e) {
      writeError(ex, e);
      return true;
    }
  };
  return { handler };
}

function memo<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** host:port the request came to (HTTP/2 :authority, else Host, else the socket's local address). */
function serverAddress(ex: Exchange): string {
  const authority = header(ex.headers, ":authority") ?? header(ex.headers, "host");
  if (authority) return authority;
  const s = ex.socket;
  if (s?.localAddress) return s.localAddress.includes(":") ? `[${s.localAddress}]:${s.localPort}` : `${s.localAddress}:${s.localPort}`;
  return "";
}

export { sha512Hex };
