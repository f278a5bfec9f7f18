// The write strategy of one served version of a custom resource: structural defaulting, schema
// validation and CEL rules (through the schema and rules modules), generation as upstream (with a
// status subresource only spec-side changes bump it; without one every non-metadata change does),
// and the version's selectable fields. Metadata rules are the generic store's, as for built-ins.
import type { FieldError } from "../apimachinery/validation.js";
import type { KObject } from "../apimachinery/object.js";
import { strategy, type Strategy, type StrategyContext } from "../registry/strategy.js";
import type { RulesValidator } from "./validation-rules.js";
import { applyDefaults, validateObject, type JSONSchemaProps } from "./custom-resource-schema.js";
import { findValues, parseJsonPath } from "./custom-resource-printer.js";

/** What evaluates x-kubernetes-validations (src/apiextensions/validation-rules.ts). */
export type { RulesValidator };

export interface CustomResourceStrategyOptions {
  schema?: JSONSchemaProps;
  hasStatus: boolean;
  rules?: RulesValidator;
  /** The version's selectableFields (`.spec.color`). */
  selectableFields?: readonly string[];
}

/** Field selector values of the declared selectable fields: scalars as text, "" when absent. */
export function selectableFieldValues(paths: readonly string[]): (obj: KObject) => Record<string, string> {
  const parsed = paths.map((p) => ({ name: p.replace(/^\./, ""), steps: parseJsonPath(p) }));
  return (obj) => {
    const out: Record<string, string> = {};
    for (const f of parsed) {
      const v = findValues(obj, f.steps)[0];
      out[f.name] = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "";
    }
    return out;
  };
}

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function customResourceStrategy(o: CustomResourceStrategyOptions): Strategy {
  const schema = o.schema;
  const check = (obj: KObject, old: KObject | undefined, { warnings: sink, celTimings: timings }: StrategyContext): FieldError[] => {
    const errs = schema ? validateObject(obj, schema, { isResourceRoot: true }) : [];
    if (o.rules) {
      // Ratcheted rule failures (unchanged values on update) reach the client as Warning headers;
      // a write retried after a conflict validates again, so each is added once.
      const warnings: string[] | undefined = sink ? [] : undefined;
      errs.push(...o.rules.validate(obj, old, { warnings, timings }));
      for (const w of warnings ?? []) if (!sink!.includes(w)) sink!.push(w);
    }
    return errs;
  };
  return strategy({
    tracksGeneration: true,
    default(obj) {
      if (schema) applyDefaults(obj, schema);
    },
    prepareForUpdate(obj, old) {
      // Without a status subresource a status change is a change like any other.
      if (!o.hasStatus && !sameJSON(obj.status, old.status)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: (obj, ctx) => check(obj, undefined, ctx),
    validateUpdate: (obj, old, ctx) => check(obj, old, ctx),
    selectableFields: o.selectableFields && o.selectableFields.length > 0 ? selectableFieldValues(o.selectableFields) : () => ({}),
  });
}
