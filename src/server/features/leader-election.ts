// Leader election's flags (kube-controller-manager's names and defaults): whether the controller
// manager's controllers are elected, the Lease they hold and its timings. The election itself runs
// where the controllers start (server/controller-manager.ts).
import { electionTimingsError } from "../../controller-runtime/leader-election.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { boolFlag, durationFlag, type FlagSpec } from "../flag-spec.js";
import type { ServerOptions } from "../options.js";
import type { FeatureModule } from "./feature-module.js";

/** Election is on by default only where several replicas can share the storage. */
export function leaderElectionOn(o: Pick<ServerOptions, "leaderElect" | "storageBackend">): boolean {
  return o.leaderElect ?? (o.storageBackend as string) === "etcd3";
}

const flags: readonly FlagSpec[] = [
  {
    name: "leader-elect",
    kind: "bool",
    default: "<true with --storage-backend=etcd3>",
    help: "Start a leader election client and gain leadership before running the controller manager's controllers (namespace lifecycle, garbage collector, ...): one replica runs them at a time. kapi: on by default with --storage-backend=etcd3 only; sqlite and memory run them in-process with no election.",
    apply: (o, v) => (o.leaderElect = boolFlag("leader-elect", v)),
  },
  { name: "leader-elect-lease-duration", kind: "duration", default: "15s", help: "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.", apply: (o, v) => (o.leaderElection.leaseDurationMs = durationFlag("leader-elect-lease-duration", v)) },
  { name: "leader-elect-renew-deadline", kind: "duration", default: "10s", help: "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.", apply: (o, v) => (o.leaderElection.renewDeadlineMs = durationFlag("leader-elect-renew-deadline", v)) },
  { name: "leader-elect-retry-period", kind: "duration", default: "2s", help: "The duration the clients should wait between attempting acquisition and renewal of a leadership.", apply: (o, v) => (o.leaderElection.retryPeriodMs = durationFlag("leader-elect-retry-period", v)) },
  { name: "leader-elect-resource-lock", kind: "string", default: "leases", help: "The type of resource object that is used for locking during leader election. Supported options are 'leases'.", apply: (o, v) => (o.leaderElection.resourceLock = v) },
  { name: "leader-elect-resource-name", kind: "string", default: "kapi-controllers", help: "The name of resource object that is used for locking during leader election.", apply: (o, v) => (o.leaderElection.resourceName = v) },
  { name: "leader-elect-resource-namespace", kind: "string", default: "kube-system", help: "The namespace of resource object that is used for locking during leader election.", apply: (o, v) => (o.leaderElection.resourceNamespace = v) },
];

/** What component-base's ValidateLeaderElectionConfiguration and NewLeaderElector refuse, when election is on. */
export function leaderElectionFlagsError(o: ServerOptions): string | undefined {
  if (!leaderElectionOn(o)) return undefined;
  const e = o.leaderElection;
  const positive = (name: string, ms: number) => (ms <= 0 ? `--${name}: must be greater than zero` : undefined);
  return (
    positive("leader-elect-lease-duration", e.leaseDurationMs) ??
    positive("leader-elect-renew-deadline", e.renewDeadlineMs) ??
    positive("leader-elect-retry-period", e.retryPeriodMs) ??
    (e.resourceLock !== "leases" ? `--leader-elect-resource-lock: Invalid lock-type ${goQuote(e.resourceLock)} (supported: leases)` : undefined) ??
    (e.resourceName === "" ? "--leader-elect-resource-name: resourceName is required" : undefined) ??
    (e.resourceNamespace === "" ? "--leader-elect-resource-namespace: resourceNamespace is required" : undefined) ??
    (electionTimingsError(e) ? `--leader-elect-*: ${electionTimingsError(e)}` : undefined)
  );
}

export function leaderElectionFeature(): FeatureModule {
  return {
    name: "leader-election",
    flags,
    checkFlags(options) {
      const err = leaderElectionFlagsError(options);
      if (err) throw new Error(err);
    },
  };
}
