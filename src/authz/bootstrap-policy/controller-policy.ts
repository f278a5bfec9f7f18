// The roles of kube-controller-manager's controllers, `system:controller:<name>`, each bound to the
// service account `kube-system/<name>` the controller runs as with --use-service-account-credentials
// (upstream: bootstrappolicy/controller_policy.go).
import { policyGates, type GateCheck } from "./gates.js";
import { clusterRole, clusterRoleBinding, eventsRule, rule, serviceAccount, type BindingObject, type PolicyRule, type RoleObject } from "./rules.js";

export const controllerRolePrefix = "system:controller:";

const core = "";
const apps = "apps";
const extensions = "extensions";
const batch = "batch";
const policy = "policy";
const autoscaling = "autoscaling";
const certificates = "certificates.k8s.io";
const storage = "storage.k8s.io";
const discovery = "discovery.k8s.io";
const networking = "networking.k8s.io";
const resource = "resource.k8s.io";
const rbac = "rbac.authorization.k8s.io";
const admissionregistration = "admissionregistration.k8s.io";
const authorization = "authorization.k8s.io";

/** Controller name (without the prefix) → its rules, in upstream's order. */
function controllerRules(enabled: GateCheck): [string, PolicyRule[]][] {
  const out: [string, PolicyRule[]][] = [
    ["attachdetach-controller", [
      rule("list", "watch").groups(core).resources("persistentvolumes", "persistentvolumeclaims").build(),
      rule("get", "list", "watch").groups(core).resources("nodes").build(),
      rule("patch", "update").groups(core).resources("nodes/status").build(),
      rule("list", "watch").groups(core).resources("pods").build(),
      eventsRule(),
      rule("get", "create", "delete", "list", "watch").groups(storage).resources("volumeattachments").build(),
      rule("get", "watch", "list").groups(storage).resources("csidrivers").build(),
      rule("get", "watch", "list").groups(storage).resources("csinodes").build(),
    ]],
    ["clusterrole-aggregation-controller", [
      // escalate: it writes aggregated rules it may not hold itself
      rule("escalate", "get", "list", "watch", "update", "patch").groups(rbac).resources("clusterroles").build(),
    ]],
    ["cronjob-controller", [
      rule("get", "list", "watch", "update").groups(batch).resources("cronjobs").build(),
      rule("get", "list", "watch", "create", "update", "delete", "patch").groups(batch).resources("jobs").build(),
      rule("update").groups(batch).resources("cronjobs/status").build(),
      rule("update").groups(batch).resources("cronjobs/finalizers").build(),
      rule("list", "delete").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["daemon-set-controller", [
      rule("get", "list", "watch").groups(extensions, apps).resources("daemonsets").build(),
      rule("update").groups(extensions, apps).resources("daemonsets/status").build(),
      rule("update").groups(extensions, apps).resources("daemonsets/finalizers").build(),
      rule("list", "watch").groups(core).resources("nodes").build(),
      rule("list", "watch", "create", "delete", "patch").groups(core).resources("pods").build(),
      rule("create").groups(core).resources("pods/binding").build(),
      rule("get", "list", "watch", "create", "delete", "update", "patch").groups(apps).resources("controllerrevisions").build(),
      eventsRule(),
    ]],
    ["deployment-controller", [
      rule("get", "list", "watch", "update").groups(extensions, apps).resources("deployments").build(),
      rule("update").groups(extensions, apps).resources("deployments/status").build(),
      rule("update").groups(extensions, apps).resources("deployments/finalizers").build(),
      rule("get", "list", "watch", "create", "update", "patch", "delete").groups(apps, extensions).resources("replicasets").build(),
      // pods are updated to adopt or orphan them
      rule("get", "list", "watch", "update").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["disruption-controller", [
      rule("get", "list", "watch").groups(extensions, apps).resources("deployments").build(),
      rule("get", "list", "watch").groups(apps, extensions).resources("replicasets").build(),
      rule("get", "list", "watch").groups(core).resources("replicationcontrollers").build(),
      rule("get", "list", "watch").groups(policy).resources("poddisruptionbudgets").build(),
      rule("get", "list", "watch").groups(apps).resources("statefulsets").build(),
      rule("update").groups(policy).resources("poddisruptionbudgets/status").build(),
      rule("patch", "update").groups(core).resources("pods/status").build(),
      rule("get").groups("*").resources("*/scale").build(),
      eventsRule(),
    ]],
    ["endpoint-controller", [
      rule("get", "list", "watch").groups(core).resources("services", "pods").build(),
      rule("get", "list", "create", "update", "delete").groups(core).resources("endpoints").build(),
      rule("create").groups(core).resources("endpoints/restricted").build(),
      eventsRule(),
    ]],
    ["endpointslice-controller", [
      rule("get", "list", "watch").groups(core).resources("services", "pods", "nodes").build(),
      // OwnerReferencesPermissionEnforcement: owner finalizers
      rule("update").groups(core).resources("services/finalizers").build(),
      rule("get", "list", "create", "update", "delete").groups(discovery).resources("endpointslices").build(),
      eventsRule(),
    ]],
    ["endpointslicemirroring-controller", [
      rule("get", "list", "watch").groups(core).resources("services", "endpoints").build(),
      rule("update").groups(core).resources("services/finalizers").build(),
      rule("update").groups(core).resources("endpoints/finalizers").build(),
      rule("get", "list", "create", "update", "delete").groups(discovery).resources("endpointslices").build(),
      eventsRule(),
    ]],
    ["expand-controller", [
      rule("get", "list", "watch", "update", "patch").groups(core).resources("persistentvolumes").build(),
      rule("update", "patch").groups(core).resources("persistentvolumeclaims/status").build(),
      rule("get", "list", "watch").groups(core).resources("persistentvolumeclaims").build(),
      eventsRule(),
      // glusterfs-era endpoint lookups
      rule("get").groups(core).resources("services").build(),
    ]],
    ["ephemeral-volume-controller", [
      rule("get", "list", "watch").groups(core).resources("pods").build(),
      rule("update").groups(core).resources("pods/finalizers").build(),
      rule("get", "list", "watch", "create").groups(core).resources("persistentvolumeclaims").build(),
      eventsRule(),
    ]],
    ["generic-garbage-collector", [
      // everything: it deletes and un-owns any object
      rule("get", "list", "watch", "patch", "update", "delete").groups("*").resources("*").build(),
      eventsRule(),
    ]],
    ["horizontal-pod-autoscaler", [
      rule("get", "list", "watch").groups(autoscaling).resources("horizontalpodautoscalers").build(),
      rule("update").groups(autoscaling).resources("horizontalpodautoscalers/status").build(),
      rule("get", "update").groups("*").resources("*/scale").build(),
      rule("list").groups(core).resources("pods").build(),
      // resource metrics API
      rule("list").groups("metrics.k8s.io").resources("pods").build(),
      rule("get", "list").groups("custom.metrics.k8s.io").resources("*").build(),
      rule("get", "list").groups("external.metrics.k8s.io").resources("*").build(),
      eventsRule(),
    ]],
    ["job-controller", [
      rule("get", "list", "watch", "update", "patch").groups(batch).resources("jobs").build(),
      rule("update").groups(batch).resources("jobs/status").build(),
      rule("update").groups(batch).resources("jobs/finalizers").build(),
      rule("list", "watch", "create", "delete", "patch").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["namespace-controller", [
      rule("get", "list", "watch", "delete").groups(core).resources("namespaces").build(),
      rule("update").groups(core).resources("namespaces/finalize", "namespaces/status").build(),
      rule("get", "list", "delete", "deletecollection").groups("*").resources("*").build(),
    ]],
    ["node-controller", [
      rule("get", "list", "update", "delete", "patch").groups(core).resources("nodes").build(),
      rule("patch", "update").groups(core).resources("nodes/status").build(),
      // marks pods not ready on unreachable nodes
      rule("patch", "update").groups(core).resources("pods/status").build(),
      rule("list", "get", "delete").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["persistent-volume-binder", [
      rule("get", "list", "watch", "update", "create", "delete").groups(core).resources("persistentvolumes").build(),
      rule("update").groups(core).resources("persistentvolumes/status").build(),
      rule("get", "list", "watch", "update").groups(core).resources("persistentvolumeclaims").build(),
      rule("update").groups(core).resources("persistentvolumeclaims/status").build(),
      rule("list", "watch", "get", "create", "delete").groups(core).resources("pods").build(),
      // storage classes, for provisioning
      rule("get", "list", "watch").groups(storage).resources("storageclasses").build(),
      rule("list", "watch").groups(core).resources("nodes").build(),
      eventsRule(),
      rule("watch").groups(core).resources("events").build(),
      rule("get").groups(core).resources("services").build(),
    ]],
    ["pod-garbage-collector", [
      rule("list", "watch", "delete").groups(core).resources("pods").build(),
      rule("get", "list").groups(core).resources("nodes").build(),
      rule("patch").groups(core).resources("pods/status").build(),
    ]],
    ["replicaset-controller", [
      rule("get", "list", "watch", "update").groups(apps, extensions).resources("replicasets").build(),
      rule("update").groups(apps, extensions).resources("replicasets/status").build(),
      rule("update").groups(apps, extensions).resources("replicasets/finalizers").build(),
      rule("list", "watch", "patch", "create", "delete").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["replication-controller", [
      // 1.0 controller: still updates the whole object
      rule("get", "list", "watch", "update").groups(core).resources("replicationcontrollers").build(),
      rule("update").groups(core).resources("replicationcontrollers/status").build(),
      rule("update").groups(core).resources("replicationcontrollers/finalizers").build(),
      rule("list", "watch", "patch", "create", "delete").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["resourcequota-controller", [
      // quota can count quota on anything for reconciliation
      rule("list", "watch").groups("*").resources("*").build(),
      rule("update").groups(core).resources("resourcequotas/status").build(),
      eventsRule(),
    ]],
    ["route-controller", [
      rule("list", "watch").groups(core).resources("nodes").build(),
      rule("patch").groups(core).resources("nodes/status").build(),
      eventsRule(),
    ]],
    ["service-account-controller", [rule("create").groups(core).resources("serviceaccounts").build(), eventsRule()]],
    ["service-controller", [
      rule("get", "list", "watch").groups(core).resources("services").build(),
      rule("patch", "update").groups(core).resources("services/status").build(),
      rule("list", "watch").groups(core).resources("nodes").build(),
      eventsRule(),
    ]],
    ["statefulset-controller", [
      rule("list", "watch").groups(core).resources("pods").build(),
      rule("get", "list", "watch").groups(apps).resources("statefulsets").build(),
      rule("update").groups(apps).resources("statefulsets/status").build(),
      rule("update").groups(apps).resources("statefulsets/finalizers").build(),
      rule("get", "create", "delete", "update", "patch").groups(core).resources("pods").build(),
      rule("get", "list", "watch", "create", "delete", "update", "patch").groups(apps).resources("controllerrevisions").build(),
      rule("get", "create", "list", "watch").groups(core).resources("persistentvolumeclaims").build(),
      eventsRule(),
      // PVC retention policy
      rule("update", "delete").groups(core).resources("persistentvolumeclaims").build(),
      rule("update").groups(core).resources("pods/finalizers").build(),
    ]],
    ["ttl-controller", [rule("update", "patch", "list", "watch").groups(core).resources("nodes").build(), eventsRule()]],
    ["certificate-controller", [
      rule("get", "list", "watch", "delete").groups(certificates).resources("certificatesigningrequests").build(),
      rule("update").groups(certificates).resources("certificatesigningrequests/status", "certificatesigningrequests/approval").build(),
      rule("approve").groups(certificates).resources("signers").names("kubernetes.io/kube-apiserver-client-kubelet").build(),
      rule("sign").groups(certificates).resources("signers")
        .names("kubernetes.io/legacy-unknown", "kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving").build(),
      rule("create").groups(authorization).resources("subjectaccessreviews").build(),
      eventsRule(),
    ]],
    ["pvc-protection-controller", [
      rule("get", "list", "watch", "update").groups(core).resources("persistentvolumeclaims").build(),
      rule("list", "watch", "get").groups(core).resources("pods").build(),
      eventsRule(),
    ]],
    ["pv-protection-controller", [
      rule("get", "list", "watch", "update").groups(core).resources("persistentvolumes").build(),
      eventsRule(),
    ]],
    ["ttl-after-finished-controller", [rule("get", "list", "watch", "delete").groups(batch).resources("jobs").build(), eventsRule()]],
    ["root-ca-cert-publisher", [rule("create", "update").groups(core).resources("configmaps").build(), eventsRule()]],
    ["validatingadmissionpolicy-status-controller", [
      rule("get", "list", "watch").groups(admissionregistration).resources("validatingadmissionpolicies").build(),
      rule("get", "patch", "update").groups(admissionregistration).resources("validatingadmissionpolicies/status").build(),
      eventsRule(),
    ]],
    ["legacy-service-account-token-cleaner", [
      rule("get").groups(core).resources("configmaps").names("kube-apiserver-legacy-service-account-token-tracking").build(),
      rule("patch", "delete").groups(core).resources("secrets").build(),
    ]],
  ];
  if (enabled("DynamicResourceAllocation")) {
    out.push(["resource-claim-controller", [
      rule("get", "list", "watch").groups(core).resources("pods").build(),
      rule("update").groups(core).resources("pods/finalizers").build(),
      rule("get", "list", "watch", "create", "delete").groups(resource).resources("resourceclaims").build(),
      rule("update", "patch").groups(resource).resources("resourceclaims", "resourceclaims/status").build(),
      rule("update", "patch").groups(core).resources("pods/status").build(),
      eventsRule(),
    ]]);
  }
  if (enabled("MultiCIDRServiceAllocator")) {
    out.push(["service-cidrs-controller", [
      rule("get", "list", "watch", "patch", "update").groups(networking).resources("servicecidrs").build(),
      rule("patch", "update").groups(networking).resources("servicecidrs/finalizers").build(),
      rule("patch", "update").groups(networking).resources("servicecidrs/status").build(),
      rule("get", "list", "watch").groups(networking).resources("ipaddresses").build(),
      eventsRule(),
    ]]);
  }
  if (enabled("SELinuxChangePolicy")) {
    out.push(["selinux-warning-controller", [
      rule("get", "list", "watch").groups(core).resources("persistentvolumeclaims", "persistentvolumes", "pods").build(),
      rule("get", "list", "watch").groups(storage).resources("csidrivers").build(),
      eventsRule(),
    ]]);
  }
  if (enabled("VolumeAttributesClass")) {
    out.push(["volumeattributesclass-protection-controller", [
      rule("get", "list", "watch").groups(core).resources("persistentvolumeclaims").build(),
      rule("get", "list", "watch").groups(core).resources("persistentvolumes").build(),
      rule("get", "list", "watch", "update").groups(storage).resources("volumeattributesclasses").build(),
      eventsRule(),
    ]]);
  }
  return out;
}

export function controllerRoles(enabled: GateCheck = policyGates()): RoleObject[] {
  return controllerRules(enabled).map(([name, rules]) => clusterRole(controllerRolePrefix + name, rules));
}

export function controllerRoleBindings(enabled: GateCheck = policyGates()): BindingObject[] {
  return controllerRules(enabled).map(([name]) => clusterRoleBinding(controllerRolePrefix + name, [serviceAccount("kube-system", name)]));
}

