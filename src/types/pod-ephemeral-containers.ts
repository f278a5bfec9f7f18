// pods/ephemeralcontainers: a view of the pod through which its ephemeral containers, and nothing
// else, change (upstream: EphemeralContainersStrategy). The generation counts it as a spec change.
import { clone } from "../apimachinery/object.js";
import { bumpGenerationIfSpecChanged, type SubresourceWrite } from "../registry/subresource-writes.js";

export const ephemeralContainersOnly: SubresourceWrite = (desired, current, _ctx, strategy) => {
  const next = clone(current);
  const ecs = (desired.spec as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
  const spec = (next.spec ??= {}) as { ephemeralContainers?: unknown };
  if (ecs === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = ecs;
  bumpGenerationIfSpecChanged(next, current, strategy);
  return next;
};
