// Mutating webhooks, called one after another in configuration-name order, each seeing the
// object as the previous ones left it (upstream: mutating/dispatcher.go). A JSONPatch answer is
// applied to the object in the version the webhook matched, the result converted back to the
// request's version and defaulted; the type's validation and the validating stage check it later.
// reinvocationPolicy IfNeeded: a webhook that ran before a later change (by another webhook, or
// by an in-tree plugin between the two passes) runs once more in the chain's second pass.
import { deepClone, deepEqual, isPlainObject } from "../../apimachinery/json-value.js";
import { setValueAt } from "../../registry/scale-paths.js";
import { ApiError, internalError } from "../../apimachinery/errors.js";
import { goJSON, goJSONString } from "../../apimachinery/go-json.js";
import { goJsonSyntaxError } from "../../apimachinery/go-json-syntax.js";
import { applyJsonPatch } from "../../patch/json-patch.js";
import { decodeAgainstSchema, decodeTarget } from "../../registry/field-validation.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { CallingWebhookError, deniedError, dryRunUnsupported, failedClosed } from "./errors.js";
import { callHook, dryRunSafe, inVersion, observeCall, observeFailOpen, shouldCall, type Invocation, type WebhookDeps } from "./invocation.js";
import type { Hook } from "./source.js";

export const mutatingPluginName = "MutatingAdmissionWebhook";

/** Per request, across both passes (upstream: webhookReinvokeContext). */
interface ReinvokeState {
  /** The object after the last webhook pass (JSON), to see in-tree plugins' changes. */
  lastOutput?: string;
  /** IfNeeded webhooks called since the last change. */
  previouslyInvoked: Set<string>;
  /** Webhooks to call again in the second pass. */
  reinvoke: Set<string>;
}

function reinvokePrevious(st: ReinvokeState): void {
  for (const uid of st.previouslyInvoked) st.reinvoke.add(uid);
  st.previouslyInvoked.clear();
}

const annotationPrefix = "mutation.webhook.admission.k8s.io/";
/** Each applied patch, recorded from audit level Request on. */
const patchPrefix = "patch.webhook.admission.k8s.io/";
const failedOpenPrefix = "failed-open." + annotationPrefix;

/** 504 when the request's own deadline passed while a webhook failed open (upstream: NewTimeoutError). */
export const requestTimedOut = () => new ApiError(504, "Timeout", "Timeout: request did not complete within requested timeout", { retryAfterSeconds: 0 });

export async function dispatchMutating(hooks: readonly Hook[], a: AdmissionAttributes, deps: WebhookDeps): Promise<void> {
  let st = a.reinvocation.values.get(mutatingPluginName) as ReinvokeState | undefined;
  if (!st) {
    st = { previouslyInvoked: new Set(), reinvoke: new Set() };
    a.reinvocation.values.set(mutatingPluginName, st);
  }
  const round = a.reinvocation.isReinvoke ? 1 : 0;
  if (round === 1 && st.lastOutput !== undefined && st.lastOutput !== JSON.stringify(a.object ?? null)) reinvokePrevious(st);
  try {
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i]!;
      const inv = await shouldCall(hook, a, deps);
      if (!inv) continue;
      // A webhook is never called for the first time in the second pass.
      if (round === 1 && !st.reinvoke.has(hook.uid)) continue;
      if (a.dryRun && !dryRunSafe(hook)) {
        const e = dryRunUnsupported(hook.name);
        observeCall(deps, hook, a, "admit", e, 0);
        throw e;
      }
      const at = `round_${round}_index_${i}`;
      let changed = false;
      let err: unknown;
      const t0 = performance.now();
      try {
        changed = await mutateOnce(hook, inv, a, deps, at);
      } catch (e) {
        err = e;
      }
      const seconds = (performance.now() - t0) / 1000;
      observeCall(deps, hook, a, "admit", err, seconds);
      if (a.latency) a.latency.mutatingWebhookSeconds += seconds;
      a.annotate(annotationPrefix + at, JSON.stringify({ configuration: hook.configuration, webhook: hook.name, mutated: changed }));
      if (changed) {
        reinvokePrevious(st);
        a.reinvocation.shouldReinvoke = true;
      }
      if (hook.reinvokeIfNeeded) st.previouslyInvoked.add(hook.uid);
      if (err === undefined) continue;
      if (err instanceof CallingWebhookError) {
        if (hook.failurePolicy === "Ignore") {
          deps.log?.(`Failed calling webhook, failing open ${hook.name}: ${err.message}`);
          observeFailOpen(deps, hook, a, "admit");
          a.annotate(failedOpenPrefix + at, hook.name);
          if (a.signal?.aborted) throw requestTimedOut();
          continue;
        }
        throw failedClosed(err);
      }
      throw err;
    }
  } finally {
    // Only an IfNeeded webhook already called can be reinvoked by a later change: otherwise the
    // object need not be remembered (it would cost a serialization per write).
    st.lastOutput = st.previouslyInvoked.size > 0 ? JSON.stringify(a.object ?? null) : undefined;
  }
}

/** One call; applies its patch to `a.object`. Whether the object changed. */
async function mutateOnce(hook: Hook, inv: Invocation, a: AdmissionAttributes, deps: WebhookDeps, at: string): Promise<boolean> {
  const answer = await callHook(hook, inv, a, true, deps);
  if (!answer.allowed) throw deniedError(hook.name, answer.result);
  if (answer.patch === undefined) return false;
  let ops: unknown;
  try {
    ops = JSON.parse(answer.patch);
  } catch {
    throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: ${goJsonSyntaxError(answer.patch) ?? "unexpected end of JSON input"}`);
  }
  if (ops !== null && !Array.isArray(ops)) {
    throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: json: cannot unmarshal ${typeof ops === "object" ? "object" : typeof ops === "string" ? "string" : typeof ops === "number" ? "number" : "bool"} into Go value of type jsonpatch.Patch`);
  }
  if (ops === null || (ops as unknown[]).length === 0) return false;
  if (!inv.object) throw internalError(`admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`);
  let patched: unknown;
  try {
    patched = applyJsonPatch(inv.object, ops);
  } catch (e) {
    throw internalError(e);
  }
  if (!isPlainObject(patched)) throw internalError(`admission webhook "${hook.name}" returned a patch that does not leave an object`);
  a.annotate(patchPrefix + at, `{"configuration":${goJSONString(hook.configuration)},"webhook":${goJSONString(hook.name)},"patch":${goJSON(ops)},"patchType":"JSONPatch"}`, "Request");
  // A patched Scale (/scale) changes the object's replicas only, as the Scale handler writes them.
  if (a.subresource === "scale" && a.type.scale) {
    const replicas = (patched as { spec?: { replicas?: unknown } }).spec?.replicas ?? 0;
    if (typeof replicas !== "number" || !Number.isInteger(replicas)) throw internalError(`json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
    const next = deepClone(a.object!);
    setValueAt(next, a.type.scale.specReplicasPath, replicas);
    const changed = !deepEqual(next, a.object);
    a.object = next;
    return changed;
  }
  // As upstream decodes the patched JSON into the type (typed struct, or pruned against a custom
  // resource's schema): unknown fields go, a value of the wrong type is an internal error.
  const found = decodeAgainstSchema(patched, decodeTarget(inv.matched.type.schema, { apiVersion: inv.matched.type.apiVersion, kind: inv.matched.type.kind }));
  if (found.mismatch) {
    const m = found.mismatch;
    throw internalError(`json: cannot unmarshal ${m.value} into ${m.field ? `Go struct field ${m.struct || inv.matched.type.kind}.${m.field}` : "Go value"} of type ${m.type}`);
  }
  const changed = !deepEqual(inv.object, patched);
  const back = (inv.matched.equivalent ? await inVersion(patched as KObject, a.type) : patched) as KObject;
  a.type.strategy.default(back);
  a.object = back;
  return changed;
}
