// Adapters from CRD validation to the modules of the schema and cel-rules helpers (merged):
//   structuralErrors → validateStructural(schema, path)             (./schema)
//   celRuleErrors    → compileValidationRules(schema, { path }).errors (./validation-rules.ts)
// On update, versions whose schema is deep-equal to the old one get suppressPerExpressionCost
// (upstream skips the per-expression cost limits for them; the schema total still applies).
import type { FieldError } from "../apimachinery/validation.js";
import { newStructuralError, validateStructural, type JSONSchemaProps } from "./schema/index.js";
import { compileValidationRules } from "./validation-rules.js";
import type { CelTimings } from "../cel/timings.js";

/**
 * `init`: the schema cannot be made structural at all (upstream NewStructural's error), shown only
 * when the OpenAPI checks found nothing; `errors`: the structural rules.
 */
export function structuralErrors(schema: Record<string, unknown>, path: string): { init: FieldError[]; errors: FieldError[] } {
  const errs = validateStructural(schema as JSONSchemaProps, path);
  return newStructuralError(schema as JSONSchemaProps) ? { init: errs, errors: [] } : { init: [], errors: errs };
}

export function celRuleErrors(schema: Record<string, unknown>, path: string, opts: { suppressPerExpressionCost: boolean; timings: CelTimings | undefined }): FieldError[] {
  return compileValidationRules(schema as Parameters<typeof compileValidationRules>[0], { path, ...opts }).errors;
}
