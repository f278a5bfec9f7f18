// PodTolerationRestriction (upstream plugin/pkg/admission/podtolerationrestriction): a new pod
// gets its namespace's default tolerations (annotation scheduler.alpha.kubernetes.io/
// defaultTolerations, else the configuration's `default`), pods that are not BestEffort tolerate
// memory pressure, and every pod's tolerations must fit the namespace's whitelist (annotation
// scheduler.alpha.kubernetes.io/tolerationsWhitelist, else the configuration's `whitelist`).
import { ApiError, internalError } from "../../apimachinery/errors.js";
import { cannotUnmarshal } from "../../apimachinery/go-json.js";
import { goDecodeStruct, type GoStruct } from "../../apimachinery/go-json-struct.js";
import { goJsonSyntaxError } from "../../apimachinery/go-json-syntax.js";
import { podQOSClass } from "../../types/defaults/pod.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { namespaceAnnotations } from "./namespace-annotations.js";
import { isObj, isPods, objs, podsOnly, type Obj } from "./pod-shape.js";
import { isSuperset, mergeTolerations } from "./tolerations.js";

export const defaultTolerationsAnnotation = "scheduler.alpha.kubernetes.io/defaultTolerations";
export const tolerationsWhitelistAnnotation = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

export interface TolerationRestrictionConfig {
  default?: Obj[];
  whitelist?: Obj[];
}

export function tolerationRestrictionConfig(config: unknown): TolerationRestrictionConfig {
  const c = isObj(config) ? config : {};
  return { default: objs(c.default), whitelist: objs(c.whitelist) };
}

/** tolerations.VerifyAgainstWhitelist: every toleration within one of the whitelist's. */
const withinWhitelist = (tolerations: Obj[], whitelist: Obj[]) => tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));

export function podTolerationRestriction(parts: () => AdmissionParts, config: TolerationRestrictionConfig): AdmissionPlugin {
  const annotationsOf = namespaceAnnotations(parts);

  /** The namespace's tolerations under `key`: undefined when it does not say, [] when it says "". */
  async function fromNamespace(ns: string, key: string): Promise<Obj[] | undefined> {
    let annotations: Record<string, string>;
    try {
      annotations = await annotationsOf(ns);
    } catch (e) {
      throw e instanceof ApiError ? e : internalError(e);
    }
    const raw = annotations[key];
    if (raw === undefined) return undefined;
    if (raw === "") return [];
    // Upstream unmarshals the annotation into []v1.Toleration and fails the request with the
    // decoder's error as it is (a 500 with no reason).
    const decoded = decodeTolerations(raw);
    if ("error" in decoded) throw new ApiError(500, "", decoded.error);
    return objs(decoded.value);
  }

  return {
    name: "PodTolerationRestriction",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    async admit(a) {
      if (!isPods(a) || !a.object) return;
      if (!isObj(a.object.spec)) a.object.spec = {};
      const spec = a.object.spec as Obj;
      let extra: Obj[] = [];
      if (a.operation === "CREATE") extra = (await fromNamespace(a.namespace, defaultTolerationsAnnotation)) ?? config.default ?? [];
      if (podQOSClass(spec) !== "BestEffort") extra = [...extra, { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" }];
      if (extra.length > 0) spec.tolerations = mergeTolerations(objs(spec.tolerations), extra);
    },
    async validate(a) {
      if (!isPods(a) || !a.object) return;
      const tolerations = objs(isObj(a.object.spec) ? (a.object.spec as Obj).tolerations : undefined);
      if (tolerations.length === 0) return;
      let whitelist = await fromNamespace(a.namespace, tolerationsWhitelistAnnotation);
      let scope = "namespace";
      if (whitelist === undefined) {
        whitelist = config.whitelist ?? [];
        scope = "cluster";
      }
      if (whitelist.length > 0 && !withinWhitelist(tolerations, whitelist)) {
        // A plain error upstream: served as a 500 with no reason, its text as the message.
        throw new ApiError(500, "", `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
      }
    },
  };
}

const toleration: GoStruct = {
  type: "v1.Toleration",
  name: "Toleration",
  fields: [
    { json: "key", type: "string" },
    { json: "operator", type: "string" },
    { json: "value", type: "string" },
    { json: "effect", type: "string" },
    { json: "tolerationSeconds", type: "int64" },
  ],
};

/** `text` decoded as encoding/json decodes it into a []v1.Toleration, or that decode's error. */
export function decodeTolerations(text: string): { value: unknown } | { error: string } {
  const syntax = goJsonSyntaxError(text);
  if (syntax !== undefined) return { error: syntax };
  const value: unknown = JSON.parse(text);
  if (value === null) return { value };
  if (!Array.isArray(value)) return { error: cannotUnmarshal(value, "[]v1.Toleration") };
  // The first element's error, as Go reports the first it met (an element adds no field name).
  for (const element of value) {
    const refused = goDecodeStruct(JSON.stringify(element), toleration).error;
    if (refused !== undefined) return { error: refused };
  }
  return { value };
}
