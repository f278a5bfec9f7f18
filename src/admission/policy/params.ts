// paramKind / paramRef (upstream: generic.CollectParams): which objects a binding's policy is
// evaluated with. Params come from any served type, custom resources included, read through the
// shared informer of their type, with a live read when the informer has not seen a named param
// yet (a param created just before the request). An empty result means "not evaluated" unless
// parameterNotFoundAction is Deny.
import { labelSelectorFromObject } from "../../apimachinery/labels.js";
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionParts } from "../plugins.js";
import type { ParamKind, ParamRef } from "./types.js";

/** A Go-formatted ParamKind, as upstream's messages print it. */
export function paramKindString(k: ParamKind): string {
  return `&ParamKind{APIVersion:${k.apiVersion ?? ""},Kind:${k.kind ?? ""},}`;
}

/** The served type of a paramKind (undefined when nothing serves it). */
export function paramType(parts: AdmissionParts, k: ParamKind): ResourceType | undefined {
  if (!k.apiVersion || !k.kind) return undefined;
  return parts.types.all().find((t) => t.apiVersion === k.apiVersion && t.kind === k.kind && !t.virtual);
}

/**
 * Why a policy's paramKind cannot be used (upstream: the policy source's configuration error,
 * reported as "failed to configure policy: ..." for every request the policy matches); undefined
 * when it names a served type or is absent.
 */
export function paramKindProblem(parts: AdmissionParts, k: ParamKind | undefined): string | undefined {
  if (!k) return undefined;
  const apiVersion = k.apiVersion ?? "";
  if (apiVersion.split("/").length > 2) return `failed to parse apiVersion of paramKind '${paramKindString(k)}' with error: unexpected GroupVersion string: ${apiVersion}`;
  if (paramType(parts, k)) return undefined;
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  return `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${k.kind ?? ""}'`;
}

const syncWaitMs = 1000;

export class ParamError extends Error {}

/**
 * The params one binding evaluates its policy with: [null] when the policy or binding uses none,
 * the matching objects otherwise (possibly none).
 */
export async function collectParams(parts: AdmissionParts, kind: ParamKind | undefined, ref: ParamRef | undefined, requestNamespace: string): Promise<(KObject | null)[]> {
  if (!kind || !ref) return [null];
  const t = paramType(parts, kind);
  if (!t) throw new ParamError(`paramKind kind \`${paramKindString(kind)}\` not known`);
  const informer = parts.informers.forType(t);
  let namespace = "";
  if (t.namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) throw new ParamError("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");
  }
  if (!informer.hasSynced()) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([informer.synced, new Promise((r) => (timer = setTimeout(r, syncWaitMs)))]);
    clearTimeout(timer);
    if (!informer.hasSynced()) throw new ParamError(`paramKind kind \`${paramKindString(kind)}\` not yet synced to use for admission`);
  }
  let params: KObject[];
  if (ref.namespace && !t.namespaced) throw new ParamError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
  if (ref.name) {
    if (ref.selector) throw new ParamError("paramRef.name and paramRef.selector are mutually exclusive");
    let found = informer.get(namespace, ref.name);
    if (!found) found = await liveGet(parts, t, namespace, ref.name);
    params = found ? [found] : [];
  } else if (ref.selector) {
    const sel = labelSelectorFromObject(ref.selector);
    params = informer.list(t.namespaced ? namespace : undefined).filter((o) => sel.matches(o.metadata.labels ?? {}));
  } else {
    throw new ParamError("one of name or selector must be provided");
  }
  if (params.length === 0 && ref.parameterNotFoundAction === "Deny") throw new ParamError("no params found for policy binding with `Deny` parameterNotFoundAction");
  return params;
}

async function liveGet(parts: AdmissionParts, t: ResourceType, ns: string, name: string): Promise<KObject | undefined> {
  try {
    return await parts.stores.for(t).get(ns, name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}
