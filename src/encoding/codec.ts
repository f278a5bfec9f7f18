// Serializers for whole objects, keyed by media type. A codec turns a plain JSON value into
// bytes and back; framing of watch streams is the codec's concern too.
import { yaml } from "./yaml-lazy.js";
import { parseJson } from "./json.js";
import { DecodeError } from "./decode-error.js";

export interface Codec {
  mediaType: string;
  encode(obj: unknown, pretty?: boolean): Buffer;
  decode(body: Buffer): unknown;
  /** Bytes of one watch event {type, object} in this codec's stream framing. */
  encodeWatchEvent(type: string, object: unknown): Buffer;
  /** The Content-Type of a watch stream in this codec. */
  streamContentType: string;
}

export { DecodeError };

export const jsonCodec: Codec = {
  mediaType: "application/json",
  encode(obj, pretty) {
    return Buffer.from(pretty ? JSON.stringify(obj, null, 2) + "\n" : JSON.stringify(obj) + "\n");
  },
  decode(body) {
    return parseJson(body);
  },
  encodeWatchEvent(type, object) {
    return Buffer.from(`{"type":${JSON.stringify(type)},"object":${JSON.stringify(object)}}\n`);
  },
  streamContentType: "application/json",
};

export const yamlCodec: Codec = {
  mediaType: "application/yaml",
  encode(obj) {
    return Buffer.from(yaml().stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false }));
  },
  decode(body) {
    const docs = yaml().parseAllDocuments(body.toString("utf8"), { uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [docs];
    const real = list.filter((d) => d.contents !== null);
    if (real.length === 0) return {};
    const doc = real[0];
    if (doc.errors.length > 0) throw new DecodeError(doc.errors[0].message);
    return doc.toJS({ maxAliasCount: 100 });
  },
  encodeWatchEvent(type, object) {
    return Buffer.from("---\n" + yaml().stringify({ type, object }, { lineWidth: 0 }));
  },
  streamContentType: "application/yaml",
};
