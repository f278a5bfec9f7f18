// The default ClusterRoles and ClusterRoleBindings of kube-apiserver 1.34 (upstream:
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), built rule by rule.
import { policyGates, type GateCheck } from "./gates.js";
import {
  clusterRole, clusterRoleBinding, eventsRule, groups, Read, ReadUpdate, ReadWrite, rule, serviceAccount, users, Write,
  type BindingObject, type PolicyRule, type RoleObject,
} from "./rules.js";

const core = "";
const apps = "apps";
const authentication = "authentication.k8s.io";
const authorization = "authorization.k8s.io";
const autoscaling = "autoscaling";
const batch = "batch";
const certificates = "certificates.k8s.io";
const coordination = "coordination.k8s.io";
const discovery = "discovery.k8s.io";
const extensions = "extensions";
const policy = "policy";
const rbac = "rbac.authorization.k8s.io";
const storage = "storage.k8s.io";
const networking = "networking.k8s.io";
const events = "events.k8s.io";
const resource = "resource.k8s.io";
const node = "node.k8s.io";

const aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
const aggregateToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
const aggregateToView = "rbac.authorization.k8s.io/aggregate-to-view";

/** What the kubelet's identity (system:node) may do; the Node authorizer narrows it per node. */
export function nodeRules(enabled: GateCheck = policyGates()): PolicyRule[] {
  const rules = [
    // access checks (non-mutating creates)
    rule("create").groups(authentication).resources("tokenreviews").build(),
    rule("create").groups(authorization).resources("subjectaccessreviews", "localsubjectaccessreviews").build(),
    // service environment variables
    rule(...Read).groups(core).resources("services").build(),
    // registration and status of the node itself
    rule("create", "get", "list", "watch").groups(core).resources("nodes").build(),
    rule("update", "patch").groups(core).resources("nodes/status").build(),
    rule("update", "patch").groups(core).resources("nodes").build(),
    rule("create", "update", "patch").groups(core).resources("events").build(),
    // pods: read, mirror pods, status, evictions
    rule(...Read).groups(core).resources("pods").build(),
    rule("create", "delete").groups(core).resources("pods").build(),
    rule("update", "patch").groups(core).resources("pods/status").build(),
    rule("create").groups(core).resources("pods/eviction").build(),
    // what pods mount or reference
    rule("get", "list", "watch").groups(core).resources("secrets", "configmaps").build(),
    rule("get").groups(core).resources("persistentvolumeclaims", "persistentvolumes").build(),
    rule("get").groups(core).resources("endpoints").build(),
    // client certificate rotation
    rule("create", "get", "list", "watch").groups(certificates).resources("certificatesigningrequests").build(),
    // node heartbeat leases
    rule("get", "create", "update", "patch", "delete").groups(coordination).resources("leases").build(),
    rule("get").groups(storage).resources("volumeattachments").build(),
    rule("create").groups(core).resources("serviceaccounts/token").build(),
    rule("get", "update", "patch").groups(core).resources("persistentvolumeclaims/status").build(),
    rule("get", "watch", "list").groups(storage).resources("csidrivers").build(),
    rule("get", "create", "update", "patch", "delete").groups(storage).resources("csinodes").build(),
    rule("get", "list", "watch").groups(node).resources("runtimeclasses").build(),
  ];
  if (enabled("DynamicResourceAllocation")) {
    rules.push(rule("get").groups(resource).resources("resourceclaims").build());
    rules.push(rule("deletecollection").groups(resource).resources("resourceslices").build());
  }
  return rules;
}

function kubeSchedulerRules(enabled: GateCheck): PolicyRule[] {
  const rules = [
    eventsRule(),
    // leader election
    rule("create").groups(coordination).resources("leases").build(),
    rule("get", "update", "list", "watch").groups(coordination).resources("leases").names("kube-scheduler").build(),
    rule(...ReadWrite).groups(coordination).resources("leasecandidates").build(),
    // what the scheduler places and binds
    rule(...Read).groups(core).resources("nodes").build(),
    rule("get", "list", "watch", "delete").groups(core).resources("pods").build(),
    rule("create").groups(core).resources("pods/binding", "bindings").build(),
    rule("patch", "update").groups(core).resources("pods/status").build(),
    // what selects pods
    rule(...Read).groups(core).resources("services", "replicationcontrollers").build(),
    rule(...Read).groups(apps, extensions).resources("replicasets").build(),
    rule(...Read).groups(apps).resources("statefulsets").build(),
    // what applies to pods
    rule(...Read).groups(policy).resources("poddisruptionbudgets").build(),
    rule(...Read).groups(core).resources("persistentvolumeclaims", "persistentvolumes").build(),
    rule("create").groups(authentication).resources("tokenreviews").build(),
    rule("create").groups(authorization).resources("subjectaccessreviews").build(),
    rule(...Read).groups(storage).resources("csinodes").build(),
    rule(...Read).groups(storage).resources("volumeattachments").build(),
    rule(...Read).groups(core).resources("namespaces").build(),
    rule(...Read).groups(storage).resources("csidrivers").build(),
    rule(...Read).groups(storage).resources("csistoragecapacities").build(),
  ];
  if (enabled("DynamicResourceAllocation")) {
    rules.push(
      rule(...Read).groups(resource).resources("deviceclasses").build(),
      rule(...ReadUpdate).groups(resource).resources("resourceclaims").build(),
      rule(...ReadUpdate).groups(resource).resources("resourceclaims/status").build(),
      rule(...ReadUpdate).groups(core).resources("pods/finalizers").build(),
      rule(...Read).groups(resource).resources("resourceslices").build(),
    );
  }
  return rules;
}

function nodeProxierRules(enabled: GateCheck): PolicyRule[] {
  const rules = [
    rule("list", "watch").groups(core).resources("services", "endpoints").build(),
    rule("get", "list", "watch").groups(core).resources("nodes").build(),
    eventsRule(),
  ];
  if (enabled("MultiCIDRServiceAllocator")) rules.push(rule("list", "watch").groups(networking).resources("servicecidrs").build());
  rules.push(rule("list", "watch").groups(discovery).resources("endpointslices").build());
  return rules;
}

const approver = (signer: string) => [rule("approve").groups(certificates).resources("signers").names(signer).build()];

/** Every default ClusterRole but the controllers' (see controllerRoles). */
export function clusterRoles(enabled: GateCheck = policyGates()): RoleObject[] {
  const roles: RoleObject[] = [
    // can do anything
    clusterRole("cluster-admin", [rule("*").groups("*").resources("*").build(), rule("*").urls("*").build()]),
    // readiness and API discovery
    clusterRole("system:discovery", [
      rule("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*").build(),
    ]),
    // monitoring endpoints, individual health checks included
    clusterRole("system:monitoring", [
      rule("get").urls("/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*").build(),
    ]),
    // what any user may learn about itself
    clusterRole("system:basic-user", [
      rule("create").groups(authorization).resources("selfsubjectaccessreviews", "selfsubjectrulesreviews").build(),
      rule("create").groups(authentication).resources("selfsubjectreviews").build(),
    ]),
    // insensitive cluster information
    clusterRole("system:public-info-viewer", [rule("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/").build()]),
    // user-facing roles, filled by aggregation
    clusterRole("admin", [], { aggregateFrom: aggregateToAdmin }),
    clusterRole("edit", [], { aggregateFrom: aggregateToEdit, labels: { [aggregateToAdmin]: "true" } }),
    clusterRole("view", [], { aggregateFrom: aggregateToView, labels: { [aggregateToEdit]: "true" } }),
    clusterRole(
      "system:aggregate-to-admin",
      [
        rule("create").groups(authorization).resources("localsubjectaccessreviews").build(),
        rule(...ReadWrite).groups(rbac).resources("roles", "rolebindings").build(),
      ],
      { labels: { [aggregateToAdmin]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        // reads of escalating resources
        rule(...Read).groups(core).resources("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy").build(),
        rule("impersonate").groups(core).resources("serviceaccounts").build(),
        rule(...Write).groups(core).resources("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward").build(),
        rule("create").groups(core).resources("pods/eviction").build(),
        rule(...Write).groups(core).resources("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets", "events").build(),
        rule("create").groups(core).resources("serviceaccounts/token").build(),
        rule(...Write).groups(apps).resources("statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale").build(),
        rule(...Write).groups(autoscaling).resources("horizontalpodautoscalers").build(),
        rule(...Write).groups(batch).resources("jobs", "cronjobs").build(),
        rule(...Write).groups(extensions).resources("daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies").build(),
        rule(...Write).groups(policy).resources("poddisruptionbudgets").build(),
        rule(...Write).groups(networking).resources("networkpolicies", "ingresses").build(),
        rule(...ReadWrite).groups(coordination).resources("leases").build(),
      ],
      { labels: { [aggregateToEdit]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(...Read).groups(core).resources("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps").build(),
        rule(...Read).groups(core).resources("limitranges", "resourcequotas", "bindings", "events", "pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log").build(),
        // namespaces read at namespace scope: this namespace
        rule(...Read).groups(core).resources("namespaces").build(),
        rule(...Read).groups(discovery).resources("endpointslices").build(),
        rule(...Read).groups(apps).resources("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale", "daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale").build(),
        rule(...Read).groups(autoscaling).resources("horizontalpodautoscalers", "horizontalpodautoscalers/status").build(),
        rule(...Read).groups(batch).resources("jobs", "cronjobs", "cronjobs/status", "jobs/status").build(),
        rule(...Read).groups(extensions).resources("daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale", "networkpolicies").build(),
        rule(...Read).groups(policy).resources("poddisruptionbudgets", "poddisruptionbudgets/status").build(),
        rule(...Read).groups(networking).resources("networkpolicies", "ingresses", "ingresses/status").build(),
      ],
      { labels: { [aggregateToView]: "true" } },
    ),
    clusterRole("system:heapster", [
      rule(...Read).groups(core).resources("events", "pods", "nodes", "namespaces").build(),
      rule(...Read).groups(extensions).resources("deployments").build(),
    ]),
    clusterRole("system:node", nodeRules(enabled)),
    clusterRole("system:node-problem-detector", [
      rule("get").groups(core).resources("nodes").build(),
      rule("patch").groups(core).resources("nodes/status").build(),
      eventsRule(),
    ]),
    clusterRole("system:kubelet-api-admin", [
      rule("get", "list", "watch").groups(core).resources("nodes").build(),
      rule("proxy").groups(core).resources("nodes").build(),
      rule("*").groups(core).resources("nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log").build(),
    ]),
    clusterRole("system:node-bootstrapper", [rule("create", "get", "list", "watch").groups(certificates).resources("certificatesigningrequests").build()]),
    clusterRole("system:auth-delegator", [
      rule("create").groups(authentication).resources("tokenreviews").build(),
      rule("create").groups(authorization).resources("subjectaccessreviews").build(),
    ]),
    clusterRole("system:kube-aggregator", [rule(...Read).groups(core).resources("services", "endpoints").build()]),
    clusterRole("system:kube-controller-manager", [
      eventsRule(),
      rule("create").groups(coordination).resources("leases").build(),
      rule("get", "update").groups(coordination).resources("leases").names("kube-controller-manager").build(),
      rule("create").groups(core).resources("secrets", "serviceaccounts").build(),
      rule("delete").groups(core).resources("secrets").build(),
      rule("get").groups(core).resources("namespaces", "secrets", "serviceaccounts", "configmaps").build(),
      rule("update").groups(core).resources("secrets", "serviceaccounts").build(),
      rule("create").groups(authentication).resources("tokenreviews").build(),
      rule("create").groups(authorization).resources("subjectaccessreviews").build(),
      // every shared informer
      rule("list", "watch").groups("*").resources("*").build(),
      rule("create").groups(core).resources("serviceaccounts/token").build(),
    ]),
    clusterRole("system:kube-dns", [rule("list", "watch").groups(core).resources("endpoints", "services").build()]),
    clusterRole("system:persistent-volume-provisioner", [
      rule("get", "list", "watch", "create", "delete").groups(core).resources("persistentvolumes").build(),
      rule("get", "list", "watch", "update").groups(core).resources("persistentvolumeclaims").build(),
      rule(...Read).groups(storage).resources("storageclasses").build(),
      rule("watch").groups(core).resources("events").build(),
      eventsRule(),
    ]),
    clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient", [
      rule("create").groups(certificates).resources("certificatesigningrequests/nodeclient").build(),
    ]),
    clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", [
      rule("create").groups(certificates).resources("certificatesigningrequests/selfnodeclient").build(),
    ]),
    clusterRole("system:volume-scheduler", [
      rule(...ReadUpdate).groups(core).resources("persistentvolumes").build(),
      rule(...Read).groups(storage).resources("storageclasses").build(),
      rule(...ReadUpdate).groups(core).resources("persistentvolumeclaims").build(),
    ]),
    clusterRole("system:certificates.k8s.io:legacy-unknown-approver", approver("kubernetes.io/legacy-unknown")),
    clusterRole("system:certificates.k8s.io:kubelet-serving-approver", approver("kubernetes.io/kubelet-serving")),
    clusterRole("system:certificates.k8s.io:kube-apiserver-client-approver", approver("kubernetes.io/kube-apiserver-client")),
    clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", approver("kubernetes.io/kube-apiserver-client-kubelet")),
    // service account issuer discovery (slash-ended forms too, for clients built from old OpenAPI)
    clusterRole("system:service-account-issuer-discovery", [
      rule("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/").build(),
    ]),
    clusterRole("system:node-proxier", nodeProxierRules(enabled)),
    clusterRole("system:kube-scheduler", kubeSchedulerRules(enabled)),
  ];
  if (enabled("ClusterTrustBundle")) {
    roles.push(clusterRole("system:cluster-trust-bundle-discovery", [rule(...Read).groups(certificates).resources("clustertrustbundles").build()]));
  }
  return roles;
}

/** The default ClusterRoleBindings but the controllers'. */
export function clusterRoleBindings(enabled: GateCheck = policyGates()): BindingObject[] {
  const bindings = [
    clusterRoleBinding("cluster-admin", groups("system:masters")),
    clusterRoleBinding("system:monitoring", groups("system:monitoring")),
    clusterRoleBinding("system:discovery", groups("system:authenticated")),
    clusterRoleBinding("system:basic-user", groups("system:authenticated")),
    clusterRoleBinding("system:public-info-viewer", groups("system:authenticated", "system:unauthenticated")),
    clusterRoleBinding("system:node-proxier", users("system:kube-proxy")),
    clusterRoleBinding("system:kube-controller-manager", users("system:kube-controller-manager")),
    clusterRoleBinding("system:kube-dns", [serviceAccount("kube-system", "kube-dns")]),
    clusterRoleBinding("system:kube-scheduler", users("system:kube-scheduler")),
    clusterRoleBinding("system:volume-scheduler", users("system:kube-scheduler")),
    // bound to nobody since the Node authorizer took over; kept for upgrades
    clusterRoleBinding("system:node", []),
    clusterRoleBinding("system:service-account-issuer-discovery", groups("system:serviceaccounts")),
  ];
  if (enabled("ClusterTrustBundle")) bindings.push(clusterRoleBinding("system:cluster-trust-bundle-discovery", groups("system:authenticated")));
  return bindings;
}
