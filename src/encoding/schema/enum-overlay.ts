// Lays the enum values of src/types/generated/enums.json over the structural schemas of
// schemas.json. The two tables come from different upstream sources (the OpenAPI document has no
// enums; the Go packages' +enum types do), so they are generated apart and joined here, once.
import type { SchemaNode } from "../../apimachinery/schema.js";

/** Where enum values go inside one definition: the same shape as the schema, sparse. */
export interface EnumOverlay {
  readonly enum?: readonly string[];
  readonly properties?: Readonly<Record<string, EnumOverlay>>;
  readonly items?: EnumOverlay;
  readonly additionalProperties?: EnumOverlay;
}

/**
 * The schema node with the overlay's enum values in place. Only the nodes on the overlay's
 * paths are copied; the rest is shared with the input. A path the schema lacks is a stale
 * table, and says so.
 */
export function withEnums(node: SchemaNode, overlay: EnumOverlay, where: string): SchemaNode {
  const out: { -readonly [K in keyof SchemaNode]: SchemaNode[K] } = { ...node };
  if (overlay.enum) out.enum = overlay.enum;
  if (overlay.properties) {
    const properties = { ...node.properties };
    for (const [name, sub] of Object.entries(overlay.properties)) {
      const prop = properties[name];
      if (!prop) throw new Error(`enums.json: ${where} has no property ${name}: run npm run generate`);
      properties[name] = withEnums(prop, sub, `${where}.${name}`);
    }
    out.properties = properties;
  }
  for (const key of ["items", "additionalProperties"] as const) {
    const sub = overlay[key];
    if (!sub) continue;
    const inner = node[key];
    if (typeof inner !== "object") throw new Error(`enums.json: ${where} has no ${key}: run npm run generate`);
    out[key] = withEnums(inner, sub, `${where}.${key}`);
  }
  return out;
}
