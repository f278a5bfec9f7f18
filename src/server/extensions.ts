// The parts of the request path that live in their own folders (discovery, OpenAPI, protobuf),
// plugged in here so start.ts stays the one assembly point.
import { createDiscovery } from "../discovery/index.js";
import type { Codec } from "../encoding/codec.js";
import { protobufCodec } from "../encoding/protobuf/index.js";
import type { ServerParts } from "../handlers/context.js";
import type { NonResourceHandler } from "./dispatch.js";

export function extraCodecs(): Codec[] {
  return [protobufCodec];
}

export function extraNonResourceHandlers(parts: ServerParts): NonResourceHandler[] {
  // v2beta1 aggregated discovery stays served unless the removal gate is turned on: kubectl
  // 1.27–1.29 ask for it.
  const discovery = createDiscovery(parts.types, { v2beta1: !parts.gates.enabled("AggregatedDiscoveryRemoveBetaType") });
  return [discovery.handler];
}
