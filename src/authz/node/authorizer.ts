// The Node authorizer (upstream: plugin/pkg/auth/authorizer/node/node_authorizer.go, 1.34).
// Only kubelets — user system:node:<name> in group system:nodes — get an opinion:
//   - secrets, configmaps: get/list/watch of a named object related to the node in the graph;
//   - persistentvolumeclaims (get; status update/patch), persistentvolumes, resourceclaims,
//     volumeattachments: get of a related object;
//   - serviceaccounts: get of a related one, create of the token subresource of a related one;
//   - leases: its own in kube-node-lease; csinodes: its own; resourceslices: its own;
//   - nodes, pods (AuthorizeNodeWithSelectors): only its own Node; pods bound to it (get of a
//     related pod, list/watch with fieldSelector spec.nodeName=<it>);
//   - anything else: the static node rules (rules.ts) allow, or no opinion.
// Every refusal is a no-opinion (a later authorizer may still allow), with upstream's reason.
import type { Attributes, Authorizer, AuthzResult, RulesResult } from "../authorizer.js";
import type { UserInfo } from "../../apimachinery/user.js";
import type { Graph, VertexType } from "./graph.js";
import { nodeRules, rulesAllow } from "./rules.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export const nodeUserPrefix = "system:node:";
export const nodesGroup = "system:nodes";
export const nodeLeaseNamespace = "kube-node-lease";

/** upstream nodeidentifier: the node's name, or isNode false for anyone else. */
export function nodeIdentity(user: UserInfo | undefined): { isNode: false } | { isNode: true; nodeName: string } {
  if (!user || !user.name.startsWith(nodeUserPrefix)) return { isNode: false };
  if (!user.groups.includes(nodesGroup)) return { isNode: false };
  return { isNode: true, nodeName: user.name.slice(nodeUserPrefix.length) };
}

export interface NodeAuthorizerGates {
  /** AuthorizeNodeWithSelectors (1.34: on). */
  authorizeNodeWithSelectors: boolean;
  /** KubeletServiceAccountTokenForCredentialProviders (1.34: beta, on): nodes may get related service accounts. */
  kubeletServiceAccountTokenForCredentialProviders: boolean;
}

const allow: AuthzResult = { decision: "allow", reason: "" };
const noOpinion = (reason: string): AuthzResult => ({ decision: "no-opinion", reason });

export class NodeAuthorizer implements Authorizer {
  private readonly rules = nodeRules();

  constructor(
    private readonly graph: Graph,
    private readonly gates: NodeAuthorizerGates,
  ) {}

  rulesFor(user: UserInfo): RulesResult {
    if (nodeIdentity(user).isNode) {
      // Nodes' permissions are not enumerable.
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "node authorizer does not support user rule resolution" };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  authorize(a: Attributes): AuthzResult {
    const id = nodeIdentity(a.user);
    if (!id.isNode) return noOpinion("");
    const node = id.nodeName;
    if (!node) return noOpinion(`unknown node for user ${goQuote(a.user.name)}`);

    if (a.isResourceRequest) {
      switch (`${a.apiGroup}/${a.resource}`) {
        case "/secrets":
          return this.readNamespaced(node, "secret", a);
        case "/configmaps":
          return this.readNamespaced(node, "configmap", a);
        case "/persistentvolumeclaims":
          if (a.subresource === "status") return this.statusUpdate(node, "pvc", a);
          return this.get(node, "pvc", a);
        case "/persistentvolumes":
          return this.get(node, "pv", a);
        case "resource.k8s.io/resourceclaims":
          return this.get(node, "resourceclaim", a);
        case "storage.k8s.io/volumeattachments":
          return this.get(node, "volumeattachment", a);
        case "/serviceaccounts":
          return this.serviceAccount(node, a);
        case "coordination.k8s.io/leases":
          return this.lease(node, a);
        case "storage.k8s.io/csinodes":
          return this.csiNode(node, a);
        case "resource.k8s.io/resourceslices":
          return this.resourceSlice(node, a);
        case "/nodes":
          if (this.gates.authorizeNodeWithSelectors) return this.nodeObject(node, a);
          break;
        case "/pods":
          if (this.gates.authorizeNodeWithSelectors) return this.pod(node, a);
          break;
      }
    }
    // Not subdivided: the static node rules.
    return rulesAllow(a, this.rules) ? allow : noOpinion("");
  }

  private related(node: string, type: VertexType, a: Attributes): AuthzResult {
    if (!a.name) return noOpinion("No Object name found");
    const found = this.graph.pathToNode(node, type, a.namespace, a.name);
    return found.ok ? allow : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private statusUpdate(node: string, type: VertexType, a: Attributes): AuthzResult {
    if (a.verb !== "update" && a.verb !== "patch") return noOpinion("can only get/update/patch this type");
    if (a.subresource !== "status") return noOpinion("can only update status subresource");
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: Attributes): AuthzResult {
    if (a.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (a.subresource) return noOpinion("cannot get subresource");
    return this.related(node, type, a);
  }

  private readNamespaced(node: string, type: VertexType, a: Attributes): AuthzResult {
    if (a.verb !== "get" && a.verb !== "list" && a.verb !== "watch") return noOpinion("can only read resources of this type");
    if (a.subresource) return noOpinion("cannot read subresource");
    if (!a.namespace) return noOpinion("can only read namespaced object of this type");
    return this.related(node, type, a);
  }

  private serviceAccount(node: string, a: Attributes): AuthzResult {
    if (a.verb === "get" && !a.subresource) {
      if (!this.gates.kubeletServiceAccountTokenForCredentialProviders) return noOpinion("can only create tokens for individual service accounts");
      return this.readNamespaced(node, "serviceAccount", a);
    }
    return this.createToken(node, a);
  }

  private createToken(node: string, a: Attributes): AuthzResult {
    if (a.verb !== "create" || !a.name) return noOpinion("can only create tokens for individual service accounts");
    if (a.subresource !== "token") return noOpinion("can only create token subresource of serviceaccount");
    return this.related(node, "serviceAccount", a);
  }

  private lease(node: string, a: Attributes): AuthzResult {
    if (!["get", "create", "update", "patch", "delete"].includes(a.verb)) return noOpinion("can only get, create, update, patch, or delete a node lease");
    if (a.namespace !== nodeLeaseNamespace) return noOpinion(`can only access leases in the ${goQuote(nodeLeaseNamespace)} system namespace`);
    // The name of a create is not known here: NodeRestriction checks it.
    if (a.verb !== "create" && a.name !== node) return noOpinion("can only access node lease with the same name as the requesting node");
    return allow;
  }

  private csiNode(node: string, a: Attributes): AuthzResult {
    if (!["get", "create", "update", "patch", "delete"].includes(a.verb)) return noOpinion("can only get, create, update, patch, or delete a CSINode");
    if (a.subresource) return noOpinion("cannot authorize CSINode subresources");
    if (a.verb !== "create" && a.name !== node) return noOpinion("can only access CSINode with the same name as the requesting node");
    return allow;
  }

  private resourceSlice(node: string, a: Attributes): AuthzResult {
    if (a.subresource) return noOpinion("cannot authorize ResourceSlice subresources");
    switch (a.verb) {
      case "create":
        // NodeRestriction checks spec.nodeName on create.
        return allow;
      case "get":
      case "update":
      case "patch":
      case "delete":
        return this.related(node, "resourceslice", a);
      case "watch":
      case "list":
      case "deletecollection":
        if (!this.gates.authorizeNodeWithSelectors) return allow;
        if (hasFieldEquals(a, "spec.nodeName", node) || hasFieldEquals(a, "nodeName", node)) return allow;
        return noOpinion("can only list/watch/deletecollection resourceslices with nodeName field selector");
      default:
        return noOpinion("only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection");
    }
  }

  private nodeObject(node: string, a: Attributes): AuthzResult {
    if (a.subresource === "") {
      switch (a.verb) {
        case "create":
        case "update":
        case "patch":
          // NodeRestriction limits a node to its own object.
          return allow;
        case "get":
        case "list":
        case "watch":
          // By name, not through the graph: a kubelet reads its Node before creating it.
          if (a.name === node) return allow;
          if (a.name === "") return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
          return noOpinion(`node '${node}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === "status" && (a.verb === "update" || a.verb === "patch")) {
      return allow;
    }
    return noOpinion("");
  }

  private pod(node: string, a: Attributes): AuthzResult {
    switch (a.subresource) {
      case "":
        switch (a.verb) {
          case "get":
            return this.get(node, "pod", a);
          case "list":
          case "watch":
            if (hasFieldEquals(a, "spec.nodeName", node)) return allow;
            if (a.name) return this.related(node, "pod", a);
            return noOpinion("can only list/watch pods with spec.nodeName field selector");
          case "create":
          case "delete":
            // Mirror pods; NodeRestriction limits them to the node's own.
            return allow;
        }
        break;
      case "status":
        if (a.verb === "update" || a.verb === "patch") return allow;
        break;
      case "eviction":
        if (a.verb === "create") return allow;
        break;
    }
    return noOpinion("");
  }
}

/** The request's field selector has `field=value` (an equality requirement). */
function hasFieldEquals(a: Attributes, field: string, value: string): boolean {
  return (a.fieldSelector?.requirements ?? []).some((r) => r.field === field && r.operator === "=" && r.value === value);
}
