// The type-checking status of ValidatingAdmissionPolicies (upstream: the
// validatingadmissionpolicy-status-controller of kube-controller-manager): each generation of a
// policy is type-checked once and the result written to status.typeChecking.expressionWarnings
// with status.observedGeneration, by that field manager. Started with the other controllers
// (src/server/start.ts), switchable by --controllers, whether or not the plugin is enabled.
import { ApiError } from "../../../apimachinery/errors.js";
import { deepClone } from "../../../apimachinery/json-value.js";
import type { KObject } from "../../../apimachinery/object.js";
import { KeyQueue } from "../../../registry/work-queue.js";
import type { AdmissionParts } from "../../plugins.js";
import type { ValidatingAdmissionPolicy } from "../types.js";
import { typeCheck } from "./typecheck.js";

export const statusControllerName = "validatingadmissionpolicy-status-controller";

export interface StatusController {
  stop(): void;
}

const observed = (o: KObject) => Number((o as { status?: { observedGeneration?: number } }).status?.observedGeneration ?? 0);

export function startTypeCheckingStatus(parts: AdmissionParts, log: (msg: string) => void): StatusController | undefined {
  const t = parts.types.get("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies");
  if (!t) return undefined;
  const informer = parts.informers.forType(t);
  const queue = new KeyQueue(
    async (name) => {
      const current = informer.get("", name);
      if (!current) return;
      const generation = current.metadata.generation ?? 0;
      if (generation <= observed(current)) return;
      const warnings = typeCheck(current as unknown as ValidatingAdmissionPolicy, parts.types);
      await parts.store.update(
        t,
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
    (key, err) => {
      if (err instanceof ApiError && err.code === 404) return;
      log(`${statusControllerName}: ${key}: ${err instanceof Error ? err.message : String(err)}`);
      queue.addAfter(key, 1000);
    },
  );
  const remove = informer.addHandler({
    added: (o) => queue.add(o.metadata.name ?? ""),
    updated: (_, o) => queue.add(o.metadata.name ?? ""),
  });
  return {
    stop() {
      remove();
      queue.stop();
    },
  };
}
