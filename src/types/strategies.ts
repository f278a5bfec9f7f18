// Per-type strategy overrides for the generic store, keyed by "resource.group" (core: "resource").
// Defaults live in ./defaults, validation in ./validation, Service allocation in ./allocation;
// this file only wires them to the store's hooks.
import { ApiError } from "../apimachinery/errors.js";
import { strategy, type Strategy, type StrategyContext, defaultStrategy } from "../registry/strategy.js";
import { defaultSubresourceWrites, statusOnly } from "../registry/subresource-writes.js";
import { ephemeralContainersOnly } from "./pod-ephemeral-containers.js";
import type { KObject } from "../apimachinery/object.js";
import { invalid as invalidField, validateName, type FieldError } from "../apimachinery/validation.js";
import { defaultPod, podQOSClass } from "./defaults/pod.js";
import {
  defaultCronJob,
  defaultDaemonSet,
  defaultDeployment,
  defaultJob,
  defaultPodTemplate,
  defaultReplicaSet,
  defaultReplicationController,
  defaultStatefulSet,
} from "./defaults/workloads.js";
import { defaultCoreEvent, defaultEventsV1Event, defaultEndpoints, defaultLimitRange, defaultNamespace, defaultNode, defaultPV, defaultPVC, defaultSecret, defaultService, mergeStringData } from "./defaults/core.js";
import {
  defaultBinding,
  defaultCSIDriver,
  defaultEndpointSlice,
  defaultFlowSchema,
  defaultHPA,
  defaultLease,
  defaultNetworkPolicy,
  defaultPDB,
  defaultPriorityClass,
  defaultPriorityLevelConfiguration,
  defaultRole,
  defaultStorageClass,
} from "./defaults/groups.js";
import { validateEvent, validateEventUpdate } from "./validation/events.js";
import { coreFormOf } from "./event-conversion.js";
import { validateEphemeralContainersUpdate, validatePodCreate, validatePodSpec, validatePodSpecUpdate } from "./validation/pod.js";
import {
  validateCronJob,
  validateDaemonSet,
  validateDeployment,
  validateJob,
  validateJobUpdate,
  validatePodTemplate,
  validateReplicaSet,
  validateReplicationController,
  validateSelectorImmutable,
  validateStatefulSet,
  validateStatefulSetUpdate,
} from "./validation/workloads.js";
import { validateService, validateServiceUpdate } from "./validation/service.js";
import { serviceWarnings } from "./validation/service-warnings.js";
import { validateEndpoints, validateEndpointSlice, validateEndpointSliceUpdate } from "./validation/endpoints.js";
import { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from "./validation/config.js";
import { validateBinding, validateBindingUpdate, validateRole } from "./validation/rbac.js";
import {
  validateHPA,
  validateNetworkPolicy,
  validatePDB,
  validatePriorityClass,
  validatePriorityClassUpdate,
  validateNamespaceStatusUpdate,
  validatePVC,
  validatePVCUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
} from "./validation/cluster.js";
import { validateFlowSchema, validatePriorityLevelConfiguration } from "./validation/flowcontrol.js";
import { validateAPIService, validateAPIServiceStatus } from "./validation/apiregistration.js";
import { localAvailableCondition } from "./apiservice-conditions.js";
import { allocateService, holdingsOf, keepAllocatedValues, serviceRanges } from "./allocation/service.js";
import { claimServiceValues, releaseServiceValues } from "./allocation/service-claims.js";
import { isObj, type Obj } from "./validation/helpers.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { prepareCsrCreate, prepareCsrUpdate, validateCsrUpdate } from "./certificate-signing-request.js";
import { validateResourceQuota, validateResourceQuotaStatusUpdate, validateResourceQuotaUpdate } from "./validation/resourcequota.js";

const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

type Defaulter = (o: Obj) => void;

interface KindParts {
  /** Defaults applied to every written body (upstream applies them when decoding). */
  defaults?: Defaulter;
  /** Status a created object starts with (after the store dropped the client's). */
  initialStatus?: () => Obj;
  /** Extra create-time work after defaulting (generated fields); defaults run again after it. */
  onCreate?: (o: Obj, ctx: StrategyContext) => void;
  onUpdate?: (o: Obj, old: Obj, ctx: StrategyContext) => void;
  validate?: (o: Obj, ctx: StrategyContext) => FieldError[];
  /** Update validation; defaults to `validate` on the new object. */
  validateUpdate?: (o: Obj, old: Obj, ctx: StrategyContext) => FieldError[];
}

/** A strategy from the per-kind parts, on top of the store-facing flags. */
export function kind(flags: Partial<Strategy>, p: KindParts): Strategy {
  const validate = p.validate ?? (() => []);
  return strategy({
    ...flags,
    default(obj) {
      flags.default?.(obj);
      p.defaults?.(obj);
    },
    prepareForCreate(obj, ctx) {
      flags.prepareForCreate?.(obj, ctx);
      if (p.initialStatus) obj.status = p.initialStatus();
      p.onCreate?.(obj, ctx);
      // What the server just set (initial status, generated fields) gets its defaults too.
      if (p.initialStatus || p.onCreate) p.defaults?.(obj);
    },
    prepareForUpdate(obj, old, ctx) {
      flags.prepareForUpdate?.(obj, old, ctx);
      p.onUpdate?.(obj, old, ctx);
    },
    validate: (obj, ctx) => validate(obj, ctx),
    validateUpdate: (obj, old, ctx) => (p.validateUpdate ? p.validateUpdate(obj, old, ctx) : validate(obj, ctx)),
  });
}

// ---------------------------------------------------------------------------------------------
// certificates.k8s.io

/**
 * A ClusterTrustBundle's name (upstream ValidateClusterTrustBundleName): with a signer it starts
 * with the signer name, "/" written ":", and a ":"; the rest is a DNS subdomain. Without a signer
 * it is a DNS subdomain with no ":".
 */
function validateClusterTrustBundleName(o: Obj): FieldError[] {
  const name = str((o.metadata as Obj | undefined)?.name);
  const signerName = str((o.spec as Obj | undefined)?.signerName);
  if (!name) return []; // Required is the generic check's
  let msgs: string[];
  if (!signerName) {
    msgs = name.includes(":") ? ['ClusterTrustBundle without signer name must not have ":" in its name'] : validateName(name, false, "subdomain");
  } else {
    const prefix = `${signerName.replaceAll("/", ":")}:`;
    msgs = name.startsWith(prefix) ? validateName(name.slice(prefix.length), false, "subdomain") : [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${prefix}`];
  }
  return msgs.map((m) => invalidField("metadata.name", name, m));
}

// ---------------------------------------------------------------------------------------------
// core

const namespaces = kind(
  {
    nameRule: "label",
    prepareForCreate(obj) {
      const spec = ((obj.spec as Record<string, unknown>) ??= {});
      const fin = (spec.finalizers as string[] | undefined) ?? [];
      if (!fin.includes("kubernetes")) spec.finalizers = [...fin, "kubernetes"];
      obj.status = { phase: "Active" };
    },
    prepareForUpdate(obj, old, ctx) {
      // spec.finalizers changes only through /finalize, and /finalize changes nothing else;
      // status (phase, the namespace controller's deletion conditions) only through /status.
      if (ctx.subresource === "status") return;
      const oldFinalizers = (old.spec as { finalizers?: string[] } | undefined)?.finalizers;
      if (ctx.subresource === "finalize") {
        const finalizers = (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
        // An emptied list is left out, as Go's omitempty writes it.
        const { finalizers: _old, ...rest } = (old.spec ?? {}) as { finalizers?: string[] };
        obj.spec = finalizers.length > 0 ? { ...rest, finalizers } : rest;
        obj.metadata = { ...old.metadata };
      } else if (oldFinalizers) {
        obj.spec = { ...(obj.spec as object), finalizers: oldFinalizers };
      }
      obj.status = old.status;
    },
    selectableFields: (o) => ({ "status.phase": str((o.status as any)?.phase) }),
    // The namespace controller empties the namespace, then removes "kubernetes" from
    // spec.finalizers through /finalize: only then may the namespace go.
    pendingFinalization: (o) => ((o.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0,
    prepareForDelete(o) {
      o.status = { ...(o.status as object), phase: "Terminating" };
    },
  },
  { defaults: defaultNamespace, validateUpdate: (o, _old, ctx) => (ctx.subresource === "status" ? validateNamespaceStatusUpdate(o) : []) },
);

const pods = kind(
  {
    tracksGeneration: true,
    subresourceWrites: { ...defaultSubresourceWrites, ephemeralcontainers: ephemeralContainersOnly },
    returnDeletedObject: true,
    selectableFields: (o: KObject) => {
      const spec = (o.spec ?? {}) as Record<string, unknown>;
      const status = (o.status ?? {}) as Record<string, unknown>;
      return {
        "spec.nodeName": str(spec.nodeName),
        "spec.restartPolicy": str(spec.restartPolicy),
        "spec.schedulerName": str(spec.schedulerName),
        "spec.serviceAccountName": str(spec.serviceAccountName),
        "spec.hostNetwork": String(Boolean(spec.hostNetwork)),
        "status.phase": str(status.phase),
        "status.podIP": str(status.podIP),
        "status.nominatedNodeName": str(status.nominatedNodeName),
      };
    },
  },
  {
    defaults: defaultPod,
    onCreate(o) {
      o.status = { phase: "Pending", qosClass: podQOSClass(o.spec as Obj) };
    },
    validate: (o) => [...validatePodSpec(o.spec, "spec"), ...validatePodCreate(o.spec)],
    validateUpdate: (o, old, ctx) =>
      ctx.subresource === "status" ? [] : ctx.subresource === "ephemeralcontainers" ? validateEphemeralContainersUpdate(o, old) : validatePodSpecUpdate(o.spec, old.spec),
  },
);

/**
 * Events' field selectors (upstream's, for both versions: they select on the stored core/v1
 * form, and lists from storage hand over the served one, so either form is read).
 */
function eventFields(o: KObject): Record<string, string> {
  const e = o as unknown as Record<string, unknown>;
  const io = (e.involvedObject ?? e.regarding ?? {}) as Record<string, unknown>;
  const src = (e.source ?? e.deprecatedSource ?? {}) as Record<string, unknown>;
  const controller = str(e.reportingComponent ?? e.reportingController);
  return {
    "involvedObject.kind": str(io.kind),
    "involvedObject.namespace": str(io.namespace),
    "involvedObject.name": str(io.name),
    "involvedObject.uid": str(io.uid),
    "involvedObject.apiVersion": str(io.apiVersion),
    "involvedObject.resourceVersion": str(io.resourceVersion),
    "involvedObject.fieldPath": str(io.fieldPath),
    reason: str(e.reason),
    reportingComponent: controller,
    source: str(src.component) || controller,
    type: str(e.type),
  };
}

// Both versions of Event: expiry after --event-ttl from each write (upstream's TTLFunc).
const eventFlags: Partial<Strategy> = { selectableFields: eventFields, ttlSeconds: (ctx) => ctx.eventTtlSeconds };
const coreEvents = kind(eventFlags, {
  defaults: defaultCoreEvent,
  validate: (o, ctx) => validateEvent(o, ctx.namespace, false),
  validateUpdate: (o, old, ctx) => validateEventUpdate(o, old, ctx.namespace, false),
});
// events.k8s.io/v1 writes are checked strictly, on their core form (upstream validates the internal Event).
const coreForm = (o: Obj): Obj => coreFormOf(o as unknown as KObject) as unknown as Obj;
const eventsV1 = kind(eventFlags, {
  defaults: defaultEventsV1Event,
  validate: (o, ctx) => validateEvent(coreForm(o), ctx.namespace, true),
  validateUpdate: (o, old, ctx) => validateEventUpdate(coreForm(o), coreForm(old), ctx.namespace, true),
});

const secrets = kind(
  { selectableFields: (o) => ({ type: str(o.type) }) },
  {
    defaults: defaultSecret,
    onUpdate: (o) => mergeStringData(o),
    validate: (o) => validateSecret(o),
    validateUpdate: (o, old) => validateSecretUpdate(o, old),
  },
);

const configmaps = kind({}, { validate: (o) => validateConfigMap(o), validateUpdate: (o, old) => validateConfigMapUpdate(o, old) });

// ---- Services and their allocation

/** Where the ranges come from: the store may pass the server's flags in the context. */
function rangesFor(ctx: StrategyContext) {
  const c = ctx as StrategyContext & { serviceClusterIPRange?: string; serviceNodePortRange?: string };
  return serviceRanges(c.serviceClusterIPRange, c.serviceNodePortRange);
}

/** A type's Warning headers, added only when its validation passed (upstream's order). */
function warnWhenValid(errs: FieldError[], ctx: StrategyContext, warnings: () => string[]): FieldError[] {
  if (errs.length === 0 && ctx.warnings) for (const w of warnings()) ctx.warnings.push(w);
  return errs;
}

const serviceBase = kind(
  { nameRule: "dns1035", tracksGeneration: true, returnDeletedObject: true },
  {
    defaults: defaultService,
    onUpdate: (o, old, ctx) => {
      if (ctx.subresource === "status") return;
      keepAllocatedValues(o, old);
    },
    validate: (o, ctx) => warnWhenValid(validateService(o), ctx, () => serviceWarnings(o)),
    validateUpdate: (o, old, ctx) => (ctx.subresource === "status" ? [] : warnWhenValid(validateServiceUpdate(o, old), ctx, () => serviceWarnings(o))),
  },
);

// Allocation runs in the store's allocate hook, under its per-type lock, against every stored
// Service: nothing is remembered in this module (servers in one process share no state). The
// values chosen are then claimed in storage (allocation/service-claims.ts): a value another
// server claimed meanwhile counts as held, and the choice is made again.
const maxClaimRounds = 8;
const services: Strategy = {
  ...serviceBase,
  async allocate(o, old, ctx, others, claims) {
    defaultService(o);
    if (old) keepAllocatedValues(o, old);
    const held = holdingsOf(await others(), { namespace: str(o.metadata.namespace), name: str(o.metadata.name) });
    const ranges = rangesFor(ctx);
    const asGiven = structuredClone(o.spec);
    for (let round = 0; ; round++) {
      const errs = allocateService(o, old, held, ranges);
      if (errs.length || !claims) return errs;
      const lost = await claimServiceValues(o, old, claims, ranges.ports);
      if (lost.ips.size === 0 && lost.ports.size === 0) return [];
      if (round === maxClaimRounds) throw new ApiError(409, "Conflict", "Operation cannot be fulfilled on services: the values chosen kept being taken by other servers, please retry");
      for (const ip of lost.ips) held.ips.add(ip);
      for (const p of lost.ports) held.ports.add(p);
      o.spec = structuredClone(asGiven);
    }
  },
  released: (o, claims) => releaseServiceValues(o, claims, serviceRanges().ports),
};

// ---------------------------------------------------------------------------------------------
// workloads

const workloadSelect = (o: KObject) => ({ "status.replicas": str((o.status as any)?.replicas ?? 0) });

const appsWorkload = (
  defaults: Defaulter,
  validate: (o: Obj) => FieldError[],
  flags: Partial<Strategy> = {},
  validateUpdate?: (o: Obj, old: Obj) => FieldError[],
) =>
  kind(
    { tracksGeneration: true, ...flags },
    {
      defaults,
      validate: (o) => validate(o),
      validateUpdate: (o, old) => (validateUpdate ? validateUpdate(o, old) : [...validate(o), ...validateSelectorImmutable(o, old)]),
    },
  );

/** jobStrategy.PrepareForCreate: generated selector and labels unless manualSelector. */
function generateJobSelector(o: Obj): void {
  const spec = isObj(o.spec) ? o.spec : (o.spec = {});
  if (spec.manualSelector === true) return;
  const tpl = isObj(spec.template) ? spec.template : (spec.template = {});
  const meta = isObj(tpl.metadata) ? tpl.metadata : (tpl.metadata = {});
  // Upstream's defaulting makes the Job's labels the template's label map itself (when the Job
  // has none), so the generated labels show on the Job as well.
  const jobLabels = o.metadata?.labels;
  const aliased = !isObj(jobLabels) || Object.keys(jobLabels).length === 0 || deepEqual(jobLabels, meta.labels);
  const labels = isObj(meta.labels) ? meta.labels : (meta.labels = {});
  const name = str(o.metadata?.name);
  const uid = str(o.metadata?.uid);
  for (const k of ["job-name", "batch.kubernetes.io/job-name"]) if (!(k in labels)) labels[k] = name;
  for (const k of ["controller-uid", "batch.kubernetes.io/controller-uid"]) if (!(k in labels)) labels[k] = uid;
  const sel = isObj(spec.selector) ? spec.selector : (spec.selector = {});
  const ml = isObj(sel.matchLabels) ? sel.matchLabels : (sel.matchLabels = {});
  if (!("batch.kubernetes.io/controller-uid" in ml)) ml["batch.kubernetes.io/controller-uid"] = uid;
  if (aliased) o.metadata.labels = { ...labels };
}

const jobs = kind(
  { tracksGeneration: true, selectableFields: (o) => ({ "status.successful": str((o.status as any)?.succeeded ?? 0) }) },
  {
    defaults: defaultJob,
    onCreate: (o) => generateJobSelector(o),
    validate: (o) => validateJob(o),
    validateUpdate: (o, old, ctx) => (ctx.subresource === "status" ? [] : validateJobUpdate(o, old)),
  },
);

const rbacRole = (namespaced: boolean) => kind({ nameRule: "path-segment" }, { defaults: defaultRole, validate: (o) => validateRole(o, namespaced) });
const rbacBinding = (namespaced: boolean) =>
  kind(
    { nameRule: "path-segment" },
    { defaults: defaultBinding, validate: (o) => validateBinding(o, namespaced), validateUpdate: (o, old) => validateBindingUpdate(o, old, namespaced) },
  );

const overrides: Record<string, Strategy> = {
  namespaces,
  pods,
  events: coreEvents,
  secrets,
  configmaps,
  services,
  endpoints: kind({}, { defaults: defaultEndpoints, validate: (o) => validateEndpoints(o) }),
  limitranges: kind({}, { defaults: defaultLimitRange }),
  // Upstream's resourcequota strategy keeps no metadata.generation.
  resourcequotas: kind(
    {},
    {
      validate: (o) => validateResourceQuota(o),
      validateUpdate: (o, old, ctx) => (ctx.subresource === "status" ? validateResourceQuotaStatusUpdate(o) : validateResourceQuotaUpdate(o, old)),
    },
  ),
  persistentvolumeclaims: kind(
    { tracksGeneration: true },
    {
      defaults: defaultPVC,
      initialStatus: () => ({ phase: "Pending" }),
      validate: (o) => validatePVC(o),
      validateUpdate: (o, old, ctx) => (ctx.subresource === "status" ? [] : validatePVCUpdate(o, old)),
    },
  ),
  persistentvolumes: kind({ tracksGeneration: true }, { defaults: defaultPV, initialStatus: () => ({ phase: "Pending" }) }),
  nodes: kind(
    { tracksGeneration: true, resetStatusOnCreate: false, selectableFields: (o) => ({ "spec.unschedulable": String(Boolean((o.spec as any)?.unschedulable)) }) },
    { defaults: defaultNode },
  ),
  podtemplates: kind({}, { defaults: defaultPodTemplate, validate: (o) => validatePodTemplate(o) }),
  replicationcontrollers: kind(
    { tracksGeneration: true, selectableFields: workloadSelect },
    { defaults: defaultReplicationController, validate: (o) => validateReplicationController(o) },
  ),
  "deployments.apps": appsWorkload(defaultDeployment, validateDeployment),
  "replicasets.apps": appsWorkload(defaultReplicaSet, validateReplicaSet, { selectableFields: workloadSelect }),
  "statefulsets.apps": appsWorkload(defaultStatefulSet, validateStatefulSet, {}, (o, old) => [
    ...validateStatefulSetUpdate(o, old),
    ...validateSelectorImmutable(o, old),
  ]),
  "daemonsets.apps": appsWorkload(defaultDaemonSet, validateDaemonSet),
  "jobs.batch": jobs,
  "cronjobs.batch": kind({ tracksGeneration: true }, { defaults: defaultCronJob, validate: (o) => validateCronJob(o) }),
  "clustertrustbundles.certificates.k8s.io": kind({ nameRule: "path-segment" }, { validate: (o) => validateClusterTrustBundleName(o) }),
  "certificatesigningrequests.certificates.k8s.io": strategy({
    selectableFields: (o) => ({ "spec.signerName": str((o.spec as any)?.signerName) }),
    prepareForCreate: prepareCsrCreate,
    prepareForUpdate: prepareCsrUpdate,
    validateUpdate: validateCsrUpdate,
    // approval writes status (its conditions: prepareCsrUpdate keeps the rest), as /status does.
    subresourceWrites: { ...defaultSubresourceWrites, approval: statusOnly },
  }),
  "events.events.k8s.io": eventsV1,
  "leases.coordination.k8s.io": kind({}, { defaults: defaultLease }),
  "endpointslices.discovery.k8s.io": kind({}, { defaults: defaultEndpointSlice, validate: (o) => validateEndpointSlice(o), validateUpdate: (o, old) => validateEndpointSliceUpdate(o, old) }),
  "apiservices.apiregistration.k8s.io": kind(
    { nameRule: "path-segment" },
    {
      // The service port defaults to 443 (upstream's SetDefaults_ServiceReference).
      defaults: (o) => {
        const service = (o.spec as Obj | undefined)?.service;
        if (isObj(service) && service.port === undefined) service.port = 443;
      },
      // A local APIService is available from its creation (upstream's strategy marks it so).
      onCreate: (o) => {
        if (!isObj((o.spec as Obj | undefined)?.service)) o.status = { conditions: [localAvailableCondition()] };
      },
      validate: (o) => validateAPIService(o),
      validateUpdate: (o, _old, ctx) => (ctx.subresource === "status" ? validateAPIServiceStatus(o) : validateAPIService(o)),
    },
  ),
  "ingresses.networking.k8s.io": kind({ tracksGeneration: true }, {}),
  "networkpolicies.networking.k8s.io": kind({ tracksGeneration: true }, { defaults: defaultNetworkPolicy, validate: (o) => validateNetworkPolicy(o) }),
  "poddisruptionbudgets.policy": kind(
    { tracksGeneration: true },
    { defaults: defaultPDB, validate: (o) => validatePDB(o) },
  ),
  "horizontalpodautoscalers.autoscaling": kind(
    { tracksGeneration: true },
    { defaults: defaultHPA, validate: (o) => validateHPA(o) },
  ),
  "priorityclasses.scheduling.k8s.io": kind(
    {},
    { defaults: defaultPriorityClass, validate: (o) => validatePriorityClass(o), validateUpdate: (o, old) => validatePriorityClassUpdate(o, old) },
  ),
  "storageclasses.storage.k8s.io": kind(
    {},
    { defaults: defaultStorageClass, validate: (o) => validateStorageClass(o), validateUpdate: (o, old) => validateStorageClassUpdate(o, old) },
  ),
  "csidrivers.storage.k8s.io": kind({}, { defaults: defaultCSIDriver }),
  "roles.rbac.authorization.k8s.io": rbacRole(true),
  "clusterroles.rbac.authorization.k8s.io": rbacRole(false),
  "rolebindings.rbac.authorization.k8s.io": rbacBinding(true),
  "clusterrolebindings.rbac.authorization.k8s.io": rbacBinding(false),
  "flowschemas.flowcontrol.apiserver.k8s.io": kind({ tracksGeneration: true }, { defaults: defaultFlowSchema, validate: (o) => validateFlowSchema(o) }),
  "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io": kind(
    { tracksGeneration: true },
    { defaults: defaultPriorityLevelConfiguration, validate: (o) => validatePriorityLevelConfiguration(o) },
  ),
};

// Types whose objects carry a spec that users change: generation tracks it.
const specTypes = new Set([
  "validatingadmissionpolicies.admissionregistration.k8s.io",
]);

const withSpec = strategy({ tracksGeneration: true });

// Types whose PUT of a missing object creates it (upstream strategies' AllowCreateOnUpdate).
const createOnUpdate = new Set([
  "endpoints", "events", "limitranges", "services", "serviceaccounts",
  "events.events.k8s.io", "leases.coordination.k8s.io", "endpointslices.discovery.k8s.io",
  "roles.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
  "rolebindings.rbac.authorization.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io",
]);

/**
 * Strategies a feature contributes for the built-in types it owns, keyed `resource.group`
 * (CustomResourceDefinitions from apiextensions/, webhook configurations and admission
 * policies from admission/). They live with their feature because their validation needs it
 * (the CRD schema checks, the CEL compiler), and types/ sits below both.
 */
export type StrategyContributions = Readonly<Record<string, Strategy>>;

export function strategyFor(group: string, resource: string, contributed: StrategyContributions = {}): Strategy {
  const key = group ? `${resource}.${group}` : resource;
  const s = contributed[key] ?? overrides[key] ?? (specTypes.has(key) ? withSpec : defaultStrategy);
  return createOnUpdate.has(key) ? { ...s, allowCreateOnUpdate: true } : s;
}
