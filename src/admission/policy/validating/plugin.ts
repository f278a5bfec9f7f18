// The ValidatingAdmissionPolicy admission plugin (upstream: policy/validating plugin and
// dispatcher): every bound policy whose constraints, binding and match conditions select the
// request is evaluated against it, once per param; failed validations act as their binding says
// (Deny rejects with the first denial, Warn adds a Warning header, Audit an audit annotation),
// audit annotation expressions publish `<policy>/<key>` annotations.
import { forbidden } from "../../../apimachinery/errors.js";
import { toCel } from "../../../cel/convert.js";
import type { CelValue } from "../../../cel/value.js";
import type { KObject } from "../../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../../registry/admission.js";
import { isExemptAdmissionConfigurationResource, type MatchedResource } from "../../matching/index.js";
import type { AdmissionPluginContext } from "../../plugins.js";
import { admissionRequestValue, Evaluation, namespaceValue } from "../activation.js";
import { matchResources, policyMatches, PolicyConfigurationError } from "../match.js";
import { collectParams, paramKindProblem, ParamError } from "../params.js";
import { PolicySource } from "../source.js";
import { celAuthorizer } from "../../../authz/cel-authorizer.js";
import { convertTo, forbiddenName, policyDenial, requestNamespaceObject } from "../support.js";
import type { FailurePolicy, PolicyBinding, ValidatingAdmissionPolicy } from "../types.js";
import { compileValidatingPolicy, type CompiledValidatingPolicy } from "./compiled.js";
import type { EnforcementAction } from "../../../observability/admission-policy-metrics.js";
import { decisionErrorType, validate, type PolicyDecision } from "./validator.js";

export const validationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure";
const maxAuditAnnotationValueLength = 10 * 1024;

interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

export interface ValidatingPolicyPlugin extends AdmissionPlugin {
  readonly source: PolicySource<ValidatingAdmissionPolicy, CompiledValidatingPolicy>;
}

export function validatingAdmissionPolicy(ctx: AdmissionPluginContext): ValidatingPolicyPlugin {
  const source = new PolicySource<ValidatingAdmissionPolicy, CompiledValidatingPolicy>({
    parts: ctx.parts,
    group: "admissionregistration.k8s.io",
    versions: ["v1", "v1beta1"],
    policyResource: "validatingadmissionpolicies",
    bindingResource: "validatingadmissionpolicybindings",
    compile: compileValidatingPolicy,
  });
  const authorizer = celAuthorizer(ctx.authorizer);
  const checks = ctx.metrics?.policies;
  const deps = () => ({ types: ctx.parts().types, namespaceLabels: (ns: string) => ctx.namespaces.labels(ns) });

  async function dispatch(a: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(a)) return;
    const hooks = await source.hooks();
    if (!hooks) throw forbidden(a.type.gr, forbiddenName(a), "not yet ready to handle request");
    if (hooks.length === 0) return;
    const denials: Denial[] = [];
    const parts = ctx.parts();
    let nsObject: { value: ReturnType<typeof namespaceValue> } | undefined;
    // The objects as CEL values, per version matched (the request's own, or an equivalent one
    // under matchPolicy Equivalent, converted to it), made when a policy first needs them.
    const versions = new Map<string, { object: CelValue; oldObject: CelValue }>();
    const objectsAs = async (matched: MatchedResource) => {
      const key = matched.equivalent ? matched.type.apiVersion : "";
      let v = versions.get(key);
      if (!v) {
        const as = async (o: KObject | undefined) => (o ? toCel(matched.equivalent ? await convertTo(a.type, matched.type, o) : o) : null);
        versions.set(key, (v = { object: await as(a.object), oldObject: await as(a.oldObject) }));
      }
      return v;
    };

    for (const hook of hooks) {
      const policy = hook.policy;
      const policyName = policy.metadata.name;
      const failurePolicy: FailurePolicy = policy.spec?.failurePolicy ?? "Fail";
      const configError = (err: string, binding?: PolicyBinding) => {
        if (failurePolicy === "Ignore") return;
        const message = failurePolicy === "Fail" ? `failed to configure ${binding ? "binding" : "policy"}: ${err}` : `unrecognized failure policy: '${failurePolicy}'`;
        denials.push({ policy: policyName, binding: binding?.metadata.name, message });
      };
      let matched;
      try {
        matched = await policyMatches(policy.spec?.matchConstraints, a, deps());
      } catch (e) {
        if (!(e instanceof PolicyConfigurationError)) throw e;
        configError(e.message);
        continue;
      }
      if (!matched) continue;
      const paramProblem = paramKindProblem(parts, policy.spec?.paramKind);
      if (paramProblem) {
        configError(paramProblem);
        continue;
      }
      // The request and the objects as CEL values: made when a binding first needs them.
      let inputs: { request: CelValue; object: CelValue; oldObject: CelValue } | undefined;
      const annotations = new Map<string, string[]>();
      for (const binding of hook.bindings) {
        try {
          if (!(await matchResources(binding.spec?.matchResources, a, deps()))) continue;
        } catch (e) {
          if (!(e instanceof PolicyConfigurationError)) throw e;
          configError(e.message, binding);
          continue;
        }
        let params: (KObject | null)[];
        try {
          params = await collectParams(parts, policy.spec?.paramKind, binding.spec?.paramRef, a.namespace);
        } catch (e) {
          if (!(e instanceof ParamError)) throw e;
          configError(e.message, binding);
          continue;
        }
        if (params.length === 0) continue;
        if (!inputs) {
          try {
            inputs = { request: admissionRequestValue(a, matched), ...(await objectsAs(matched)) };
          } catch (e) {
            configError(`failed to convert object version: ${e instanceof Error ? e.message : String(e)}`);
            break;
          }
        }
        nsObject ??= { value: namespaceValue(await requestNamespaceObject(parts, a)) };
        const actions = binding.spec?.validationActions ?? [];
        const base = { ...inputs, namespaceObject: nsObject.value, authorizer, attributes: a };
        for (const param of params) {
          const paramsValue = param ? toCel(withTypeMeta(param, policy)) : null;
          const ev = () => new Evaluation(
            { ...base, params: paramsValue },
            hook.compiled.variables,
          );
          const result = await validate(hook.compiled, failurePolicy, ev);
          const observe = (d: { evaluation: PolicyDecision["evaluation"]; message: string; seconds: number }, action: EnforcementAction) =>
            checks?.validation(policyName, binding.metadata.name, decisionErrorType(d), action, d.seconds);
          result.decisions.forEach((d, i) => {
            // Upstream counts the evaluation errors let through, not the validations that passed.
            if (d.action !== "deny") {
              if (d.evaluation === "error") observe(d, "allow");
              return;
            }
            for (const action of actions) {
              if (action === "Deny") {
                denials.push({ policy: policyName, binding: binding.metadata.name, message: d.message, reason: d.reason });
                observe(d, "deny");
              } else if (action === "Warn") {
                a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${binding.metadata.name}': ${d.message}`);
                observe(d, "warn");
              } else if (action === "Audit") {
                const value = JSON.stringify([{ message: d.message, policy: binding.spec?.policyName ?? "", binding: binding.metadata.name, expressionIndex: i, validationActions: actions }]);
                a.annotate(validationFailureAnnotation, value);
                observe(d, "audit");
              }
            }
          });
          for (const ann of result.auditAnnotations) {
            if (ann.action === "publish") {
              const value = ann.value!.length > maxAuditAnnotationValueLength ? ann.value!.slice(0, maxAuditAnnotationValueLength) : ann.value!;
              const list = annotations.get(ann.key) ?? [];
              if (!list.includes(value)) list.push(value);
              annotations.set(ann.key, list);
            } else if (ann.action === "error") {
              denials.push({ policy: policyName, binding: binding.metadata.name, message: ann.error! });
              observe({ evaluation: "error", message: ann.error!, seconds: ann.seconds }, "deny");
            }
          }
        }
      }
      for (const [key, values] of annotations) {
        const k = `${policyName}/${key}`;
        a.annotate(k, values.join(", "));
      }
    }
    if (denials.length > 0) {
      const d = denials[0]!;
      const message = d.binding !== undefined ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}` : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
      throw policyDenial(a, message, d.reason || "Invalid");
    }
  }

  return {
    name: "ValidatingAdmissionPolicy",
    source,
    validate: dispatch,
    stop: () => source.stop(),
  };
}

/** Params of a built-in type read from a typed cache may lack apiVersion/kind: CEL sees them set. */
function withTypeMeta(param: KObject, policy: ValidatingAdmissionPolicy): KObject {
  if (param.apiVersion && param.kind) return param;
  return { ...param, apiVersion: policy.spec?.paramKind?.apiVersion ?? "", kind: policy.spec?.paramKind?.kind ?? "" };
}
