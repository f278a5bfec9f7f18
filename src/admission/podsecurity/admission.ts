// The PodSecurity admission plugin (upstream: pod-security-admission/admission and
// plugin/pkg/admission/security/podsecurity). In the validating stage it
// - checks pods against their namespace's enforce level (403 when violated), audit level (audit
//   annotations) and warn level (Warning headers);
// - checks the pod templates of workloads (Deployments, Jobs, ...) against audit and warn only:
//   their pods meet enforce when the controllers create them;
// - validates namespaces' pod-security labels (422) and, when an update tightens the enforce
//   level, warns about the existing pods that would violate it.
import { ApiError, forbidden, internalError, invalid } from "../../apimachinery/errors.js";
import { aggregateMessage, type FieldError } from "../../apimachinery/validation.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import {
  auditLevelLabel,
  auditVersionLabel,
  auditViolationsAnnotation,
  compareLevels,
  enforceLevelLabel,
  enforceVersionLabel,
  enforcedPolicyAnnotation,
  equivalentPolicies,
  errorAnnotation,
  exemptionAnnotation,
  fullyPrivileged,
  labelPrefix,
  lvString,
  policyFromLabels,
  sameLevelVersion,
  sameVersion,
  warnLevelLabel,
  warnVersionLabel,
  type LevelVersion,
  type Policy,
} from "./api.js";
import type { PodMetaJson, PodSpecJson } from "./check.js";
import type { PodSecurityConfiguration } from "./config.js";
import { aggregate, forbiddenDetail, type AggregateResult, type Evaluator } from "./registry.js";
import { existingPodWarnings } from "./namespace-pods.js";
import { isSignificantPodUpdate, type PodJson } from "./pod-updates.js";
import { extractPodTemplate, isPodTemplateResource, podTemplateResources } from "./templates.js";

export interface PodSecurityDeps {
  config: PodSecurityConfiguration;
  evaluator: Evaluator;
  /** A namespace's labels; undefined when it does not exist. */
  namespaceLabels(namespace: string): Promise<Record<string, string> | undefined>;
  /** The namespace's pods, for the warnings of a tightened enforce level (may be slightly stale). */
  listPods(namespace: string, signal: AbortSignal): Promise<KObject[]>;
  /** How long checking existing pods may take (upstream: 1s), and how many at most (3000). */
  namespacePodCheckTimeoutMs?: number;
  namespaceMaxPodsToCheck?: number;
}

/** The outcome of one evaluation, applied to the request by the plugin. */
interface Response {
  allowed: boolean;
  error?: ApiError;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

const allow: Response = { allowed: true };
const exempt = (reason: "user" | "namespace" | "runtimeClass"): Response => ({ allowed: true, auditAnnotations: { [exemptionAnnotation]: reason } });
const allowPrivileged: Response = { allowed: true, auditAnnotations: { [enforcedPolicyAnnotation]: "privileged:latest" } };

/** Pod subresources that never change what the checks read. */
const ignoredPodSubresources = new Set(["exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"]);

const isCore = (a: AdmissionAttributes, resource: string) => a.type.group === "" && a.type.resource === resource;

export function podSecurity(deps: PodSecurityDeps): AdmissionPlugin {
  const { config, evaluator } = deps;
  const exemptNamespace = (ns: string) => ns !== "" && config.exemptions.namespaces.includes(ns);
  const exemptUser = (user: string) => user !== "" && config.exemptions.usernames.includes(user);
  const exemptRuntimeClass = (rc: string | undefined) => !!rc && config.exemptions.runtimeClasses.includes(rc);
  const policyOf = (labels: Record<string, string> | undefined) => policyFromLabels(labels, config.defaults);
  const evaluate = (lv: LevelVersion, meta: PodMetaJson, spec: PodSpecJson) => aggregate(evaluator.evaluate(lv, meta, spec));

  /** Enforce (when asked), audit and warn of one pod or pod template, each level evaluated once. */
  function evaluatePod(a: AdmissionAttributes, policy: Policy, policyErrors: FieldError[], meta: PodMetaJson, spec: PodSpecJson, enforce: boolean): Response {
    if (exemptRuntimeClass(spec.runtimeClassName)) return exempt("runtimeClass");
    const auditAnnotations: Record<string, string> = {};
    if (policyErrors.length > 0) auditAnnotations[errorAnnotation] = `Failed to parse policy: ${aggregateMessage(policyErrors)}`;
    const cached = new Map<string, AggregateResult>();
    const resultOf = (lv: LevelVersion) => {
      const key = lvString(lv);
      let r = cached.get(key);
      if (!r) cached.set(key, (r = evaluate(lv, meta, spec)));
      return r;
    };
    const response: Response = { allowed: true, auditAnnotations };
    if (enforce) {
      auditAnnotations[enforcedPolicyAnnotation] = lvString(policy.enforce);
      const r = resultOf(policy.enforce);
      if (!r.allowed) {
        response.allowed = false;
        response.error = forbidden(a.type.gr, a.name, `violates PodSecurity "${lvString(policy.enforce)}": ${forbiddenDetail(r)}`);
      }
    }
    const audit = resultOf(policy.audit);
    if (!audit.allowed) auditAnnotations[auditViolationsAnnotation] = `would violate PodSecurity "${lvString(policy.audit)}": ${forbiddenDetail(audit)}`;
    // A request about to be refused gets no warnings on top.
    if (response.allowed) {
      const warn = resultOf(policy.warn);
      if (!warn.allowed) response.warnings = [`would violate PodSecurity "${lvString(policy.warn)}": ${forbiddenDetail(warn)}`];
    }
    return response;
  }

  async function validatePod(a: AdmissionAttributes): Promise<Response> {
    if (ignoredPodSubresources.has(a.subresource)) return allow;
    if (exemptNamespace(a.namespace)) return exempt("namespace");
    if (exemptUser(a.user?.name ?? "")) return exempt("user");
    const labels = await deps.namespaceLabels(a.namespace);
    if (labels === undefined) {
      const e = internalError(new Error(`failed to lookup namespace "${a.namespace}"`));
      return { allowed: false, error: e, auditAnnotations: { [errorAnnotation]: `${e.message}: namespaces "${a.namespace}" not found` } };
    }
    const { policy, errors } = policyOf(labels);
    if (errors.length === 0 && fullyPrivileged(policy)) return allowPrivileged;
    const pod = a.object as PodJson;
    if (a.operation === "UPDATE" && a.oldObject && !isSignificantPodUpdate(pod, a.oldObject as PodJson)) return allow;
    return evaluatePod(a, policy, errors, pod.metadata as PodMetaJson, pod.spec ?? {}, true);
  }

  async function validatePodController(a: AdmissionAttributes): Promise<Response> {
    if (a.subresource !== "") return allow;
    if (exemptNamespace(a.namespace)) return exempt("namespace");
    if (exemptUser(a.user?.name ?? "")) return exempt("user");
    const labels = await deps.namespaceLabels(a.namespace);
    // Workloads are never refused: a lookup failure is only recorded.
    if (labels === undefined) return { allowed: true, auditAnnotations: { [errorAnnotation]: `failed to lookup namespace "${a.namespace}": namespaces "${a.namespace}" not found` } };
    const { policy, errors } = policyOf(labels);
    if (errors.length === 0 && policy.warn.level === "privileged" && policy.audit.level === "privileged") return allow;
    const template = extractPodTemplate(a.type.group, a.type.resource, a.object!);
    if (!template) return allow; // an optional template left out (ReplicationController)
    return evaluatePod(a, policy, errors, template.metadata, template.spec, false);
  }

  async function validateNamespace(a: AdmissionAttributes): Promise<Response> {
    if (a.subresource !== "") return allow;
    const ns = a.object!;
    const { policy, errors } = policyOf(ns.metadata.labels);
    const invalidLabels = (): Response => ({ allowed: false, error: invalid({ group: "", kind: "Namespace" }, a.name, errors) });
    if (a.operation === "CREATE") {
      if (errors.length > 0) return invalidLabels();
      // Upstream reads the request's namespace, which a namespace create does not have: no warning here.
      if (exemptNamespace(a.namespace)) return exemptNamespaceWarning(a.name, policy, ns.metadata.labels ?? {});
      return allow;
    }
    const old = policyOf(a.oldObject?.metadata.labels);
    // Invalid labels are refused only when they changed: an old namespace stays editable.
    if (errors.length > 0 && (old.errors.length === 0 || aggregateMessage(errors) !== aggregateMessage(old.errors))) return invalidLabels();
    // Existing pods are checked only when the enforce level tightens.
    if (sameLevelVersion(policy.enforce, old.policy.enforce)) return allow;
    if (policy.enforce.level === "privileged") return allow;
    if (sameVersion(policy.enforce.version, old.policy.enforce.version) && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return allow;
    // For a namespace, the request's namespace is its name.
    if (exemptNamespace(a.name)) return exemptNamespaceWarning(a.name, policy, ns.metadata.labels ?? {});
    return { allowed: true, warnings: await evaluatePodsInNamespace(a.name, policy.enforce, a.signal) };
  }

  function exemptNamespaceWarning(name: string, policy: Policy, labels: Record<string, string>): Response {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, config.defaults)) return allow;
    const parts: string[] = [];
    const modes: [keyof Policy, string, string][] = [
      ["enforce", enforceLevelLabel, enforceVersionLabel],
      ["audit", auditLevelLabel, auditVersionLabel],
      ["warn", warnLevelLabel, warnVersionLabel],
    ];
    for (const [mode, levelLabel, versionLabel] of modes) {
      if (policy[mode].level !== "privileged" && (levelLabel in labels || versionLabel in labels)) parts.push(`${mode}=${lvString(policy[mode])}`);
    }
    return { allowed: true, warnings: [`namespace "${name}" is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`] };
  }

  async function evaluatePodsInNamespace(namespace: string, enforce: LevelVersion, signal: AbortSignal | undefined): Promise<string[]> {
    const timeoutMs = deps.namespacePodCheckTimeoutMs ?? 1000;
    const timer = AbortSignal.timeout(timeoutMs);
    let pods: KObject[];
    try {
      pods = await deps.listPods(namespace, signal ? AbortSignal.any([signal, timer]) : timer);
    } catch {
      return ["failed to list pods while checking new PodSecurity enforce level"];
    }
    return existingPodWarnings(namespace, enforce, pods, {
      evaluate: (pod) => evaluate(enforce, pod.metadata as PodMetaJson, pod.spec ?? {}),
      exemptRuntimeClass,
      maxPods: deps.namespaceMaxPodsToCheck ?? 3000,
      expired: () => timer.aborted || !!signal?.aborted,
    });
  }

  async function respond(a: AdmissionAttributes): Promise<Response | undefined> {
    if (isCore(a, "namespaces")) return validateNamespace(a);
    if (isCore(a, "pods")) return validatePod(a);
    if (isPodTemplateResource(a.type.group, a.type.resource)) return validatePodController(a);
    return undefined;
  }

  return {
    name: "PodSecurity",
    operations: ["CREATE", "UPDATE"],
    resources: [{ group: "", resource: "namespaces" }, { group: "", resource: "pods" }, ...podTemplateResources],
    async validate(a) {
      if (!a.object) return;
      const r = await respond(a);
      if (!r) return;
      for (const w of r.warnings ?? []) a.warnings.push(w);
      for (const [k, v] of Object.entries(r.auditAnnotations ?? {})) a.annotate(labelPrefix + k, v);
      if (!r.allowed) throw r.error ?? forbidden(a.type.gr, a.name, "Not allowed by PodSecurity");
    },
  };
}
