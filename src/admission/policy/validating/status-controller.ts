// The type-checking status of ValidatingAdmissionPolicies (upstream: the
// validatingadmissionpolicy-status-controller of kube-controller-manager): each generation of a
// policy is type-checked once and the result written to status.typeChecking.expressionWarnings
// with status.observedGeneration, by that field manager. Started with the other controllers
// (src/server/start.ts), switchable by --controllers, whether or not the plugin is enabled.
import { ApiError } from "../../../apimachinery/errors.js";
import { deepClone } from "../../../apimachinery/json-value.js";
import type { KObject } from "../../../apimachinery/object.js";
import { runController, type Controller } from "../../../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../../../controller-runtime/rate-limiter.js";
import type { AdmissionParts } from "../../plugins.js";
import type { ValidatingAdmissionPolicy } from "../types.js";
import { typeCheck } from "./typecheck.js";

export const statusControllerName = "validatingadmissionpolicy-status-controller";

const observed = (o: KObject) => Number((o as { status?: { observedGeneration?: number } }).status?.observedGeneration ?? 0);

export function startTypeCheckingStatus(parts: AdmissionParts, log: (msg: string) => void): Controller | undefined {
  const t = parts.types.get("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies");
  if (!t) return undefined;
  const informer = parts.informers.forType(t);
  const isNotFound = (err: unknown) => err instanceof ApiError && err.code === 404;
  return runController({
    name: statusControllerName,
    watches: [{ informer, added: (o) => o.metadata.name ?? "", updated: (_, o) => o.metadata.name ?? "" }],
    async reconcile(name) {
      const current = informer.get("", name);
      if (!current) return;
      const generation = current.metadata.generation ?? 0;
      if (generation <= observed(current)) return;
      const warnings = typeCheck(current as unknown as ValidatingAdmissionPolicy, parts.types);
      await parts.stores.for(t).update(
        "",
        name,
        {
          subresource: "status",
          createIfMissing: false,
          desired: (stored) => {
            if (!stored) throw new ApiError(404, "NotFound", "gone");
            const next = deepClone(stored) as KObject & { status?: Record<string, unknown> };
            next.status = { ...(next.status ?? {}), observedGeneration: generation, typeChecking: warnings.length ? { expressionWarnings: warnings } : {} };
            return next;
          },
        },
        { dryRun: false, fieldManager: statusControllerName },
      );
    },
    retryIf: (err) => !isNotFound(err),
    onError(key, err) {
      if (!isNotFound(err)) log(`${statusControllerName}: ${key}: ${err instanceof Error ? err.message : String(err)}`);
    },
    retry: fixedDelayRateLimiter(1000),
  });
}
