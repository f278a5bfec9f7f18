// DeleteOptions as the store takes them, and how a propagation policy shows in finalizers.
import type { WriteOptions } from "./store.js";

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  /** Remove an object that cannot be decoded (only with the AllowUnsafeMalformedObjectDeletion gate). */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export const orphanFinalizer = "orphan";
export const foregroundFinalizer = "foregroundDeletion";

/** The object's finalizers after a DELETE with this propagation policy (upstream's rules). */
export function withPropagationFinalizers(finalizers: string[], policy: PropagationPolicy | undefined): string[] {
  if (policy === undefined) return finalizers;
  const rest = finalizers.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (policy === "Orphan") return [...rest, orphanFinalizer];
  if (policy === "Foreground") return [...rest, foregroundFinalizer];
  return rest;
}
