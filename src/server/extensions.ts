// The parts of the request path that live in their own folders (discovery, OpenAPI, protobuf),
// plugged in here so start.ts stays the one assembly point.
import type { Codec } from "../encoding/codec.js";
import type { ServerParts } from "../handlers/context.js";
import type { NonResourceHandler } from "./dispatch.js";

export function extraCodecs(): Codec[] {
  return [];
}

export function extraNonResourceHandlers(_parts: ServerParts): NonResourceHandler[] {
  return [];
}
