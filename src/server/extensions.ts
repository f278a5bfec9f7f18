// The parts of the request path that live in their own folders (discovery, OpenAPI, protobuf),
// plugged in here so start.ts stays the one assembly point.
import type { Codec } from "../encoding/codec.js";
import { protobufCodec } from "../encoding/protobuf/index.js";
import type { ServerParts } from "../handlers/context.js";
import { builtinSchema } from "../types/register.js";
import type { NonResourceHandler } from "../http/context.js";

export function extraCodecs(): Codec[] {
  return [protobufCodec];
}

export function extraNonResourceHandlers(parts: ServerParts): NonResourceHandler[] {
  // Discovery is loaded with its first request, keeping it off the start-up path. v2beta1
  // aggregated discovery stays served unless the removal gate is on: kubectl 1.27–1.29 ask for it.
  let discovery: Promise<NonResourceHandler> | undefined;
  const options = { v2beta1: !parts.gates.enabled("AggregatedDiscoveryRemoveBetaType"), metaDefinitions: builtinSchema.definition };
  const load = () => (discovery ??= import("../discovery/index.js").then(({ createDiscovery }) => createDiscovery(parts.types, options).handler));
  return [async (ex, user, info) => (await load())(ex, user, info)];
}
