// The legacy and aggregated discovery documents of the served types, encoded once and served as
// fixed bytes with content-hash ETags until the type registry changes; then they are rebuilt on
// the next request (so a new or removed type shows in discovery, and ETags move with it).
import type { TypeRegistry } from "../registry/type-registry.js";
import { groupDiscoveryList, type DiscoveryVersion } from "./aggregated.js";
import { apiGroup, apiGroupList, apiResourceList, externalApiGroup } from "./legacy.js";
import { externalGroups, mergeOrder, type ExternalDiscovery, type ExternalGroup } from "./external.js";
import { servedGroups, type ServedGroup } from "./model.js";
import { encodeJson, type Encoded } from "./serve.js";

export interface Doc {
  obj: unknown;
  json: Encoded;
}

export function doc(obj: unknown): Doc {
  return { obj, json: encodeJson(obj) };
}

export interface Aggregated {
  /** Bytes per apidiscovery version; the ETag is the v2 document's hash (as upstream). */
  bytes: Map<DiscoveryVersion, Buffer>;
  etag: string;
}

function aggregated(groups: readonly (ServedGroup | ExternalGroup)[], versions: readonly DiscoveryVersion[]): Aggregated {
  const bytes = new Map<DiscoveryVersion, Buffer>();
  let etag = "";
  for (const v of versions) {
    const enc = encodeJson(groupDiscoveryList(groups, v));
    bytes.set(v, enc.bytes);
    if (v === "v2") etag = enc.etag;
  }
  return { bytes, etag };
}

export interface DiscoverySnapshot {
  /** /apis (legacy). */
  apisDoc: Doc;
  /** /apis/{group}. */
  groupDocs: Map<string, Doc>;
  /** /api/{version} ("/v1") and /apis/{group}/{version}. */
  versionDocs: Map<string, Doc>;
  /** Aggregated /api (the core group) and /apis (every other group). */
  aggCore: Aggregated;
  aggApis: Aggregated;
}

export class DiscoveryDocuments {
  private snapshot: DiscoverySnapshot | undefined;

  constructor(
    private readonly types: TypeRegistry,
    private readonly versions: readonly DiscoveryVersion[],
    private readonly external?: ExternalDiscovery,
  ) {}

  /** The documents of the types served now (built on first use after a change). */
  current(): DiscoverySnapshot {
    return (this.snapshot ??= this.build());
  }

  /** The served types (or the external group versions) changed: the next request rebuilds. */
  invalidate(): void {
    this.snapshot = undefined;
  }

  private build(): DiscoverySnapshot {
    const groups = servedGroups(this.types);
    const core = groups.filter((g) => g.name === "");
    const named = groups.filter((g) => g.name !== "");
    const versionDocs = new Map<string, Doc>();
    for (const g of groups) for (const v of g.versions) versionDocs.set(`${g.name}/${v.version}`, doc(apiResourceList(g.name, v)));
    const groupDocs = new Map(named.map((g) => [g.name, doc(apiGroup(g, true))]));
    let all: readonly (ServedGroup | ExternalGroup)[] = named;
    if (this.external) {
      const ext = externalGroups(this.external.groupVersions(), new Set(named.map((g) => g.name)));
      for (const g of ext) groupDocs.set(g.name, doc(externalApiGroup(g, true)));
      all = mergeOrder(named, ext, (name) => this.external!.localGroupPriority(name));
    }
    return {
      apisDoc: doc(apiGroupList(all)),
      groupDocs,
      versionDocs,
      aggCore: aggregated(core, this.versions),
      aggApis: aggregated(all, this.versions),
    };
  }
}
