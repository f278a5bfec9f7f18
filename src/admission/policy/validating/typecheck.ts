// Type checking of a ValidatingAdmissionPolicy (upstream: validating/typechecking.go): its
// validation expressions and message expressions are compiled once per kind its
// matchConstraints name exactly (no wildcards, no subresources; at most 10 kinds), with `object`
// and `oldObject` typed from that kind's schema and `params` from the paramKind's. What fails to
// compile becomes an expression warning; nothing here changes how the policy is enforced.
import { schemaToCelType, type StructuralSchema } from "../../../cel/schema/index.js";
import type { CelType } from "../../../cel/types.js";
import type { SchemaNode } from "../../../apimachinery/schema.js";
import type { ResourceType } from "../../../registry/resource-type.js";
import { definitionOf, type TypeSchema } from "../../../registry/type-schema.js";
import type { TypeRegistry } from "../../../registry/type-registry.js";
import { compileExpression, policyEnvironments } from "../compile.js";
import type { ValidatingAdmissionPolicy } from "../types.js";

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

const maxTypesToCheck = 10;

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** Go's schema.GroupVersionKind String(): "apps/v1, Kind=Deployment" ("/v1, Kind=Pod" for core). */
export const gvkString = (g: Gvk) => `${g.group}/${g.version}, Kind=${g.kind}`;

const byGvk = (a: Gvk, b: Gvk) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);

/** The kinds upstream type-checks a policy against, sorted by group, version, kind. */
export function typesToCheck(p: ValidatingAdmissionPolicy, types: TypeRegistry): ResourceType[] {
  const found = new Map<string, ResourceType>();
  for (const rule of p.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes("*"))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes("*"))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          const t = types.get(g, v, r);
          if (!t) continue;
          found.set(`${t.group}/${t.version}/${t.kind}`, t);
          if (found.size === maxTypesToCheck) return [...found.values()].sort(byGvk);
        }
      }
    }
  }
  return [...found.values()].sort(byGvk);
}

/** A definition with its $refs inlined (a reference back into itself is left untyped). */
function resolved(schema: TypeSchema, node: SchemaNode, stack: string[] = []): StructuralSchema {
  let n: SchemaNode = node;
  if (n.$ref) {
    const name = n.$ref.replace(/^#\/definitions\//, "");
    if (stack.includes(name)) return { "x-kubernetes-preserve-unknown-fields": true };
    const target = schema.definition(name);
    if (!target) return {};
    const { $ref: _ref, ...rest } = n;
    return resolved(schema, { ...target, ...rest }, [...stack, name]);
  }
  const out: Record<string, unknown> = { ...n };
  if (n.properties) out.properties = Object.fromEntries(Object.entries(n.properties).map(([k, v]) => [k, resolved(schema, v, stack)]));
  if (n.items) out.items = resolved(schema, n.items, stack);
  if (n.additionalProperties && typeof n.additionalProperties === "object") out.additionalProperties = resolved(schema, n.additionalProperties, stack);
  return out as StructuralSchema;
}

let typeSerial = 0;

/** The CEL type of a kind's objects from its schema; undefined when it has none. */
export function declTypeOf(t: ResourceType): CelType | undefined {
  const def = definitionOf(t.schema, t.apiVersion, t.kind);
  if (!def) return undefined;
  return schemaToCelType(resolved(t.schema, def), { isResourceRoot: true, typeName: `${t.kind}${++typeSerial}` });
}

function paramTypeOf(p: ValidatingAdmissionPolicy, types: TypeRegistry): ResourceType | undefined {
  const k = p.spec?.paramKind;
  if (!k?.apiVersion || !k.kind) return undefined;
  return types.all().find((t) => t.apiVersion === k.apiVersion && t.kind === k.kind);
}

/** The policy's expression warnings (empty when every expression checks against every kind). */
export function typeCheck(p: ValidatingAdmissionPolicy, types: TypeRegistry): ExpressionWarning[] {
  const kinds = typesToCheck(p, types)
    .map((t) => ({ gvk: { group: t.group, version: t.version, kind: t.kind }, type: declTypeOf(t) }))
    .filter((k): k is { gvk: Gvk; type: CelType } => k.type !== undefined);
  if (kinds.length === 0) return [];
  const pt = paramTypeOf(p, types);
  const paramsType = pt ? declTypeOf(pt) : undefined;
  const envs = kinds.map((k) => ({ gvk: k.gvk, envs: policyEnvironments(paramsType !== undefined, p.spec?.variables ?? [], { object: k.type, params: paramsType }) }));
  const check = (expression: string): string | undefined => {
    const messages: string[] = [];
    for (const { gvk, envs: e } of envs) {
      const c = compileExpression(expression, e.withAuthorizer, ["any"]);
      if (c.error) messages.push(`${gvkString(gvk)}: ${c.error.replace(/^compilation error: (compilation failed: )?/, "")}\n`);
    }
    return messages.length ? messages.join("\n") : undefined;
  };
  const warnings: ExpressionWarning[] = [];
  (p.spec?.validations ?? []).forEach((v, i) => {
    const w = check(v.expression);
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
