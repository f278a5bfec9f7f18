// The Roles and RoleBindings of kube-system and kube-public (upstream: namespace_policy.go).
import { eventsRule, role, roleBinding, rule, serviceAccount, users, type BindingObject, type RoleObject } from "./rules.js";

const kubeSystem = "kube-system";
const kubePublic = "kube-public";

export function namespaceRoles(): RoleObject[] {
  return [
    // the client-CA configmap extension API servers read to authenticate front-proxy requests
    role(kubeSystem, "extension-apiserver-authentication-reader", [
      rule("get", "list", "watch").groups("").resources("configmaps").names("extension-apiserver-authentication").build(),
    ]),
    // leader election of the controller manager and the scheduler
    role(kubeSystem, "system::leader-locking-kube-controller-manager", [
      rule("watch", "get", "list", "create", "update").groups("coordination.k8s.io").resources("leases").build(),
      rule("watch", "get", "list", "create", "update").groups("coordination.k8s.io").resources("leasecandidates").build(),
    ]),
    role(kubeSystem, "system::leader-locking-kube-scheduler", [
      rule("watch", "get", "list", "create", "update").groups("coordination.k8s.io").resources("leases").build(),
      rule("watch", "get", "list", "create", "update").groups("coordination.k8s.io").resources("leasecandidates").build(),
    ]),
    role(kubeSystem, "system:controller:bootstrap-signer", [rule("get", "list", "watch").groups("").resources("secrets").build()]),
    role(kubeSystem, "system:controller:cloud-provider", [rule("create", "get", "list", "watch").groups("").resources("configmaps").build()]),
    role(kubeSystem, "system:controller:token-cleaner", [rule("delete", "get", "list", "watch").groups("").resources("secrets").build(), eventsRule()]),
    role(kubePublic, "system:controller:bootstrap-signer", [
      rule("get", "list", "watch").groups("").resources("configmaps").build(),
      rule("update").groups("").resources("configmaps").names("cluster-info").build(),
      eventsRule(),
    ]),
  ];
}

export function namespaceRoleBindings(): BindingObject[] {
  return [
    roleBinding(kubeSystem, "extension-apiserver-authentication-reader", users("system:kube-controller-manager", "system:kube-scheduler"), "system::extension-apiserver-authentication-reader"),
    roleBinding(kubeSystem, "system::leader-locking-kube-controller-manager", [
      ...users("system:kube-controller-manager"),
      serviceAccount(kubeSystem, "kube-controller-manager"),
      serviceAccount(kubeSystem, "leader-election-controller"),
    ]),
    roleBinding(kubeSystem, "system::leader-locking-kube-scheduler", [...users("system:kube-scheduler"), serviceAccount(kubeSystem, "kube-scheduler")]),
    roleBinding(kubeSystem, "system:controller:bootstrap-signer", [serviceAccount(kubeSystem, "bootstrap-signer")]),
    roleBinding(kubeSystem, "system:controller:cloud-provider", [serviceAccount(kubeSystem, "cloud-provider")]),
    roleBinding(kubeSystem, "system:controller:token-cleaner", [serviceAccount(kubeSystem, "token-cleaner")]),
    roleBinding(kubePublic, "system:controller:bootstrap-signer", [serviceAccount(kubeSystem, "bootstrap-signer")]),
  ];
}
