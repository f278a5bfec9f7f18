// The MutatingAdmissionPolicy admission plugin (upstream: policy/mutating plugin and dispatcher,
// behind the MutatingAdmissionPolicy feature gate; the types are served as v1alpha1/v1beta1 when
// --runtime-config enables them). Every bound policy whose constraints, binding and match
// conditions select the request mutates the object in order, once per param; each mutation sees
// the previous one's result, defaulted again as the type's strategy defaults a written object.
// reinvocationPolicy IfNeeded policies run again when a later mutation changed the object.
import { deepClone, deepEqual } from "../../../apimachinery/json-value.js";
import { ApiError, forbidden, notFound, type StatusReason } from "../../../apimachinery/errors.js";
import { toCel } from "../../../cel/convert.js";
import type { KObject } from "../../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../../registry/admission.js";
import { isExemptAdmissionConfigurationResource, type MatchedResource } from "../../matching/index.js";
import type { AdmissionPluginContext } from "../../plugins.js";
import { admissionRequestValue, Evaluation, namespaceValue, OutOfBudget } from "../activation.js";
import { matchResources, policyMatches, PolicyConfigurationError } from "../match.js";
import { collectParams, paramKindProblem, ParamError } from "../params.js";
import { PolicySource } from "../source.js";
import { celAuthorizer } from "../../../authz/cel-authorizer.js";
import { convertTo, forbiddenName, requestNamespaceObject } from "../support.js";
import type { MutatingAdmissionPolicy, PolicyBinding } from "../types.js";
import { aggregate } from "../validating/validator.js";
import { compileMutatingPolicy, type CompiledMutatingPolicy } from "./compiled.js";
import { applyConfiguration, applyJsonPatchMutation, MutationError } from "./patch.js";
import { goQuote } from "../../../apimachinery/go-quote.js";
import type { PolicyErrorType } from "../../../observability/admission-policy-metrics.js";

export const pluginName = "MutatingAdmissionPolicy";

interface PolicyError {
  policy: MutatingAdmissionPolicy;
  binding?: PolicyBinding;
  message: string;
  reason?: StatusReason;
}

interface Invocation {
  policy: MutatingAdmissionPolicy;
  compiled: CompiledMutatingPolicy;
  binding: PolicyBinding;
  matched: MatchedResource;
  param: KObject | null;
}

/** What the two passes of one request remember (upstream: policyReinvokeContext). */
interface ReinvokeState {
  lastOutput?: KObject;
  previouslyInvoked: Set<string>;
  reinvoke: Set<string>;
}

function requireReinvoking(s: ReinvokeState): void {
  for (const k of s.previouslyInvoked) s.reinvoke.add(k);
  s.previouslyInvoked.clear();
}

const keyOf = (i: Invocation) => `${i.policy.metadata.name}\u0000${i.binding.metadata.name}\u0000${i.param?.metadata.namespace ?? ""}/${i.param?.metadata.name ?? ""}`;

export interface MutatingPolicyPlugin extends AdmissionPlugin {
  readonly source: PolicySource<MutatingAdmissionPolicy, CompiledMutatingPolicy>;
}

export function mutatingAdmissionPolicy(ctx: AdmissionPluginContext): MutatingPolicyPlugin {
  const source = new PolicySource<MutatingAdmissionPolicy, CompiledMutatingPolicy>({
    parts: ctx.parts,
    group: "admissionregistration.k8s.io",
    versions: ["v1", "v1beta1", "v1alpha1"],
    policyResource: "mutatingadmissionpolicies",
    bindingResource: "mutatingadmissionpolicybindings",
    compile: compileMutatingPolicy,
  });
  const authorizer = celAuthorizer(ctx.authorizer);
  const checks = ctx.metrics?.policies;
  const deps = () => ({ types: ctx.parts().types, namespaceLabels: (ns: string) => ctx.namespaces.labels(ns) });
  const enabled = ctx.gates.enabled("MutatingAdmissionPolicy");

  async function admit(a: AdmissionAttributes): Promise<void> {
    if (!enabled || isExemptAdmissionConfigurationResource(a)) return;
    const hooks = await source.hooks();
    if (!hooks) throw forbidden(a.type.gr, forbiddenName(a), "not yet ready to handle request");
    if (hooks.length === 0) return;
    const parts = ctx.parts();
    const errors: PolicyError[] = [];
    const invocations: Invocation[] = [];
    for (const hook of hooks) {
      const policy = hook.policy;
      let matched: MatchedResource | undefined;
      try {
        matched = await policyMatches(policy.spec?.matchConstraints, a, deps());
      } catch (e) {
        if (!(e instanceof PolicyConfigurationError)) throw e;
        errors.push({ policy, message: `failed to configure policy: ${e.message}` });
        continue;
      }
      if (!matched) continue;
      const paramProblem = paramKindProblem(parts, policy.spec?.paramKind);
      if (paramProblem) {
        errors.push({ policy, message: `failed to configure policy: ${paramProblem}` });
        continue;
      }
      for (const binding of hook.bindings) {
        try {
          if (!(await matchResources(binding.spec?.matchResources, a, deps()))) continue;
          for (const param of await collectParams(parts, policy.spec?.paramKind, binding.spec?.paramRef, a.namespace)) {
            invocations.push({ policy, compiled: hook.compiled, binding, matched, param });
          }
        } catch (e) {
          if (!(e instanceof PolicyConfigurationError) && !(e instanceof ParamError)) throw e;
          errors.push({ policy, binding, message: `failed to configure binding: ${e.message}` });
        }
      }
    }
    if (invocations.length > 0) await dispatch(a, invocations, errors);
    const failing = errors.filter((e) => e.policy.spec?.failurePolicy !== "Ignore");
    if (failing.length === 0) return;
    const messages = failing.map((e) => (e.binding ? `policy '${e.policy.metadata.name}' with binding '${e.binding.metadata.name}' denied request: ${e.message}` : `policy ${goQuote(e.policy.metadata.name)} denied request: ${e.message}`));
    const name = forbiddenName(a);
    throw new ApiError(403, failing[0]!.reason ?? "Forbidden", messages[0]!, {
      name,
      group: a.type.group || undefined,
      kind: a.type.resource,
      causes: messages.map((message) => ({ message })),
    });
  }

  async function dispatch(a: AdmissionAttributes, invocations: Invocation[], errors: PolicyError[]): Promise<void> {
    const parts = ctx.parts();
    let state = a.reinvocation.values.get(pluginName) as ReinvokeState | undefined;
    if (!state) a.reinvocation.values.set(pluginName, (state = { previouslyInvoked: new Set(), reinvoke: new Set() }));
    if (a.reinvocation.isReinvoke && !deepEqual(state.lastOutput ?? null, a.object ?? null)) requireReinvoking(state);
    let nsObject: ReturnType<typeof namespaceValue> | undefined;
    if (a.namespace && !(a.type.group === "" && a.type.resource === "namespaces")) {
      const ns = await requestNamespaceObject(parts, a);
      if (!ns) throw notFound({ group: "", resource: "namespaces" }, a.namespace);
      nsObject = namespaceValue(ns);
    }
    // The objects as the policy matched them: the request's version, or (matchPolicy Equivalent)
    // converted to the matched one; mutations apply there and the result is converted back.
    const asMatched = async (inv: Invocation, o: KObject | undefined) => (o && inv.matched.equivalent ? convertTo(a.type, inv.matched.type, o) : o);
    const evaluation = async (inv: Invocation, current: KObject | undefined) =>
      new Evaluation(
        {
          object: current ? toCel(current) : null,
          oldObject: a.oldObject ? toCel((await asMatched(inv, a.oldObject))!) : null,
          request: admissionRequestValue(a, inv.matched),
          params: inv.param ? toCel(inv.param) : null,
          namespaceObject: nsObject ?? null,
          authorizer,
          attributes: a,
        },
        inv.compiled.variables,
      );
    try {
      for (const inv of invocations) {
        const fail = (message: string) => errors.push({ policy: inv.policy, binding: inv.binding, message, reason: "Invalid" });
        if (inv.compiled.matchConditions.length > 0) {
          const ev = await evaluation(inv, await asMatched(inv, a.object));
          const errs: string[] = [];
          let skip = false;
          try {
            for (const mc of inv.compiled.matchConditions) {
              const r = await ev.eval(mc.compiled);
              if (r.error !== undefined) errs.push(r.error);
              else if (r.value === false) {
                skip = true;
                break;
              }
            }
          } catch (e) {
            if (!(e instanceof OutOfBudget)) throw e;
            errs.push(e.message);
          }
          if (skip) continue;
          if (errs.length > 0) {
            // Under Ignore a failing match condition means "no match"; under Fail it is the policy's error.
            if (inv.policy.spec?.failurePolicy !== "Ignore") fail(aggregate(errs));
            continue;
          }
        }
        const key = keyOf(inv);
        if (a.reinvocation.isReinvoke && !state.reinvoke.has(key)) continue;
        const before = a.object;
        let current = await asMatched(inv, a.object);
        let mutated = false;
        for (const m of inv.compiled.mutations) {
          if (!current) continue; // nothing to mutate (delete)
          // Each mutation checked is counted and timed (upstream's dispatcher), by how it ended.
          const start = performance.now();
          const check = (errorType: PolicyErrorType) => checks?.mutation(inv.policy.metadata.name, inv.binding.metadata.name, errorType, (performance.now() - start) / 1000);
          if (!m.compiled.program) {
            check("compile_error");
            fail(m.compiled.error!);
            continue;
          }
          let r;
          try {
            r = await (await evaluation(inv, current)).eval(m.compiled);
          } catch (e) {
            if (!(e instanceof OutOfBudget)) throw e;
            check("out_of_budget");
            fail(e.message);
            continue;
          }
          if (r.error !== undefined) {
            check("invalid_error");
            fail(r.error);
            continue;
          }
          try {
            const next = m.patchType === "ApplyConfiguration" ? applyConfiguration(current, inv.matched.type, r.value!) : applyJsonPatchMutation(current, r.value!);
            if (next !== current) {
              const defaulted = deepClone(next);
              inv.matched.type.strategy.default(defaulted);
              current = defaulted;
              mutated = true;
            }
            check("no_error");
          } catch (e) {
            if (!(e instanceof MutationError)) throw e;
            check("invalid_error");
            fail(e.message);
          }
        }
        if (mutated && current) a.object = inv.matched.equivalent ? await convertTo(inv.matched.type, a.type, current) : current;
        if (!deepEqual(before ?? null, a.object ?? null)) {
          requireReinvoking(state);
          a.reinvocation.shouldReinvoke = true;
        }
        if (inv.policy.spec?.reinvocationPolicy === "IfNeeded") state.previouslyInvoked.add(key);
      }
    } finally {
      state.lastOutput = a.object ? deepClone(a.object) : undefined;
    }
  }

  return {
    name: pluginName,
    reinvocable: true,
    source,
    admit,
    stop: () => source.stop(),
  };
}

