// OpenAPI v3 documents of the served types, keyed as the index names them ("api/v1",
// "apis/apps/v1", "apis/apps", ...). Each is built and encoded on first use; a change in the
// type registry drops only the documents of the group-version it touches (and the index, whose
// hashed URLs then move), as upstream rebuilds the spec of a changed group-version alone.
import type { DefinitionLookup } from "../apimachinery/schema.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeEvent, TypeRegistry } from "../registry/type-registry.js";
import { servedGroups } from "./model.js";
import { apisRootDocument, coreRootDocument, groupDocument, groupVersionDocument, openapiInfo, versionDocument } from "./openapi-v3.js";
import { openapiV2Document } from "./openapi-v2.js";
import { encodeOpenAPIV2Proto } from "./openapi-v2-proto.js";
import { encodeJson, sha512Hex, type Encoded } from "./serve.js";

export interface OpenAPIDocument {
  enc: Encoded;
  /** When this document was built (its Last-Modified). */
  lastModified: string;
}

function groupKey(group: string): string {
  return `apis/${group}`;
}

function groupVersionKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** /openapi/v2 in its two encodings. */
export interface OpenAPIV2Document {
  json: Encoded;
  proto: Encoded;
  lastModified: string;
}

export class OpenAPIDocuments {
  private readonly built = new Map<string, OpenAPIDocument>();
  private v2: OpenAPIV2Document | undefined;
  /** Every document the served types call for, by key, with how to make it. */
  private layout: Map<string, () => unknown> | undefined;
  private index: OpenAPIDocument | undefined;

  constructor(
    private readonly types: TypeRegistry,
    private readonly metaDefinitions: DefinitionLookup,
  ) {}

  /** The document with this key, or undefined when no served type calls for it. */
  get(key: string): OpenAPIDocument | undefined {
    const make = this.documents().get(key);
    if (!make) return undefined;
    let d = this.built.get(key);
    if (!d) this.built.set(key, (d = { enc: encodeJson(make(), false), lastModified: new Date().toUTCString() }));
    return d;
  }

  /** /openapi/v3: every key with its hashed URL (builds every document). */
  indexDocument(hashedUrl: (key: string, hash: string) => string, external: Readonly<Record<string, string>> = {}): OpenAPIDocument {
    if (!this.index) {
      const ours = [...this.documents().keys()];
      // Another server's documents are listed at the URLs it gave (their hash is its own).
      const keys = [...new Set([...ours, ...Object.keys(external)])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const url = (k: string) => (this.documents().has(k) ? hashedUrl(k, this.get(k)!.enc.hash) : external[k]!);
      const paths = Object.fromEntries(keys.map((k) => [k, { serverRelativeURL: url(k) }]));
      this.index = { enc: encodeJson({ paths }, false), lastModified: new Date().toUTCString() };
    }
    return this.index;
  }

  /**
   * /openapi/v2: one document of everything served, derived from the v3 documents (built on
   * first use; any type change drops it, as upstream's v2 spec is rebuilt whole).
   */
  v2Document(): OpenAPIV2Document {
    if (!this.v2) {
      const doc = openapiV2Document([...this.documents().values()].map((make) => make() as Record<string, unknown>), openapiInfo);
      const proto = encodeOpenAPIV2Proto(doc);
      const protoHash = sha512Hex(proto);
      this.v2 = { json: encodeJson(doc, false), proto: { bytes: Buffer.from(proto), hash: protoHash, etag: `"${protoHash}"` }, lastModified: new Date().toUTCString() };
    }
    return this.v2;
  }

  /** The external documents changed: the index is built again on its next request. */
  dropIndex(): void {
    this.index = undefined;
  }

  /** A type came, changed or went: drop what depends on its group-version. */
  invalidate(event: TypeEvent): void {
    this.layout = undefined;
    this.index = undefined;
    this.v2 = undefined;
    const touched: ResourceType[] = event.type === "updated" ? [event.resource, event.previous] : [event.resource];
    for (const t of touched) {
      this.built.delete(groupVersionKey(t.group, t.version));
      if (t.group) this.built.delete(groupKey(t.group));
    }
  }

  private documents(): Map<string, () => unknown> {
    if (this.layout) return this.layout;
    const meta = this.metaDefinitions;
    const layout = new Map<string, () => unknown>([
      ["api", () => coreRootDocument(meta)],
      ["apis", () => apisRootDocument(meta)],
      ["version", () => versionDocument(meta)],
    ]);
    for (const g of servedGroups(this.types)) {
      if (g.name) layout.set(groupKey(g.name), () => groupDocument(g, meta));
      for (const v of g.versions) layout.set(groupVersionKey(g.name, v.version), () => groupVersionDocument(g.name, v, meta));
    }
    return (this.layout = layout);
  }
}
