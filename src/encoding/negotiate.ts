// Chooses the response serializer from Accept, and the request decoder from Content-Type.
import { notAcceptable, unsupportedMediaType } from "../apimachinery/errors.js";
import type { Codec } from "./codec.js";
import { essence, parseAccept, parseMediaType, rangeMatches, type MediaType } from "./media-type.js";

export interface Target {
  as: "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList";
  group: string;
  version: string;
}

export interface Negotiated {
  codec: Codec;
  /** Set when the client asked for a transformed form (Table, metadata-only). */
  target?: Target;
}

export class CodecSet {
  private readonly byType = new Map<string, Codec>();
  constructor(codecs: Codec[]) {
    for (const c of codecs) this.byType.set(c.mediaType, c);
  }
  get(mediaType: string): Codec | undefined {
    return this.byType.get(mediaType);
  }
  types(): string[] {
    return [...this.byType.keys()];
  }
  with(codec: Codec): CodecSet {
    return new CodecSet([...this.byType.values(), codec]);
  }
  private readonly narrowed = new Map<string, CodecSet>();
  /** The same set minus one media type (made once: types without a protobuf form ask per request). */
  without(mediaType: string): CodecSet {
    let set = this.narrowed.get(mediaType);
    if (!set) this.narrowed.set(mediaType, (set = new CodecSet([...this.byType.values()].filter((c) => c.mediaType !== mediaType))));
    return set;
  }
}

const tableVersions = new Set(["v1", "v1beta1"]);

/**
 * `transforms` says which `as=` targets this endpoint can produce (Table for get/list/watch of
 * resources; none for discovery or errors). `onlyJsonFor` restricts transformed output to JSON
 * (upstream serves Table only as JSON/YAML).
 */
export function negotiateOutput(accept: string | undefined, codecs: CodecSet, transforms: ReadonlySet<Target["as"]> = new Set()): Negotiated {
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    const as = r.params["as"];
    if (as) {
      if (!transforms.has(as as Target["as"])) continue;
      if ((r.params["g"] ?? "") !== "meta.k8s.io" || !tableVersions.has(r.params["v"] ?? "")) continue;
      const codec = pick(r, codecs, true);
      if (codec) return { codec, target: { as: as as Target["as"], group: "meta.k8s.io", version: r.params["v"] } };
      continue;
    }
    const codec = pick(r, codecs, false);
    if (codec) return { codec };
  }
  throw notAcceptable(codecs.types());
}

function pick(r: MediaType, codecs: CodecSet, transformed: boolean): Codec | undefined {
  if (r.type === "*" && r.subtype === "*") return codecs.get("application/json");
  if (r.subtype === "*") return r.type === "application" ? codecs.get("application/json") : undefined;
  const c = codecs.get(essence(r));
  if (!c) return undefined;
  // Table and metadata-only forms are JSON and YAML only (upstream serves no protobuf or CBOR Table).
  if (transformed && c.mediaType !== "application/json" && c.mediaType !== "application/yaml") return undefined;
  return c;
}

/** The decoder for a request body; no Content-Type means JSON (as upstream). */
export function negotiateInput(contentType: string | undefined, codecs: CodecSet): Codec {
  if (!contentType) return codecs.get("application/json")!;
  const mt = parseMediaType(contentType);
  const c = mt ? codecs.get(essence(mt)) : undefined;
  if (!c) throw unsupportedMediaType(codecs.types());
  return c;
}

export { rangeMatches };
