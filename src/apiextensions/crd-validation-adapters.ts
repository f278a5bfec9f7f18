// Adapters from CRD validation to the modules of other helpers. Until their branches are merged,
// these stand in for them with the minimum upstream does:
//   - structuralErrors → schema helper's `validateStructural(schema, path)`
//     (src/apiextensions/schema): here only the "type" completeness rules and the items rule;
//   - celRuleErrors → cel-rules helper's `compileValidationRules(schema, { path }).errors`
//     (src/apiextensions/validation-rules.ts): here a compile of every rule with its self type.
// Replace the bodies with calls to those modules when merging (the signatures are theirs).
import { invalid, required, type FieldError } from "../apimachinery/validation.js";
import { compileCel } from "../cel/program.js";
import { crdRuleEnvironment } from "../cel/environments.js";
import { selfTypeOf, type StructuralSchema } from "../cel/schema/index.js";

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

type Level = "root" | "item" | "field";

/** Structural-schema rules (subset of upstream's ValidateStructural). */
export function structuralErrors(schema: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (s: unknown, p: string, lvl: Level) => {
    if (!isObj(s)) return;
    const type = typeof s.type === "string" ? s.type : "";
    if (type === "array" && s.items === undefined) errs.push(required(`${p}.items`, "must be specified"));
    if (lvl === "root" && type !== "" && type !== "object") errs.push(invalid(`${p}.type`, type, "must be object at the root"));
    if (s["x-kubernetes-embedded-resource"] === true && type !== "object") {
      errs.push(type === "" ? required(`${p}.type`, "must be object if x-kubernetes-embedded-resource is true") : invalid(`${p}.type`, type, "must be object if x-kubernetes-embedded-resource is true"));
    } else if (type === "" && s["x-kubernetes-int-or-string"] !== true && s["x-kubernetes-embedded-resource"] !== true) {
      const msg = lvl === "root" ? "must not be empty at the root" : lvl === "item" ? "must not be empty for specified array items" : "must not be empty for specified object fields";
      errs.push(required(`${p}.type`, msg));
    }
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) walk(v, `${p}.properties[${k}]`, "field");
    if (isObj(s.additionalProperties)) walk(s.additionalProperties, `${p}.additionalProperties`, "field");
    if (isObj(s.items)) walk(s.items, `${p}.items`, "item");
  };
  walk(schema, path, "root");
  return errs;
}

/** Compile errors of every x-kubernetes-validations rule (cost checks are the cel-rules helper's). */
export function celRuleErrors(schema: Obj, path: string, _opts: { suppressPerExpressionCost: boolean }): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (s: unknown, p: string, isRoot: boolean) => {
    if (!isObj(s)) return;
    const rules = Array.isArray(s["x-kubernetes-validations"]) ? (s["x-kubernetes-validations"] as Obj[]) : [];
    if (rules.length > 0) {
      const self = selfTypeOf(s as StructuralSchema, { isRoot });
      rules.forEach((r, i) => {
        if (!isObj(r) || typeof r.rule !== "string" || !self) return;
        try {
          compileCel(r.rule, crdRuleEnvironment(self, { optionalOldSelf: r.optionalOldSelf === true }));
        } catch (e) {
          errs.push(invalid(`${p}.x-kubernetes-validations[${i}].rule`, r, `compilation failed: ${(e as Error).message}`));
        }
      });
    }
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) walk(v, `${p}.properties[${k}]`, false);
    if (isObj(s.additionalProperties)) walk(s.additionalProperties, `${p}.additionalProperties`, false);
    if (isObj(s.items)) walk(s.items, `${p}.items`, false);
  };
  walk(schema, path, true);
  return errs;
}
