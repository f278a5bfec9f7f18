// Validating webhooks: every one that applies is called at once, on the final object (upstream:
// validating/dispatcher.go). The first failure to come back decides: a denial as the webhook
// worded it, a failed call as failurePolicy says (Fail: 500, Ignore: recorded and passed).
import type { AdmissionAttributes } from "../../registry/admission.js";
import { CallingWebhookError, deniedError, dryRunUnsupported, failedClosed } from "./errors.js";
import { callHook, dryRunSafe, observeCall, observeFailOpen, shouldCall, type Invocation, type WebhookDeps } from "./invocation.js";
import { requestTimedOut } from "./mutating.js";
import type { Hook } from "./source.js";

const failedOpenPrefix = "failed-open.validating.webhook.admission.k8s.io/";

export async function dispatchValidating(hooks: readonly Hook[], a: AdmissionAttributes, deps: WebhookDeps): Promise<void> {
  const calls: { hook: Hook; inv: Invocation; index: number }[] = [];
  for (let i = 0; i < hooks.length; i++) {
    const inv = await shouldCall(hooks[i]!, a, deps);
    if (inv) calls.push({ hook: hooks[i]!, inv, index: i });
  }
  if (calls.length === 0) return;
  const errors: unknown[] = [];
  const started = performance.now();
  await Promise.all(
    calls.map(async ({ hook, inv, index }) => {
      const t0 = performance.now();
      try {
        if (a.dryRun && !dryRunSafe(hook)) throw dryRunUnsupported(hook.name);
        const answer = await callHook(hook, inv, a, false, deps);
        if (!answer.allowed) throw deniedError(hook.name, answer.result);
        observeCall(deps, hook, a, "validating", undefined, (performance.now() - t0) / 1000);
      } catch (e) {
        observeCall(deps, hook, a, "validating", e, (performance.now() - t0) / 1000);
        if (e instanceof CallingWebhookError && hook.failurePolicy === "Ignore") {
          deps.log?.(`Failed calling webhook, failing open ${hook.name}: ${e.message}`);
          observeFailOpen(deps, hook, a, "validating");
          a.annotate(`${failedOpenPrefix}round_0_index_${index}`, hook.name);
          return;
        }
        errors.push(e instanceof CallingWebhookError ? failedClosed(e) : e);
      }
    }),
  );
  // The calls ran side by side: the request waited for the slowest (its latency SLI leaves it out).
  if (a.latency) a.latency.validatingWebhookSeconds += (performance.now() - started) / 1000;
  if (errors.length > 0) throw errors[0];
  if (a.signal?.aborted) throw requestTimedOut();
}
