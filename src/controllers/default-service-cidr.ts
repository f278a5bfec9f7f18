// kube-apiserver 1.34's default ServiceCIDR controller (pkg/controlplane/controller/
// defaultservicecidr; MultiCIDRServiceAllocator is GA and locked on in 1.34): every API server
// makes the networking.k8s.io/v1 ServiceCIDR "kubernetes" from --service-cluster-ip-range when it
// is missing (start-up waits for it, and it is made again when deleted), and, when its CIDRs are
// the flag's and no Ready condition says otherwise, applies Ready=True to its status. It never
// changes a "kubernetes" ServiceCIDR whose CIDRs differ from the flag's: it says so once.
// Upstream polls every 10 s; kapi follows the object's informer instead.
import { ApiError } from "../apimachinery/errors.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { nowTimestamp, type KObject } from "../apimachinery/object.js";
import { applyPatch } from "../apply/index.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../controller-runtime/rate-limiter.js";
import { ownershipOptions } from "../registry/field-ownership.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";

export const defaultServiceCIDRName = "kubernetes";
const controllerName = "kubernetes-service-cidr-controller";
/** The manager of kube-apiserver's own loopback writes (its user agent's first word). */
const apiServerManager = "kube-apiserver";
const readyMessage = "Kubernetes default Service CIDR is ready";
const retryMs = 1000;

export interface DefaultServiceCIDRDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** The flag's CIDRs, primary first (kapi serves one IPv4 range). */
  cidrs: string[];
  log(msg: string): void;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

const notFound = (e: unknown) => e instanceof ApiError && e.code === 404;
const alreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === "AlreadyExists";

/** The ServiceCIDR type when this server serves it. */
export function serviceCIDRType(types: TypeRegistry): ResourceType | undefined {
  return types.get("networking.k8s.io", "v1", "servicecidrs");
}

export class DefaultServiceCIDR {
  private reportedMismatch = false;
  private reportedNotReady = false;

  constructor(
    private readonly t: ResourceType,
    private readonly deps: DefaultServiceCIDRDeps,
  ) {}

  /** One pass: make the object when missing, then its status. */
  async sync(): Promise<void> {
    const store = this.deps.stores.for(this.t);
    let current = await store.get("", defaultServiceCIDRName).catch((e) => (notFound(e) ? undefined : Promise.reject(e)));
    if (!current) {
      this.deps.log(`kapi: creating the default ServiceCIDR with CIDRs ${JSON.stringify(this.deps.cidrs)}`);
      const body = { apiVersion: "networking.k8s.io/v1", kind: "ServiceCIDR", metadata: { name: defaultServiceCIDRName }, spec: { cidrs: [...this.deps.cidrs] } } as KObject;
      const made: KObject = await store.create("", body, { dryRun: false, fieldManager: apiServerManager }).then(
        (r) => r.object,
        // Another server made it meanwhile: its status is judged as it is.
        (e) => (alreadyExists(e) ? store.get("", defaultServiceCIDRName) : Promise.reject(e)),
      );
      current = made;
    }
    await this.syncStatus(current);
  }

  private async syncStatus(sc: KObject): Promise<void> {
    // Deletion is the controller manager's to finish.
    if (sc.metadata.deletionTimestamp) return;
    const spec = (sc as { spec?: { cidrs?: unknown } }).spec;
    if (!deepEqual(spec?.cidrs ?? [], this.deps.cidrs)) {
      if (!this.reportedMismatch) {
        this.deps.log(`kapi: the default ServiceCIDR's CIDRs ${JSON.stringify(spec?.cidrs ?? [])} are not --service-cluster-ip-range's ${JSON.stringify(this.deps.cidrs)}; configure the flag to match or delete the ServiceCIDR`);
        this.reportedMismatch = true;
      }
      return;
    }
    const conditions = ((sc as { status?: { conditions?: Condition[] } }).status?.conditions ?? []) as Condition[];
    const ready = conditions.find((c) => c.type === "Ready");
    if (ready?.status === "False") {
      // Set by someone else: not overwritten (upstream neither), but said once.
      if (!this.reportedNotReady) {
        this.deps.log(`kapi: the default ServiceCIDR's Ready condition is False (${ready.reason ?? ""}: ${ready.message ?? ""}) although its CIDRs match; check the cluster's network configuration`);
        this.reportedNotReady = true;
      }
      return;
    }
    if (ready?.status === "True") return;
    await this.applyReady();
  }

  /** Server-side apply of Ready=True to the status, forced, as the controller's own field manager. */
  private async applyReady(): Promise<void> {
    const t = this.t;
    const config = {
      apiVersion: "networking.k8s.io/v1",
      kind: "ServiceCIDR",
      metadata: { name: defaultServiceCIDRName },
      status: { conditions: [{ type: "Ready", status: "True", message: readyMessage, lastTransitionTime: nowTimestamp() }] },
    };
    const engine = { ...ownershipOptions(t, "status"), force: true };
    await this.deps.stores.for(t).update("", defaultServiceCIDRName, {
      subresource: "status",
      createIfMissing: false,
      desired: (live) => {
        const applied = applyPatch(live, config, controllerName, undefined, engine).object as KObject;
        // metav1.Condition's reason is a required string: upstream's stored condition carries it
        // empty although the apply did not set it (and does not own it).
        for (const c of ((applied as { status?: { conditions?: Condition[] } }).status?.conditions ?? []) as Condition[]) if (c.type === "Ready") c.reason ??= "";
        return applied;
      },
    }, { dryRun: false, fieldManager: controllerName, ownershipRecorded: true });
  }
}

/** Follows the default ServiceCIDR on this server (every server runs one, as every kube-apiserver does). */
export function startDefaultServiceCIDR(cidr: DefaultServiceCIDR, t: ResourceType, informers: InformerFactory): Controller {
  const informer = informers.forType(t);
  const ours = (sc: KObject) => sc.metadata.name === defaultServiceCIDRName && defaultServiceCIDRName;
  return runController({
    name: controllerName,
    watches: [{ informer, updated: (_old, sc) => ours(sc), deleted: ours }],
    reconcile: () => cidr.sync(),
    retry: fixedDelayRateLimiter(retryMs),
    retryIf: (e) => !notFound(e),
  });
}
