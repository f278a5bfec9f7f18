// API Priority and Fairness (--enable-priority-and-fairness, on by default): the flow control
// stage of the chain, the controller that digests the configuration, the
// /debug/api_priority_and_fairness/ dumps and the apiserver_flowcontrol_* metrics; and, on or
// off, the bootstrap FlowSchemas and PriorityLevelConfigurations and the controller that keeps
// them. Turned off, the chain keeps max-in-flight.
import { startConfigController } from "../../controllers/flowcontrol/config-controller.js";
import { Dispatcher } from "../../controllers/flowcontrol/dispatcher.js";
import { DroppedRequestsTracker } from "../../controllers/flowcontrol/dropped-requests.js";
import { dumpPriorityLevels, dumpQueues, dumpRequests } from "../../controllers/flowcontrol/dump.js";
import { producerFieldManager, startBootstrapEnsurer } from "../../controllers/flowcontrol/ensurer.js";
import { WatchTracker } from "../../controllers/flowcontrol/watch-tracker.js";
import { workEstimator } from "../../controllers/flowcontrol/work-estimator.js";
import type { NonResourceHandler } from "../../http/context.js";
import { writeText } from "../../http/respond.js";
import { FlowControlMetrics } from "../../observability/flowcontrol-metrics.js";
import type { ResourceType } from "../../registry/resource-type.js";
import {
  flowcontrolGroup,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from "../../types/flowcontrol-bootstrap.js";
import { boolFlag } from "../flag-spec.js";
import { priorityAndFairnessFilter } from "../filters/priority-and-fairness.js";
import { isLongRunning } from "../long-running.js";
import type { CoreParts, FeatureContribution, FeatureModule } from "./feature-module.js";

/** How often the objects of each resource are counted (list requests are sized by the count). */
const objectCountPeriodMs = 60_000;

export function priorityAndFairnessFeature(): FeatureModule {
  return {
    name: "priority-and-fairness",
    flags: [
      {
        name: "enable-priority-and-fairness",
        kind: "bool",
        default: "true",
        help: "Flow control by API Priority and Fairness (FlowSchemas and PriorityLevelConfigurations) in place of the max-in-flight limits, which then size the seats its priority levels share.",
        apply: (o, v) => (o.enablePriorityAndFairness = boolFlag("enable-priority-and-fairness", v)),
      },
    ],
    checkFlags(o) {
      if (!o.enablePriorityAndFairness) return;
      if (o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0) {
        throw new Error(`invalid configuration: MaxRequestsInFlight=${o.maxRequestsInflight} and MaxMutatingRequestsInFlight=${o.maxMutatingRequestsInflight}; they must add up to something positive`);
      }
      // The controller reads flowcontrol.apiserver.k8s.io/v1: turning it off is a contradiction (upstream's check, in its order).
      for (const key of [`${flowcontrolGroup}/v1`, "api/ga", "api/all"]) {
        if (o.runtimeConfig.includes(`${key}=false`)) throw new Error(`--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true`);
        if (o.runtimeConfig.includes(`${key}=true`)) return;
      }
    },
    setup({ options, gates, log }) {
      const typesOf = (core: CoreParts) => {
        const fs = core.types.get(flowcontrolGroup, "v1", "flowschemas");
        const pl = core.types.get(flowcontrolGroup, "v1", "prioritylevelconfigurations");
        return fs && pl ? { flowSchemas: fs, priorityLevels: pl } : undefined;
      };
      // The configuration objects are kept whether or not this server classifies by them (as
      // upstream's producer hook runs with the API served).
      const producer: FeatureContribution = {
        bootstrap: async (core) => {
          const t = typesOf(core);
          if (!t) return;
          await Promise.all([
            core.ensureAll(t.priorityLevels, "", [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()] as never[], producerFieldManager),
            core.ensureAll(t.flowSchemas, "", [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()] as never[], producerFieldManager),
          ]);
        },
        replicaControllers(core) {
          const t = typesOf(core);
          return t ? [startBootstrapEnsurer({ ...core, ...t, log })] : [];
        },
      };
      if (!options.enablePriorityAndFairness) return producer;
      const metrics = new FlowControlMetrics();
      const dispatcher = new Dispatcher({ serverConcurrencyLimit: options.maxRequestsInflight + options.maxMutatingRequestsInflight, metrics });
      const watches = new WatchTracker();
      let counts = new Map<string, number>();
      let countTimer: NodeJS.Timeout | undefined;
      return {
        ...producer,
        // Requests are classified by the stored configuration from the first one on (the
        // controller's informers take over once they have listed).
        bootstrap: async (core) => {
          await producer.bootstrap!(core);
          const t = typesOf(core);
          if (!t) return;
          const [pls, fss] = await Promise.all([t.priorityLevels, t.flowSchemas].map(async (type) => (await core.stores.for(type).listStored("")).items.map((i) => i.object)));
          dispatcher.digest(pls as unknown as PriorityLevelConfiguration[], fss as unknown as FlowSchema[]);
        },
        // Every replica classifies its own requests: both controllers run on each.
        replicaControllers(core) {
          const t = typesOf(core);
          return t ? [startConfigController({ ...core, ...t, log, dispatcher }), ...producer.replicaControllers!(core)] : [];
        },
        flowControl(core) {
          countTimer = setInterval(() => void countObjects(core).then((c) => (counts = c), () => undefined), objectCountPeriodMs);
          countTimer.unref();
          return priorityAndFairnessFilter({
            dispatcher,
            watches,
            metrics,
            dropped: new DroppedRequestsTracker(),
            isLongRunning,
            requestTimeoutMs: options.requestTimeoutMs,
            estimate: workEstimator({ objectCount: (gr) => counts.get(gr), watches, maxSeats: (pl) => dispatcher.maxSeats(pl), watchList: gates.enabled("WatchList") }),
          });
        },
        nonResource: () => [debugDumps(dispatcher)],
        registerMetrics: (m) => metrics.register(m),
        stop: () => clearInterval(countTimer),
      };
    },
  };
}

/** Every stored resource's object count ("resource.group"), read from storage. */
async function countObjects(core: CoreParts): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const seen = new Set<ResourceType["keyPrefix"]>();
  for (const t of core.types.all()) {
    if (t.virtual || seen.has(t.keyPrefix)) continue;
    seen.add(t.keyPrefix);
    counts.set(t.group ? `${t.resource}.${t.group}` : t.resource, await core.storage.count(t.keyPrefix));
  }
  return counts;
}

const debugPrefix = "/debug/api_priority_and_fairness/";

function debugDumps(dispatcher: Dispatcher): NonResourceHandler {
  return (ex) => {
    if (!ex.path.startsWith(debugPrefix)) return false;
    let text: string;
    switch (ex.path.slice(debugPrefix.length)) {
      case "dump_priority_levels":
        text = dumpPriorityLevels(dispatcher);
        break;
      case "dump_queues":
        text = dumpQueues(dispatcher);
        break;
      case "dump_requests":
        text = dumpRequests(dispatcher, (ex.query.get("includeRequestDetails") ?? "").length > 0);
        break;
      default:
        return false;
    }
    writeText(ex, 200, text);
    return true;
  };
}
