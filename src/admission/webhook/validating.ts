// Validating webhooks: every one that applies is called at once, on the final object (upstream:
// validating/dispatcher.go). The first failure to come back decides: a denial as the webhook
// worded it, a failed call as failurePolicy says (Fail: 500, Ignore: recorded and passed).
import type { AdmissionAttributes } from "../../registry/admission.js";
import { CallingWebhookError, deniedError, dryRunUnsupported, failedClosed } from "./errors.js";
import { callHook, dryRunSafe, shouldCall, type Invocation, type WebhookDeps } from "./invocation.js";
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
  await Promise.all(
    calls.map(async ({ hook, inv, index }) => {
      try {
        if (a.dryRun && !dryRunSafe(hook)) throw dryRunUnsupported(hook.name);
        const answer = await callHook(hook, inv, a, false, deps);
        if (!answer.allowed) throw deniedError(hook.name, answer.result);
      } catch (e) {
        if (e instanceof CallingWebhookError && hook.failurePolicy === "Ignore") {
          deps.log?.(`Failed calling webhook, failing open ${hook.name}: ${e.message}`);
          a.auditAnnotations[`${failedOpenPrefix}round_0_index_${index}`] = hook.name;
          return;
        }
        errors.push(e instanceof CallingWebhookError ? failedClosed(e) : e);
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
  if (a.signal?.aborted) throw requestTimedOut();
}
