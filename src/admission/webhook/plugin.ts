// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: webhooks from the two
// configuration types' informers, dispatched for every write except to the admission
// configuration types themselves (a broken webhook must stay removable).
import { forbidden } from "../../apimachinery/errors.js";
import { endpointServiceResolver, informerServiceSource, type ServiceResolver } from "../../webhook/service-resolver.js";
import { syncedInformerLookup } from "../../registry/synced-informer-lookup.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import { isExemptAdmissionConfigurationResource } from "../matching/index.js";
import type { AdmissionPluginContext } from "../plugins.js";
import type { WebhookDeps } from "./invocation.js";
import { dispatchMutating, mutatingPluginName } from "./mutating.js";
import { HookSource } from "./source.js";
import type { WebhookKind } from "./types.js";
import { dispatchValidating } from "./validating.js";

function depsOf(ctx: AdmissionPluginContext): WebhookDeps {
  let resolver: ServiceResolver | undefined;
  return {
    types: () => ctx.parts().types,
    namespaceLabels: (ns) => ctx.namespaces.labels(ns),
    authorizer: () => ctx.authorizer(),
    resolveService: () => (resolver ??= endpointServiceResolver(informerServiceSource(syncedInformerLookup(ctx.parts().informers, ctx.parts().types)))),
    log: (m) => ctx.log(m),
    ...(ctx.metrics ? { metrics: ctx.metrics } : {}),
  };
}

function webhookPlugin(kind: WebhookKind, ctx: AdmissionPluginContext): { source: HookSource; run(a: AdmissionAttributes): Promise<void> } {
  const source = new HookSource(kind, () => ctx.parts());
  const deps = depsOf(ctx);
  return {
    source,
    async run(a) {
      if (isExemptAdmissionConfigurationResource(a)) return;
      if (!(await source.ready())) throw forbidden(a.type.gr, a.name, "not yet ready to handle request");
      const hooks = source.hooks();
      if (hooks.length === 0) return;
      await (kind === "mutating" ? dispatchMutating(hooks, a, deps) : dispatchValidating(hooks, a, deps));
    },
  };
}

export function mutatingWebhookPlugin(ctx: AdmissionPluginContext): AdmissionPlugin {
  const p = webhookPlugin("mutating", ctx);
  return { name: mutatingPluginName, reinvocable: true, admit: (a) => p.run(a), stop: () => p.source.stop() };
}

export function validatingWebhookPlugin(ctx: AdmissionPluginContext): AdmissionPlugin {
  const p = webhookPlugin("validating", ctx);
  return { name: "ValidatingAdmissionWebhook", validate: (a) => p.run(a), stop: () => p.source.stop() };
}
