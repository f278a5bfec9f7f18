// The encodings a request's type can be answered and read in. Types without a protobuf form
// (custom resources) negotiate without it, so a client that accepts only protobuf gets 406 and
// a protobuf body gets 415, as upstream answers for custom resources.
import type { CodecSet } from "../encoding/negotiate.js";
import type { ResourceRequest } from "./context.js";

const protobufMediaType = "application/vnd.kubernetes.protobuf";

export function codecsFor(r: ResourceRequest): CodecSet {
  return r.type.protobuf ? r.parts.codecs : r.parts.codecs.without(protobufMediaType);
}
