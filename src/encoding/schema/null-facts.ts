// What a JSON null in a field of a built-in type becomes: src/types/generated/nulls.json, made by
// scripts/null-facts.mjs from the Go types. Upstream decodes every body into its Go struct (a null
// leaves the field at its zero value) and stores and serves that struct encoded again, so
// `"env": null` is never read back, `"resources": null` reads back `{}`, and a pod template's
// `"creationTimestamp": null` (what clients built before 1.33 send) is left out. The same zero
// values are what a struct field reset by the server holds (a created object's status).
import { lazyText } from "./generated-table.js";

/** "omit": the field is left out; `zero`: it holds that value (a struct's or scalar's zero value, encoded). */
export type NullRule = "omit" | { readonly zero: unknown };

type Rules = Readonly<Record<string, NullRule>>;

const nullsText = lazyText("nulls.json");
/** Per definition, parsed when first asked for (undefined: none listed). */
const parsed = new Map<string, Rules | undefined>();

function rulesOf(definition: string): Rules | undefined {
  if (parsed.has(definition)) return parsed.get(definition);
  // scripts/generate-schemas.mjs writes one definition a line: `"<name>":{"properties":{...}},`.
  const text = nullsText();
  const key = `\n${JSON.stringify(definition)}:`;
  const at = text.indexOf(key);
  let rules: Rules | undefined;
  if (at >= 0) {
    const end = text.indexOf("\n", at + key.length);
    const line = text.slice(at + key.length, end);
    rules = (JSON.parse(line.endsWith(",") ? line.slice(0, -1) : line) as { properties: Rules }).properties;
  }
  parsed.set(definition, rules);
  return rules;
}

/** What a null in `field` of the definition becomes; undefined where it stays null (or the definition is not a built-in one). */
export function nullRule(definition: string, field: string): NullRule | undefined {
  return rulesOf(definition)?.[field];
}

/** The zero value Go encodes for `field` of the definition, when the field is a struct or scalar held by value. */
export function zeroValue(definition: string, field: string): unknown {
  const rule = nullRule(definition, field);
  return rule === undefined || rule === "omit" ? undefined : structuredClone(rule.zero);
}
