// Built-in API capabilities that are neither authentication, authorization, admission nor a
// controller: the protobuf and CBOR encodings, the subresources that act rather than store, the
// access reviews, discovery and OpenAPI, and the objects every cluster has (the system
// namespaces, the kubernetes Service, the system PriorityClasses).
import { systemPriorityClasses } from "../../admission/builtin/system-priority-classes.js";
import { bindingStorage } from "../../handlers/pod-binding.js";
import { podConnectStorage, podLogStorage } from "../../handlers/pod-connect.js";
import { nodeProxyStorage, podProxyStorage, serviceProxyStorage } from "../../handlers/proxy-connect.js";
import { kubeletClientConfig, kubeletFlags } from "./kubelet-flags.js";
import { evictionStorage } from "../../handlers/pod-eviction.js";
import type { RestStorage } from "../../handlers/rest/capabilities.js";
import type { StorageRegistration } from "../../handlers/rest/storage-table.js";
import { reviewStorages } from "../../handlers/reviews.js";
import { scaleStorage } from "../../handlers/scale.js";
import { kubernetesService, serviceRanges } from "../../types/allocation/service.js";
import { startServiceAllocationRepair } from "../../controllers/service-allocation-repair.js";
import { DefaultServiceCIDR, serviceCIDRType, startDefaultServiceCIDR } from "../../controllers/default-service-cidr.js";
import type { KObject } from "../../apimachinery/object.js";
import { cborCodec } from "../../encoding/cbor.js";
import { protobufCodec } from "../../encoding/protobuf/index.js";
import type { NonResourceHandler } from "../../http/context.js";
import { builtinSchema } from "../../types/register.js";
import type { ExternalDiscovery } from "../../discovery/external.js";
import type { CoreParts, FeatureModule } from "./feature-module.js";

/** The scale subresource, for every type that declares it. */
export function scaleFeature(): FeatureModule {
  return { name: "scale", setup: () => ({ storages: () => [{ anyType: true, subresource: "scale", storage: scaleStorage }] }) };
}

/**
 * Pod subresources (eviction, binding, log and the connect verbs, streamed from the node's
 * kubelet) and the proxy subresources of pods, services and nodes.
 */
export function podSubresourcesFeature(): FeatureModule {
  return {
    name: "pod-subresources",
    flags: kubeletFlags,
    setup: ({ options }) => {
      const kubelet = kubeletClientConfig(options);
      return {
        storages: () => [
          podStorage("binding", bindingStorage),
          podStorage("eviction", evictionStorage),
          podStorage("log", podLogStorage(kubelet)),
          podStorage("exec", podConnectStorage("exec", kubelet)),
          podStorage("attach", podConnectStorage("attach", kubelet)),
          podStorage("portforward", podConnectStorage("portforward", kubelet)),
          podStorage("proxy", podProxyStorage),
          { group: "", resource: "services", subresource: "proxy", storage: serviceProxyStorage },
          { group: "", resource: "nodes", subresource: "proxy", storage: nodeProxyStorage(kubelet) },
        ],
      };
    },
  };
}

function podStorage(subresource: string, storage: RestStorage): StorageRegistration {
  return { group: "", resource: "pods", subresource, storage };
}

/** application/vnd.kubernetes.protobuf for built-in types. */
export function protobufFeature(): FeatureModule {
  return { name: "protobuf", setup: () => ({ codecs: [protobufCodec] }) };
}

/** CBOR is served (and accepted) only behind its gate, as upstream. */
export function cborFeature(): FeatureModule {
  return { name: "cbor", setup: ({ gates }) => ({ codecs: gates.enabled("CBORServingAndStorage") ? [cborCodec] : [] }) };
}

/**
 * Discovery documents and OpenAPI, loaded with their first request to keep them off the start-up
 * path. v2beta1 aggregated discovery stays served unless the removal gate is on: kubectl
 * 1.27–1.29 ask for it.
 */
export function discoveryFeature(external?: ExternalDiscovery): FeatureModule {
  return {
    name: "discovery",
    setup: () => ({
      nonResource({ parts }) {
        let discovery: Promise<NonResourceHandler> | undefined;
        const options = { v2beta1: !parts.gates.enabled("AggregatedDiscoveryRemoveBetaType"), metaDefinitions: builtinSchema.definition, ...(external ? { external } : {}) };
        const load = () => (discovery ??= import("../../discovery/index.js").then(({ createDiscovery }) => createDiscovery(parts.types, options).handler));
        return [async (ex, user, info) => (await load())(ex, user, info)];
      },
    }),
  };
}

/**
 * The access reviews, answered by the server's own authorizer chain (SubjectAccessReview,
 * LocalSubjectAccessReview, SelfSubjectAccessReview, SelfSubjectRulesReview) and authenticator
 * union (TokenReview, SelfSubjectReview).
 */
export function accessReviewsFeature(): FeatureModule {
  return {
    name: "access-reviews",
    setup: () => ({
      storages: ({ authorizer, authenticate }) => reviewStorages(authorizer, authenticate),
    }),
  };
}

/** kube-system, kube-public and kube-node-lease (upstream's system namespaces controller creates them at start). */
export function systemNamespacesFeature(): FeatureModule {
  return { name: "system-namespaces", setup: () => ({ namespaces: ["kube-system", "kube-public", "kube-node-lease"] }) };
}

/**
 * The default namespace and the kubernetes Service in it, at the first address of
 * --service-cluster-ip-range (upstream's kubernetes service controller), and the repair of the
 * Service IP and node port claims. The ranges are checked with the flags: a bad one refuses the
 * start before anything opens.
 */
export function kubernetesServiceFeature(): FeatureModule {
  return {
    name: "kubernetes-service",
    checkFlags: (o) => void serviceRanges(o.serviceClusterIPRange, o.serviceNodePortRange),
    setup: ({ options }) => ({
      namespaces: ["default"],
      bootstrap: (core) =>
        core.ensure(core.types.get("", "v1", "services"), "default", kubernetesService(serviceRanges(options.serviceClusterIPRange, options.serviceNodePortRange), options.securePort || 443) as KObject),
      controllers: (core) => {
        const repair = startServiceAllocationRepair({ ...core, ports: serviceRanges(options.serviceClusterIPRange, options.serviceNodePortRange).ports });
        return repair ? [repair] : [];
      },
    }),
  };
}

/**
 * The default ServiceCIDR "kubernetes" from --service-cluster-ip-range with its Ready condition,
 * made at start (start-up waits for it) and again whenever it goes, by every replica (upstream's
 * kubernetes-service-cidr-controller runs in every kube-apiserver), where ServiceCIDRs are served.
 */
export function defaultServiceCIDRFeature(): FeatureModule {
  return {
    name: "default-service-cidr",
    setup: ({ options }) => {
      let cidr: DefaultServiceCIDR | undefined;
      // Made on first need: a start from a copied initial state skips bootstrap but still runs the controller.
      const cidrOf = (core: CoreParts) => {
        const t = serviceCIDRType(core.types);
        if (t && !cidr) cidr = new DefaultServiceCIDR(t, { ...core, cidrs: [serviceRanges(options.serviceClusterIPRange, options.serviceNodePortRange).ip.cidr] });
        return cidr;
      };
      return {
        bootstrap: async (core) => {
          await cidrOf(core)?.sync();
        },
        replicaControllers: (core) => {
          const c = cidrOf(core);
          return c ? [startDefaultServiceCIDR(c, serviceCIDRType(core.types)!, core.informers)] : [];
        },
      };
    },
  };
}

/** The system PriorityClasses (system-cluster-critical, system-node-critical), created when missing. */
export function systemPriorityClassesFeature(): FeatureModule {
  return {
    name: "system-priority-classes",
    setup: () => ({
      bootstrap: (core) => core.ensureAll(core.types.get("scheduling.k8s.io", "v1", "priorityclasses"), "", systemPriorityClasses.map((pc) => structuredClone(pc))),
    }),
  };
}
