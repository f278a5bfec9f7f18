// Keeps the bootstrap FlowSchemas and PriorityLevelConfigurations as upstream keeps them (the
// "priority-and-fairness-config-producer" post-start hook and pkg/registry/flowcontrol/ensurer):
// - a missing one, mandatory or suggested, is created again;
// - a mandatory one always gets its fixed spec back (exempt's shares and lendable percent are
//   the administrator's) and the auto-update annotation "true";
// - a suggested one gets the current spec only while its annotation says "true" (or, without a
//   readable annotation, while it was never changed: generation 1), and its annotation is set to
//   what was decided;
// - an object carrying the annotation "true" that is no longer a bootstrap object is deleted.
// Upstream runs this every minute; here it also runs on every change of such an object.
import { parseGoBool } from "../../apimachinery/booleans.js";
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import { runController, type Controller } from "../../controller-runtime/controller.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import {
  autoUpdateAnnotation,
  exemptName,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  sameSpec,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from "../../types/flowcontrol-bootstrap.js";

export const producerFieldManager = "api-priority-and-fairness-config-producer-v1";
export const ensurerName = "priority-and-fairness-config-producer";
const resyncMs = 60_000;

type ConfigObject = FlowSchema | PriorityLevelConfiguration;

/**
 * What `current` should become to match `bootstrap`, or undefined when it is fine as it is.
 * `mandatory`: the spec is always restored.
 */
export function ensuredObject(current: ConfigObject, bootstrap: ConfigObject, mandatory: boolean): ConfigObject | undefined {
  const annotation = current.metadata.annotations?.[autoUpdateAnnotation];
  const autoUpdate = mandatory || (parseGoBool(annotation ?? "") ?? current.metadata.generation === 1);
  const updateAnnotation = parseGoBool(annotation ?? "") !== autoUpdate;
  const expected = expectedSpec(current, bootstrap);
  const specChanged = autoUpdate && !sameSpec(expected, current.spec);
  if (!updateAnnotation && !specChanged) return undefined;
  const next = structuredClone(current) as ConfigObject;
  if (updateAnnotation) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [autoUpdateAnnotation]: String(autoUpdate) };
  if (specChanged) next.spec = structuredClone(expected) as never;
  return next;
}

/** The bootstrap spec, with what the administrator may set on exempt taken from `current`. */
function expectedSpec(current: ConfigObject, bootstrap: ConfigObject): ConfigObject["spec"] {
  if (bootstrap.metadata.name !== exemptName || !("type" in current.spec) || !current.spec.exempt) return bootstrap.spec;
  const spec = structuredClone(bootstrap.spec) as PriorityLevelConfiguration["spec"];
  spec.exempt = { ...spec.exempt, nominalConcurrencyShares: current.spec.exempt.nominalConcurrencyShares, lendablePercent: current.spec.exempt.lendablePercent };
  return spec;
}

/** What the flowcontrol controllers are built with. */
export interface EnsurerParts {
  stores: Stores;
  informers: InformerFactory;
  flowSchemas: ResourceType;
  priorityLevels: ResourceType;
  log(msg: string): void;
}

interface Kind {
  type: ResourceType;
  mandatory: ConfigObject[];
  suggested: ConfigObject[];
}

export function startBootstrapEnsurer(p: EnsurerParts): Controller {
  const kinds: Kind[] = [
    { type: p.flowSchemas, mandatory: mandatoryFlowSchemas(), suggested: suggestedFlowSchemas() },
    { type: p.priorityLevels, mandatory: mandatoryPriorityLevels(), suggested: suggestedPriorityLevels() },
  ];
  const bootstrapNames = new Set(kinds.flatMap((k) => [...k.mandatory, ...k.suggested].map((o) => `${k.type.resource}/${o.metadata.name}`)));
  const concerns = (t: ResourceType) => (o: KObject) => bootstrapNames.has(`${t.resource}/${o.metadata.name}`) || o.metadata.annotations?.[autoUpdateAnnotation] !== undefined;
  const key = "bootstrap";
  const watches = kinds.map((k) => {
    const relevant = concerns(k.type);
    return {
      informer: p.informers.forType(k.type),
      added: (o: KObject) => relevant(o) && key,
      updated: (_: KObject, o: KObject) => relevant(o) && key,
      deleted: (o: KObject) => relevant(o) && key,
    };
  });
  const ignoreGone = (e: unknown) => {
    if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
  };
  return runController({
    name: ensurerName,
    watches,
    resync: { everyMs: resyncMs, keys: () => [key] },
    onError: (_k, err) => p.log(`${ensurerName}: ${err instanceof Error ? err.message : String(err)}`),
    async reconcile() {
      for (const [i, k] of kinds.entries()) {
        const informer = watches[i]!.informer;
        const store = p.stores.for(k.type);
        // Suggested first, as upstream: the mandatory ones follow even if a suggested one failed later.
        for (const [mandatory, objects] of [[false, k.suggested], [true, k.mandatory]] as const) {
          for (const bootstrap of objects) {
            const current = informer.get("", bootstrap.metadata.name) as unknown as ConfigObject | undefined;
            if (!current) {
              await store.create("", structuredClone(bootstrap), { dryRun: false, fieldManager: producerFieldManager }).catch((e) => {
                if (!(e instanceof ApiError && e.code === 409)) throw e;
              });
              continue;
            }
            if (!ensuredObject(current, bootstrap, mandatory)) continue;
            await store
              .update("", bootstrap.metadata.name, { subresource: "", createIfMissing: false, desired: (stored) => (stored ? (ensuredObject(stored as unknown as ConfigObject, bootstrap, mandatory) as unknown as KObject | undefined) ?? stored : gone()) }, { dryRun: false, fieldManager: producerFieldManager })
              .catch(ignoreGone);
          }
        }
        for (const o of informer.list()) {
          if (bootstrapNames.has(`${k.type.resource}/${o.metadata.name}`)) continue;
          if (parseGoBool(o.metadata.annotations?.[autoUpdateAnnotation] ?? "") !== true) continue;
          await store.delete("", o.metadata.name!, { dryRun: false }).catch(ignoreGone);
        }
      }
    },
  });
}

function gone(): never {
  throw new ApiError(404, "NotFound", "gone");
}
