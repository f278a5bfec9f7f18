// API Priority and Fairness (flowcontrol.apiserver.k8s.io/v1): the shape of FlowSchema and
// PriorityLevelConfiguration as served, and the configuration objects every server keeps
// (upstream: k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap, release 1.34). The mandatory ones
// are always restored, the suggested ones created when missing; both carry the auto-update
// annotation. Written as they are stored, i.e. after v1 defaulting, so that a comparison with a
// stored spec needs no defaulting of its own.
import { authenticatedGroup, mastersGroup, unauthenticatedGroup } from "../apimachinery/user.js";

export const flowcontrolGroup = "flowcontrol.apiserver.k8s.io";
export const autoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec";
export const exemptName = "exempt";
export const catchAllName = "catch-all";

export interface Subject {
  kind: "User" | "Group" | "ServiceAccount" | string;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}
export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}
export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}
export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}
export interface FlowSchemaCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}
export interface FlowSchema {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; uid?: string; annotations?: Record<string, string>; generation?: number; resourceVersion?: string };
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence: number;
    distinguisherMethod?: { type: "ByUser" | "ByNamespace" | string };
    rules?: PolicyRulesWithSubjects[];
  };
  status?: { conditions?: FlowSchemaCondition[] };
}
export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}
export interface PriorityLevelConfiguration {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; uid?: string; annotations?: Record<string, string>; generation?: number; resourceVersion?: string };
  spec: {
    type: "Exempt" | "Limited" | string;
    limited?: {
      nominalConcurrencyShares?: number;
      lendablePercent?: number;
      borrowingLimitPercent?: number;
      limitResponse: { type: "Queue" | "Reject" | string; queuing?: QueuingConfiguration };
    };
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  };
  status?: { conditions?: unknown[] };
}

const kubeControllerManager = "system:kube-controller-manager";
const kubeScheduler = "system:kube-scheduler";
const nodesGroup = "system:nodes";
const allServiceAccountsGroup = "system:serviceaccounts";

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: "Group", group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: "User", user: { name } }));
const kubeSystemServiceAccounts = (): Subject[] => [{ kind: "ServiceAccount", serviceAccount: { namespace: "kube-system", name: "*" } }];

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourcePolicyRule {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces: ["*"] };
}
const everyResource = (): ResourcePolicyRule => resourceRule(["*"], ["*"], ["*"], true);
const everyNonResource = (): NonResourcePolicyRule => ({ verbs: ["*"], nonResourceURLs: ["*"] });

function flowSchema(name: string, plName: string, matchingPrecedence: number, distinguisher: "ByUser" | "ByNamespace" | undefined, rule: PolicyRulesWithSubjects): FlowSchema {
  return {
    metadata: { name, annotations: { [autoUpdateAnnotation]: "true" } },
    spec: { priorityLevelConfiguration: { name: plName }, matchingPrecedence, ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules: [rule] },
  };
}

function limited(name: string, nominalConcurrencyShares: number, lendablePercent: number, queuing?: QueuingConfiguration): PriorityLevelConfiguration {
  return {
    metadata: { name, annotations: { [autoUpdateAnnotation]: "true" } },
    spec: { type: "Limited", limited: { nominalConcurrencyShares, lendablePercent, limitResponse: queuing ? { type: "Queue", queuing } : { type: "Reject" } } },
  };
}

const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({ subjects, resourceRules: [everyResource()], nonResourceRules: [everyNonResource()] });

export function mandatoryPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    limited(catchAllName, 5, 0),
    { metadata: { name: exemptName, annotations: { [autoUpdateAnnotation]: "true" } }, spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
  ];
}

export function mandatoryFlowSchemas(): FlowSchema[] {
  return [
    // Requests of system:masters are never queued nor refused: an administrator can always act.
    flowSchema(exemptName, exemptName, 1, undefined, everything(groups(mastersGroup))),
    // What nothing else matches; only reached when the suggested global-default was removed.
    flowSchema(catchAllName, catchAllName, 10000, "ByUser", everything(groups(unauthenticatedGroup, authenticatedGroup))),
  ];
}

export function suggestedPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    limited("system", 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited("node-high", 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited("leader-election", 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
    limited("workload-high", 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited("workload-low", 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited("global-default", 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  ];
}

export function suggestedFlowSchemas(): FlowSchema[] {
  return [
    flowSchema("system-nodes", "system", 500, "ByUser", everything(groups(nodesGroup))),
    flowSchema("system-node-high", "node-high", 400, "ByUser", {
      subjects: groups(nodesGroup),
      resourceRules: [resourceRule(["*"], [""], ["nodes", "nodes/status"], true), resourceRule(["*"], ["coordination.k8s.io"], ["leases"], false)],
    }),
    flowSchema("probes", exemptName, 2, undefined, {
      subjects: groups(unauthenticatedGroup, authenticatedGroup),
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }],
    }),
    flowSchema("system-leader-election", "leader-election", 100, "ByUser", {
      subjects: [...users(kubeControllerManager, kubeScheduler), ...kubeSystemServiceAccounts()],
      resourceRules: [resourceRule(["get", "create", "update"], ["coordination.k8s.io"], ["leases"], false)],
    }),
    flowSchema("kube-controller-manager", "workload-high", 800, "ByNamespace", everything(users(kubeControllerManager))),
    flowSchema("kube-scheduler", "workload-high", 800, "ByNamespace", everything(users(kubeScheduler))),
    flowSchema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", everything(kubeSystemServiceAccounts())),
    flowSchema("service-accounts", "workload-low", 9000, "ByUser", everything(groups(allServiceAccountsGroup))),
    flowSchema("global-default", "global-default", 9900, "ByUser", everything(groups(unauthenticatedGroup, authenticatedGroup))),
  ];
}

/**
 * Two specs are the same configuration (upstream compares with equality.Semantic): a field left
 * out equals its zero value when Go has no pointer for it (false, "", an empty list).
 */
export function sameSpec(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x === null || x === undefined || x === false || x === "" || (Array.isArray(x) && x.length === 0)) continue;
    out[k] = canonical(x);
  }
  return out;
}
