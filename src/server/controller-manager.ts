// Where the controller manager's controllers run (upstream: kube-controller-manager beside the API
// server). Without election they start once the bootstrap objects exist, and the ones that wait
// for serving start a moment after the server listens. With election (--leader-elect) this replica
// is a candidate for a coordination.k8s.io/v1 Lease: both phases start when it becomes the leader
// (the second once it also serves) and stop at once when it stops leading.
import { LeaderElector } from "../controller-runtime/leader-election.js";
import { candidateIdentity, leaseLock } from "../controller-runtime/lease-lock.js";
import { delayedStart, type DelayedStart, type PendingStart } from "./controllers-idle.js";
import type { AssembledFeatures, CoreParts } from "./features/feature-module.js";
import type { LeaderElectionFlags } from "./options.js";

export interface ControllerManager {
  /** The server listens: the controllers that wait for it may start (after `onceServingDelayMs`). */
  serving(): void;
  /** The controllers that wait for serving start now, if this replica runs them (a test kit's settle()). */
  startNow(): void;
  /** Controllers still to start here (what controllersIdle() counts as work at hand). */
  readonly later: PendingStart;
  /** The election, when there is one: this replica's identity and whether it leads. */
  readonly election?: { readonly identity: string; isLeading(): boolean; leader(): string };
  stop(): void;
}

export interface ControllerManagerDeps {
  features: AssembledFeatures;
  core: CoreParts;
  /** Undefined: no election, the controllers run here. */
  election: LeaderElectionFlags | undefined;
  onceServingDelayMs: number;
  log(msg: string): void;
}

export function startControllerManager(d: ControllerManagerDeps): ControllerManager {
  let isServing = false;
  let leading = false;
  let onceServing: DelayedStart | undefined;
  const startOnceServing = () => {
    if (isServing && leading && !onceServing) onceServing = delayedStart(() => d.features.startControllersOnceServing(d.core), d.onceServingDelayMs);
  };
  const startTerm = () => {
    leading = true;
    d.features.startControllers(d.core);
    startOnceServing();
  };
  const endTerm = () => {
    leading = false;
    onceServing?.cancel();
    onceServing = undefined;
    d.features.stopElectedControllers();
  };

  const elector = d.election ? electorFor(d.election, d.core, { onStartedLeading: startTerm, onStoppedLeading: endTerm }, d.log) : undefined;
  if (elector) elector.run();
  else startTerm();

  return {
    serving() {
      isServing = true;
      startOnceServing();
    },
    startNow: () => onceServing?.startNow(),
    later: {
      // Work is at hand until the first election attempt has decided, and while a leader's
      // once-serving controllers wait for their start. A replica that does not lead has none.
      settled: () => (elector?.firstAttemptDone() ?? true) && (!leading || onceServing?.settled() === true),
      async whenSettled() {
        await elector?.firstAttempt;
        while (leading && onceServing && !onceServing.settled()) await onceServing.whenSettled();
      },
    },
    ...(elector ? { election: { identity: elector.identity, isLeading: () => elector.isLeading(), leader: () => elector.leader() } } : {}),
    stop() {
      elector?.stop();
      endTerm();
    },
  };
}

function electorFor(e: LeaderElectionFlags, core: CoreParts, callbacks: { onStartedLeading(): void; onStoppedLeading(): void }, log: (msg: string) => void): LeaderElector {
  const leases = core.types.get("coordination.k8s.io", "v1", "leases");
  if (!leases) throw new Error("--leader-elect needs coordination.k8s.io/v1 leases to be served (see --runtime-config)");
  const identity = candidateIdentity();
  return new LeaderElector({
    lock: leaseLock(core.stores.for(leases), e.resourceNamespace, e.resourceName, identity),
    timings: e,
    callbacks: { ...callbacks, onNewLeader: (id) => log(`kapi: leader election: new leader ${id || "(none)"} of ${e.resourceNamespace}/${e.resourceName}`) },
    log,
  });
}
