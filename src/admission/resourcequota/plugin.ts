// The ResourceQuota admission plugin (upstream: apiserver/pkg/admission/plugin/resourcequota).
// A validating plugin, last in the chain: a write whose usage would take a quota of its namespace
// over its status.hard is refused with 403; an admitted one is charged to the quotas' status.used
// before the object is stored, so that concurrent writes see each other's usage. The charge is a
// status write with the quota's resourceVersion as precondition (optimistic concurrency); on a
// conflict the quotas that failed are read again and the request re-checked against them, three
// times at most, as upstream. Evaluations in one namespace run one at a time (upstream batches
// them per namespace on one worker). A dry run is checked but never charged.
import { ApiError, internalError } from "../../apimachinery/errors.js";
import { parseListOptions } from "../../registry/list-options.js";
import { listObjects } from "../../registry/list.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { checkRequest, type QuotaRequest } from "./check.js";
import { evaluatorFor } from "../../quota/evaluators/registry.js";
import type { Evaluator } from "../../quota/evaluators/evaluator.js";
import type { QuotaConfiguration } from "./configuration.js";

const maxRetries = 3;
const everything = parseListOptions(new URLSearchParams());

const rv = (o: KObject) => Number(o.metadata.resourceVersion ?? 0);

export interface QuotaAccess {
  /** The namespace's quotas, as fresh as this process knows them. */
  list(namespace: string): Promise<KObject[]>;
  /** The quota as stored now (undefined once deleted). */
  get(namespace: string, name: string): Promise<KObject | undefined>;
  /** Writes the quota's status; its metadata.resourceVersion is the precondition. */
  updateStatus(quota: KObject): Promise<void>;
}

/**
 * Quotas from the shared informer, each replaced by the copy this plugin last wrote when that one
 * is newer (the informer hears of a write a moment after it returns: without this the next
 * request would be checked against the old usage and lose a round trip to the conflict).
 */
export function storeQuotaAccess(parts: () => AdmissionParts): QuotaAccess {
  let rqType: ResourceType | undefined;
  const type = () => (rqType ??= parts().types.get("", "v1", "resourcequotas"));
  const written = new Map<string, KObject>(); // namespace/name → our latest write
  const key = (q: KObject) => `${q.metadata.namespace}/${q.metadata.name}`;
  return {
    async list(namespace) {
      const t = type();
      if (!t) return []; // ResourceQuota is not served: nothing limits anything
      let informer: ReturnType<AdmissionParts["informers"]["forType"]> | undefined;
      try {
        informer = parts().informers.forType(t);
      } catch {
        informer = undefined; // the informers are stopping with the server: read storage
      }
      const listed = informer?.hasSynced() ? informer.list(namespace) : (await listObjects(parts().stores.for(t), namespace, everything)).items;
      const present = new Set(listed.map(key));
      for (const k of written.keys()) if (k.startsWith(`${namespace}/`) && !present.has(k)) written.delete(k); // deleted quotas
      return listed.map((q) => {
        const mine = written.get(key(q));
        if (!mine) return q;
        if (mine.metadata.uid === q.metadata.uid && rv(mine) > rv(q)) return mine;
        written.delete(key(q)); // the informer caught up (or the quota was replaced)
        return q;
      });
    },
    async get(namespace, name) {
      try {
        return await parts().stores.for(type()!).get(namespace, name);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return undefined;
        throw e;
      }
    },
    async updateStatus(quota) {
      const res = await parts().stores.for(type()!).update(
        quota.metadata.namespace!,
        quota.metadata.name!,
        { subresource: "status", createIfMissing: false, desired: () => quota },
        { dryRun: false },
      );
      written.set(key(res.object), res.object);
    },
  };
}

/** Runs `fn` after every earlier call for the same key has finished. */
function serializer() {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

function requestName(a: AdmissionAttributes): string {
  return a.name || a.object?.metadata.name || a.object?.metadata.generateName || "Unknown";
}

/** How long a request waits for its turn and its charge (upstream: 10s, then an internal error). */
const evaluationTimeoutMs = 10_000;

export interface ResourceQuotaOptions {
  config?: QuotaConfiguration;
  now?: () => number;
}

export function resourceQuotaPlugin(access: QuotaAccess, { config = { limitedResources: [] }, now = Date.now }: ResourceQuotaOptions = {}): AdmissionPlugin {
  const inNamespace = serializer();
  const limited = config.limitedResources;

  async function charge(a: AdmissionAttributes, r: QuotaRequest, e: Evaluator): Promise<void> {
    let quotas = await access.list(a.namespace);
    for (let retriesLeft = maxRetries; quotas.length > 0 || limited.length > 0; retriesLeft--) {
      const next = checkRequest(quotas, r, e, now(), limited);
      if (a.dryRun) return;
      const failed: KObject[] = [];
      let lastErr: unknown;
      for (let i = 0; i < next.length; i++) {
        if (next[i] === quotas[i]) continue;
        try {
          await access.updateStatus(next[i]!);
        } catch (err) {
          failed.push(quotas[i]!);
          lastErr = err;
        }
      }
      if (failed.length === 0) return;
      if (retriesLeft <= 0) throw lastErr;
      // Only the quotas whose charge failed are checked again, as they are now; the others hold the charge.
      const fresh = await Promise.all(failed.map((q) => access.get(a.namespace, q.metadata.name!)));
      quotas = fresh.filter((q): q is KObject => q !== undefined);
      if (quotas.length === 0) return;
    }
  }

  async function evaluate(a: AdmissionAttributes): Promise<void> {
    // Cluster-scoped writes (namespaces included) are never under a quota.
    if (!a.type.namespaced || !a.namespace || a.type.virtual) return;
    const e = evaluatorFor(a.type.group, a.type.resource);
    const r: QuotaRequest = { operation: a.operation, subresource: a.subresource, object: a.object, oldObject: a.oldObject, gr: a.type.gr, name: requestName(a) };
    if (!e || !e.handles(r)) return;
    // A namespace without quotas costs a look at the informer, no turn in the namespace's line.
    if (limited.length === 0 && (await access.list(a.namespace)).length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(internalError(new Error("resource quota evaluation timed out"))), evaluationTimeoutMs);
    });
    try {
      await Promise.race([inNamespace(a.namespace, () => charge(a, r, e)), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    name: "ResourceQuota",
    operations: ["CREATE", "UPDATE"],
    validate: evaluate,
  };
}
