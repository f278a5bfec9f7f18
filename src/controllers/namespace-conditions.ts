// What a terminating namespace says about its deletion (upstream: the namespace deleter's status
// conditions): five condition types, each True with the reason something is stuck, or False with
// an all-clear, so `kubectl describe namespace` explains a deletion that does not finish.
// Pure: the controller gathers a ContentReport on each pass and writes back what this returns.

export interface NamespaceCondition {
  type: string;
  status: "True" | "False";
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** What one pass over a terminating namespace's content found. */
export interface ContentReport {
  /** One message per type whose content could not be deleted (or that left unexplained objects). */
  errors: string[];
  /** Objects still present, by `resource.group` (the core group is empty: `pods.`). */
  remainingByResource: Map<string, number>;
  /** Objects still present, by each finalizer they carry. */
  remainingByFinalizer: Map<string, number>;
}

export const emptyReport = (): ContentReport => ({ errors: [], remainingByResource: new Map(), remainingByFinalizer: new Map() });

type Desired = Omit<NamespaceCondition, "lastTransitionTime">;

// Order matters: missing conditions are appended in this order.
const discoveryFailure = "NamespaceDeletionDiscoveryFailure";
const groupVersionParsingFailure = "NamespaceDeletionGroupVersionParsingFailure";
const contentFailure = "NamespaceDeletionContentFailure";
const contentRemaining = "NamespaceContentRemaining";
const finalizersRemaining = "NamespaceFinalizersRemaining";

const allClear: Record<string, { reason: string; message: string }> = {
  [discoveryFailure]: { reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
  [groupVersionParsingFailure]: { reason: "ParsedGroupVersions", message: "All legacy kube types successfully parsed" },
  [contentFailure]: { reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" },
  [contentRemaining]: { reason: "ContentRemoved", message: "All content successfully removed" },
  [finalizersRemaining]: { reason: "ContentRemoved", message: "All content successfully removed" },
};

/** "name has|in N ...", sorted so that an unchanged state yields an unchanged message. */
const tally = (counts: Map<string, number>, line: (key: string, n: number) => string) =>
  [...counts].filter(([, n]) => n > 0).map(([k, n]) => line(k, n)).sort().join(", ");

/**
 * The five conditions a report calls for. Discovery and group-version parsing always succeed
 * here: kapi deletes by its own type registry, not by asking a server what it serves.
 */
export function deletionConditions(report: ContentReport): Desired[] {
  const failing = new Map<string, Desired>();
  if (report.errors.length > 0) {
    failing.set(contentFailure, {
      type: contentFailure,
      status: "True",
      reason: "ContentDeletionFailed",
      message: `Failed to delete all resource types, ${report.errors.length} remaining: ${[...report.errors].sort().join(", ")}`,
    });
  }
  if (report.remainingByResource.size > 0) {
    failing.set(contentRemaining, {
      type: contentRemaining,
      status: "True",
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${tally(report.remainingByResource, (r, n) => `${r} has ${n} resource instances`)}`,
    });
  }
  if (report.remainingByFinalizer.size > 0) {
    failing.set(finalizersRemaining, {
      type: finalizersRemaining,
      status: "True",
      reason: "SomeFinalizerRemain",
      message: `Some finalizers are remaining: ${tally(report.remainingByFinalizer, (f, n) => `${f} in ${n} resource instances`)}`,
    });
  }
  return Object.keys(allClear).map((type) => failing.get(type) ?? { type, status: "False", ...allClear[type]! });
}

/**
 * `current` with each desired condition set: appended when missing, rewritten when its status,
 * reason or message differ (the transition time moves only with the status). Conditions of
 * other types are kept. Undefined when nothing changes, so an unchanged pass writes nothing.
 */
export function mergeConditions(current: readonly NamespaceCondition[] | undefined, desired: readonly Desired[], now: string): NamespaceCondition[] | undefined {
  const next = (current ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const want of desired) {
    const have = next.find((c) => c.type === want.type);
    if (!have) {
      next.push({ type: want.type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message });
      changed = true;
    } else if (have.status !== want.status || have.reason !== want.reason || have.message !== want.message) {
      if (have.status !== want.status) have.lastTransitionTime = now;
      Object.assign(have, { status: want.status, reason: want.reason, message: want.message });
      changed = true;
    }
  }
  return changed ? next : undefined;
}
