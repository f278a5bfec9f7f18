// --controllers, as kube-controller-manager reads it: a list of names where `*` turns on every
// controller that is on by default, `foo` turns on foo and `-foo` turns it off; the first entry
// naming a controller decides. Names are upstream's canonical names or their legacy aliases.
// Only kapi's in-process controllers are known (others are refused with upstream's message).
import { goQuote } from "../apimachinery/go-quote.js";

export interface ControllerDescriptor {
  /** Upstream's canonical name (cmd/kube-controller-manager/names). */
  name: string;
  /** Legacy names --controllers still accepts. */
  aliases: string[];
  /** kapi's default (upstream's controller manager may differ; see the flag's help). */
  onByDefault: boolean;
}

export const bootstrapSignerController = "bootstrap-signer-controller";
export const tokenCleanerController = "token-cleaner-controller";
export const serviceAccountController = "serviceaccount-controller";
export const serviceAccountTokenController = "serviceaccount-token-controller";
export const clusterRoleAggregationController = "clusterrole-aggregation-controller";
export const pvcProtectionController = "persistentvolumeclaim-protection-controller";
export const pvProtectionController = "persistentvolume-protection-controller";
export const resourceQuotaController = "resourcequota-controller";
export const validatingAdmissionPolicyStatusController = "validatingadmissionpolicy-status-controller";
export const rootCACertificatePublisherController = "root-ca-certificate-publisher-controller";
export const namespaceController = "namespace-controller";
export const garbageCollectorController = "garbage-collector-controller";
// apiextensions-apiserver's CRD controllers (not kube-controller-manager's: named after their
// upstream work queues, with those queue names as aliases).
export const crdNamingController = "crd-naming-condition-controller";
export const crdEstablishingController = "crd-establishing-controller";
export const crdFinalizerController = "crd-finalizer-controller";

/**
 * The controllers --controllers switches in kapi. The bootstrap ones are off by default
 * upstream and on in kapi; the service-account ones are on in both.
 */
export const switchableControllers: ControllerDescriptor[] = [
  { name: namespaceController, aliases: ["namespace"], onByDefault: true },
  { name: garbageCollectorController, aliases: ["garbagecollector"], onByDefault: true },
  { name: bootstrapSignerController, aliases: ["bootstrapsigner"], onByDefault: true },
  { name: tokenCleanerController, aliases: ["tokencleaner"], onByDefault: true },
  { name: serviceAccountController, aliases: ["serviceaccount"], onByDefault: true },
  { name: serviceAccountTokenController, aliases: ["serviceaccount-token"], onByDefault: true },
  { name: clusterRoleAggregationController, aliases: ["clusterrole-aggregation"], onByDefault: true },
  { name: pvcProtectionController, aliases: ["pvc-protection"], onByDefault: true },
  { name: pvProtectionController, aliases: ["pv-protection"], onByDefault: true },
  { name: resourceQuotaController, aliases: ["resourcequota"], onByDefault: true },
  { name: validatingAdmissionPolicyStatusController, aliases: [], onByDefault: true },
  { name: rootCACertificatePublisherController, aliases: ["root-ca-cert-publisher"], onByDefault: true },
  { name: crdNamingController, aliases: ["crd_naming_condition_controller"], onByDefault: true },
  { name: crdEstablishingController, aliases: ["crd_establishing_controller"], onByDefault: true },
  { name: crdFinalizerController, aliases: ["crd_finalizer"], onByDefault: true },
];

export const defaultControllers = ["*"];

/**
 * The controllers kube-apiserver itself runs (apiextensions-apiserver's), not the controller
 * manager: an API server with no controller manager (envtest's) still runs them.
 */
export const apiServerControllers: readonly string[] = [crdNamingController, crdEstablishingController, crdFinalizerController];

export const controllersFlagHelp =
  "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. " +
  `kapi's switchable in-process controllers: ${switchableControllers.map((c) => (c.aliases.length ? `${c.name} (alias ${c.aliases.join(", ")})` : c.name)).join(", ")}. ` +
  "kapi runs all of them by default: the bootstrap token cleaner deletes expired bootstrap token Secrets and the bootstrap signer signs kube-public/cluster-info " +
  "(both off by default in kube-controller-manager), the serviceaccount controller gives every namespace its default ServiceAccount and the serviceaccount-token controller fills legacy token Secrets, the clusterrole-aggregation controller fills the rules of aggregated ClusterRoles, the storage protection controllers lift the protection finalizers of deleted claims and volumes nothing uses any more, the resourcequota controller keeps status.hard and status.used of every ResourceQuota, the validatingadmissionpolicy-status controller type-checks each ValidatingAdmissionPolicy generation into status.typeChecking, the root-ca-certificate-publisher controller keeps a kube-root-ca.crt ConfigMap (the CA bundle that verifies this server) in every namespace, " +
  "the CRD naming, establishing and finalizer controllers accept CustomResourceDefinition names, establish them and delete their custom objects when they are deleted (in kube-apiserver's apiextensions server upstream, not switchable there), " +
  "the namespace controller empties and removes deleted namespaces and the garbage-collector controller deletes dependents whose owners are gone (turning either off leaves namespaces Terminating or dependents in place, as with no controller manager).";

function canonical(name: string, known: readonly ControllerDescriptor[]): ControllerDescriptor | undefined {
  return known.find((c) => c.name === name || c.aliases.includes(name));
}

/** Upstream's validation: each entry but `*` must name a known controller (after `-` and aliases). */
export function validateControllers(list: readonly string[], known: readonly ControllerDescriptor[] = switchableControllers): string[] {
  const errs: string[] = [];
  for (const entry of list) {
    if (entry === "*") continue;
    const bare = entry.startsWith("-") ? entry.slice(1) : entry;
    if (!canonical(bare, known)) errs.push(`${goQuote(bare)} is not in the list of known controllers`);
  }
  return errs;
}

/** The errors of validateControllers as one message (upstream's aggregate: one, or "[a, b]"). */
export function controllersError(list: readonly string[], known: readonly ControllerDescriptor[] = switchableControllers): string | undefined {
  const errs = validateControllers(list, known);
  if (errs.length === 0) return undefined;
  return errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`;
}

/** Parses one --controllers value (a comma list; the flag may be repeated, the lists add up). */
export function parseControllersFlag(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** Whether `name` runs under this --controllers list (first explicit mention wins, then `*`). */
export function controllerEnabled(name: string, list: readonly string[] = defaultControllers, known: readonly ControllerDescriptor[] = switchableControllers): boolean {
  const d = canonical(name, known);
  if (!d) return false;
  let star = false;
  for (const entry of list) {
    const off = entry.startsWith("-");
    const bare = off ? entry.slice(1) : entry;
    if (bare === "*" && !off) {
      star = true;
      continue;
    }
    if (canonical(bare, known) === d) return !off;
  }
  return star && d.onByDefault;
}
