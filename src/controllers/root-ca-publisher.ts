// The root CA publisher (upstream: kube-controller-manager's root-ca-certificate-publisher): every
// namespace has a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA bundle that verifies this
// server, because the ServiceAccount admission plugin mounts it into every pod's API access
// volume. Made when missing, made again when deleted, put back when edited.
//
// It hears of namespaces from the namespace (metadata) informer and of the ConfigMap's changes from
// a ConfigMap metadata informer (so no ConfigMap's data is held in memory), and reads the live
// ConfigMap before writing.
import { ApiError } from "../apimachinery/errors.js";
import { deepClone, deepEqual } from "../apimachinery/json-value.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { KObject } from "../apimachinery/object.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { controllerEnabled, rootCACertificatePublisherController } from "../controller-runtime/controllers-flag.js";
import { controllerManagerFieldManager } from "./field-manager.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../controller-runtime/rate-limiter.js";

export const rootCAConfigMapName = "kube-root-ca.crt";
const descriptionAnnotation = "kubernetes.io/description";
// The annotation's value is part of what clients read, so it is upstream's wording.
const description =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";
const retryMs = 1000;

export interface RootCAPublisherDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** PEM bundle published as `ca.crt`. */
  rootCA: string;
}

const notFound = (e: unknown) => e instanceof ApiError && e.code === 404;
/** Refused because the namespace is going away: there is nothing to publish into. */
const namespaceTerminating = (e: unknown) => e instanceof ApiError && e.code === 403 && (e.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");

export function startRootCAPublisher({ stores, types, informers, rootCA }: RootCAPublisherDeps): Controller {
  const nsType = types.get("", "v1", "namespaces")!;
  const cmType = types.get("", "v1", "configmaps")!;
  const namespaces = informers.metadataFor(nsType);
  const configMaps = informers.metadataFor(cmType);
  const wanted = { "ca.crt": rootCA };
  async function sync(ns: string): Promise<void> {
    const namespace = await stores.for(nsType).get("", ns).catch((e) => (notFound(e) ? undefined : Promise.reject(e)));
    if (!namespace || namespace.metadata.deletionTimestamp) return;
    const current = await stores.for(cmType).get(ns, rootCAConfigMapName).catch((e) => (notFound(e) ? undefined : Promise.reject(e)));
    if (!current) {
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: rootCAConfigMapName, annotations: { [descriptionAnnotation]: description } }, data: { ...wanted } } as KObject;
      await stores.for(cmType).create(ns, cm, { dryRun: false, fieldManager: controllerManagerFieldManager }).catch((e) => {
        if (!notFound(e) && !namespaceTerminating(e)) throw e;
      });
      return;
    }
    if (isPublished(current)) return;
    await stores.for(cmType).update(ns, rootCAConfigMapName, { subresource: "", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone"); // deleted meanwhile: its delete event queues a create
      const next = deepClone(stored);
      next.data = { ...wanted };
      next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [descriptionAnnotation]: description };
      return next;
    } }, { dryRun: false, fieldManager: controllerManagerFieldManager }).catch((e) => {
      if (!notFound(e)) throw e;
    });
  }

  /** The bundle and only the bundle in data, and the annotation saying what it is for. */
  const isPublished = (cm: KObject) => deepEqual(cm.data ?? {}, wanted) && Boolean(cm.metadata.annotations?.[descriptionAnnotation]);

  const ours = (cm: KObject) => cm.metadata.name === rootCAConfigMapName && cm.metadata.namespace!;
  return runController({
    name: rootCACertificatePublisherController,
    watches: [
      { informer: namespaces, added: (ns) => ns.metadata.name!, updated: (_old, ns) => !ns.metadata.deletionTimestamp && ns.metadata.name! },
      { informer: configMaps, updated: (_old, cm) => ours(cm), deleted: ours },
    ],
    reconcile: sync,
    // A failed sync (a conflict, a quota refusal, storage closing) is tried again after a pause.
    retry: fixedDelayRateLimiter(retryMs),
  });
}

/** The publisher, when --controllers enables it and namespaces and ConfigMaps are served. */
export function startRootCAPublishing(deps: RootCAPublisherDeps, enabled: readonly string[]): Controller[] {
  const served = (r: string) => !!deps.types.get("", "v1", r);
  if (!served("namespaces") || !served("configmaps") || !controllerEnabled(rootCACertificatePublisherController, enabled)) return [];
  return [startRootCAPublisher(deps)];
}
