// Discovery and OpenAPI serving. Documents are built and encoded on first use and served as
// pre-encoded bytes with content-hash ETags; they follow the type registry: every add, update or
// remove invalidates what it touches, and the next request rebuilds it.
import { ApiError, notAcceptable } from "../apimachinery/errors.js";
import type { DefinitionLookup } from "../apimachinery/schema.js";
import type { UserInfo } from "../apimachinery/user.js";
import { yamlCodec } from "../encoding/codec.js";
import { parseAccept } from "../encoding/media-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { NonResourceHandler } from "../http/context.js";
import { header, type Exchange } from "../http/exchange.js";
import type { RequestInfo } from "../http/request-info.js";
import { aggregatedContentType, negotiateDiscovery, type DiscoveryVersion } from "./aggregated.js";
import { DiscoveryDocuments, doc, type Aggregated, type Doc } from "./discovery-documents.js";
import { apiVersions } from "./legacy.js";
import type { ExternalDiscovery } from "./external.js";
import { OpenAPIDocuments } from "./openapi-documents.js";
import { notModified, sendBytes, sha512Hex } from "./serve.js";

export { storageVersionHash } from "./storage-version-hash.js";

export interface DiscoveryOptions {
  /**
   * Also answer aggregated discovery in apidiscovery.k8s.io/v2beta1 (what kubectl ≤ 1.29 asks
   * for first). kube-apiserver 1.34 stops serving it by default (feature gate
   * AggregatedDiscoveryRemoveBetaType); kapi keeps it unless told otherwise. Default true.
   */
  v2beta1?: boolean;
  /**
   * Definitions of the meta/v1 kinds (APIResourceList, Status, WatchEvent, ...) and version.Info
   * that every OpenAPI document carries. Default: none (documents then lack those schemas).
   */
  metaDefinitions?: DefinitionLookup;
  /** Group versions other servers serve behind this one (the aggregator's), listed with ours. */
  external?: ExternalDiscovery;
}

const notFoundStatus = () => new ApiError(404, "NotFound", "the server could not find the requested resource", {});
const legacyTypes = ["application/json", "application/yaml"];

export interface Discovery {
  handler: NonResourceHandler;
  /** Stops following the type registry. */
  stop(): void;
}

const openapiV2ProtoType = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/** The protobuf form's subtypes, current and legacy. */
const openapiV2ProtoSubtypes = new Set(["com.github.proto-openapi.spec.v2@v1.0+protobuf", "com.github.proto-openapi.spec.v2.v1.0+protobuf"]);

export function createDiscovery(types: TypeRegistry, options: DiscoveryOptions = {}): Discovery {
  const discoveryVersions = new Set<DiscoveryVersion>(options.v2beta1 === false ? ["v2"] : ["v2", "v2beta1"]);
  const documents = new DiscoveryDocuments(types, [...discoveryVersions], options.external);
  const openapi = new OpenAPIDocuments(types, options.metaDefinitions ?? (() => undefined));
  const unsubscribeTypes = types.subscribe((event) => {
    documents.invalidate();
    openapi.invalidate(event);
  });
  const unsubscribeExternal = options.external?.subscribe(() => {
    documents.invalidate();
    openapi.dropIndex();
  });
  const unsubscribe = () => {
    unsubscribeTypes();
    unsubscribeExternal?.();
  };
  const hashedUrl = (key: string, hash: string) => `/openapi/v3/${key}?hash=${hash}`;

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
    const d = openapi.get(key);
    if (!d) throw notFoundStatus();
    const { enc, lastModified } = d;
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

  /** /openapi/v2 as JSON, or as gnostic protobuf (what client-go asks for). */
  function serveOpenAPIV2(ex: Exchange): void {
    const accepted = parseAccept(header(ex.headers, "accept") || "application/json");
    const wantsProto = accepted.some((m) => m.type === "application" && openapiV2ProtoSubtypes.has(m.subtype));
    const json = accepted.some((m) => (m.type === "application" || m.type === "*") && (m.subtype === "json" || m.subtype === "*"));
    if (!wantsProto && !json) throw notAcceptable(["application/json", openapiV2ProtoType]);
    const d = openapi.v2Document();
    const enc = wantsProto ? d.proto : d.json;
    // The protobuf form is answered as octet-stream: Go's mime parser refuses the "@" of its name.
    const h: Record<string, string> = { "content-type": wantsProto ? "application/octet-stream" : "application/json", etag: enc.etag, vary: "Accept", "cache-control": "no-cache, private", "last-modified": d.lastModified };
    if (notModified(ex, enc.etag, h)) return;
    sendBytes(ex, 200, enc.bytes, h);
  }

  function route(ex: Exchange): boolean {
    const path = ex.path.length > 1 && ex.path.endsWith("/") ? ex.path.slice(0, -1) : ex.path;
    if (path === "/api") {
      serveRoot(ex, documents.current().aggCore, () => doc(apiVersions(serverAddress(ex))));
      return true;
    }
    if (path === "/apis") {
      const d = documents.current();
      serveRoot(ex, d.aggApis, () => d.apisDoc);
      return true;
    }
    if (path === "/openapi/v3") {
      const { enc, lastModified } = openapi.indexDocument(hashedUrl, options.external?.openapiPaths());
      const h = { "content-type": "application/json", etag: enc.etag, "cache-control": "no-cache, private", "last-modified": lastModified };
      if (!notModified(ex, enc.etag, h)) sendBytes(ex, 200, enc.bytes, h);
      return true;
    }
    if (path.startsWith("/openapi/v3/")) {
      serveOpenAPI(ex, path.slice("/openapi/v3/".length));
      return true;
    }
    if (path === "/openapi/v2") {
      serveOpenAPIV2(ex);
      return true;
    }
    const parts = path.split("/").filter((s) => s !== "");
    if (parts[0] === "api" && parts.length === 2) {
      const d = documents.current().versionDocs.get(`/${parts[1]}`);
      if (!d) throw notFoundStatus();
      servePlain(ex, d);
      return true;
    }
    if (parts[0] === "apis" && (parts.length === 2 || parts.length === 3)) {
      const { groupDocs, versionDocs } = documents.current();
      const d = parts.length === 2 ? groupDocs.get(parts[1]) : versionDocs.get(`${parts[1]}/${parts[2]}`);
      if (!d) throw notFoundStatus();
      servePlain(ex, d);
      return true;
    }
    return false;
  }

  const handler: NonResourceHandler = (ex: Exchange, _user: UserInfo, _info: RequestInfo) => {
    if (ex.method !== "GET" && ex.method !== "HEAD") return false;
    return route(ex); // errors go up to the chain's recovery filter, like every other error
  };
  return { handler, stop: unsubscribe };
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
