// What a JSON null in a field of a built-in type becomes: src/types/generated/nulls.json, made by
// scripts/null-facts.mjs from the Go types. Upstream decodes every body into its Go struct (a null
// leaves the field at its zero value) and stores and serves that struct encoded again, so
// `"env": null` is never read back, `"resources": null` reads back `{}`, and a pod template's
// `"creationTimestamp": null` (what clients built before 1.33 send) is left out.
import { lazyTable } from "./generated-table.js";

/** "omit": the field is left out; `zero`: it holds that value (a struct's or scalar's zero value, encoded). */
export type NullRule = "omit" | { readonly zero: unknown };

interface NullsFile {
  readonly definitions: Readonly<Record<string, { readonly properties: Readonly<Record<string, NullRule>> }>>;
}

// Read on the first null a body carries: most never carry one.
const nullsFile = lazyTable<NullsFile>("nulls.json");

/** What a null in `field` of the definition becomes; undefined where it stays null (or the definition is not a built-in one). */
export function nullRule(definition: string, field: string): NullRule | undefined {
  return nullsFile().definitions[definition]?.properties[field];
}
