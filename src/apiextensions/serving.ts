// Serves custom resources: an informer on customresourcedefinitions turns every established CRD
// into one ResourceType per served version in the TypeRegistry (added, updated in place when the
// CRD changes, removed when a version stops being served or the CRD goes). Discovery, OpenAPI v3,
// the watch caches and the garbage collector follow the registry's events.
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { KObject } from "../apimachinery/object.js";
import { customResourceTypes, isTerminating, type DefinitionState, type CRDVersion, type CustomResourceDefinition, type VersionHooks } from "./custom-resource-type.js";
import { compileValidationRules, type RulesSchema } from "./validation-rules.js";
import type { CelTimings } from "../cel/timings.js";
import type { Stores } from "../registry/stores.js";
import { endpointServiceResolver, informerServiceSource, type ServiceResolver } from "../webhook/service-resolver.js";
import { syncedInformerLookup } from "../registry/synced-informer-lookup.js";
import { runController, type Controller } from "../controller-runtime/controller.js";

/** CEL rules of a version, compiled once per schema object (the compiler caches by schema), timed into `timings`. */
export function celRulesHooks(timings?: CelTimings): VersionHooks {
  return {
    rules(v: CRDVersion) {
      const schema = v.schema?.openAPIV3Schema;
      if (!schema) return undefined;
      const { validator } = compileValidationRules(schema as unknown as RulesSchema, { path: "openAPIV3Schema", timings });
      return validator.hasRules ? validator : undefined;
    },
  };
}

export interface CrdServingDeps {
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (msg: string) => void;
  hooks?: VersionHooks;
  /** Reads Services for conversion webhooks given as a service reference. */
  stores?: Stores;
}

export interface CrdServing extends Controller {
  /** CRD name → the group/version/resources it serves. */
  served(): Map<string, ResourceType[]>;
}

const controllerName = "crd-serving";

/** Served once the establishing controller set Established (src/controllers/crd/). */
export function isEstablished(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
}

const gvrKey = (t: ResourceType) => `${t.group}/${t.version}/${t.resource}`;

export function startCrdServing({ types, informers, log = () => undefined, stores, hooks: given = celRulesHooks(stores?.config.celTimings) }: CrdServingDeps): CrdServing {
  const crdType = types.get("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  // Conversion webhooks named by a service reference dial one of the Service's endpoints (no kube-proxy here).
  const resolveService: ServiceResolver | undefined = stores ? endpointServiceResolver(informerServiceSource(syncedInformerLookup(informers, types))) : undefined;
  const hooks: VersionHooks = { ...given, converterOptions: { ...(given.converterOptions ?? {}), ...(resolveService ? { resolveService } : {}) } };
  const served = new Map<string, ResourceType[]>();
  if (!crdType) return { ...runController({ name: controllerName }), served: () => served };
  /** Types this module registered (by group/version/resource): never touch a built-in. */
  const ours = new Set<string>();
  /** Per CRD: what its types were built from, and the state they read at run time. */
  const built = new Map<string, { from: string; state: DefinitionState }>();

  function reconcile(name: string, crd: CustomResourceDefinition | undefined): void {
    // As upstream, only a change of spec or accepted names rebuilds the types (and drops their
    // watch caches); status-only updates (conditions, Terminating, storedVersions) keep them.
    const from = crd && isEstablished(crd) ? JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]) : "";
    const last = built.get(name);
    if (crd && last && last.from === from && served.has(name)) {
      last.state.terminating = isTerminating(crd);
      return;
    }
    const state: DefinitionState = { terminating: crd ? isTerminating(crd) : false };
    if (crd && from) built.set(name, { from, state });
    else built.delete(name);
    let desired: ResourceType[] = [];
    if (crd && isEstablished(crd)) {
      try {
        desired = customResourceTypes(crd, hooks, state);
      } catch (e) {
        log(`kapi: custom resource ${name} cannot be served: ${(e as Error).message}`);
        desired = [];
      }
    }
    const previous = served.get(name) ?? [];
    const keep = new Set(desired.map(gvrKey));
    for (const t of previous) {
      if (keep.has(gvrKey(t))) continue;
      ours.delete(gvrKey(t));
      types.remove(t.group, t.version, t.resource);
    }
    const now: ResourceType[] = [];
    for (const t of desired) {
      const key = gvrKey(t);
      const existing = types.get(t.group, t.version, t.resource);
      if (existing && !ours.has(key)) {
        log(`kapi: custom resource ${name}: ${key} is already served; not serving it again`);
        continue;
      }
      if (existing && previous.some((p) => gvrKey(p) === key)) types.update(t);
      else if (existing) continue; // another CRD serves it
      else {
        types.add(t);
        ours.add(key);
      }
      now.push(t);
    }
    if (now.length > 0) served.set(name, now);
    else served.delete(name);
  }

  // The registry changes in the informer's handlers themselves, not from a queue: a CRD's types
  // are served as soon as the informer hears it is established.
  const informer = informers.forType(crdType);
  const controller = runController({
    name: controllerName,
    setup: (ctx) =>
      ctx.follow(informer, {
        added: (o: KObject) => reconcile(o.metadata.name!, o as unknown as CustomResourceDefinition),
        updated: (_old: KObject, o: KObject) => reconcile(o.metadata.name!, o as unknown as CustomResourceDefinition),
        deleted: (o: KObject) => reconcile(o.metadata.name!, undefined),
      }),
  });
  return { ...controller, served: () => served };
}
