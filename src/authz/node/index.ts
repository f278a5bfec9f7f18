// `--authorization-mode=...,Node,...`: the Node authorizer with its graph, kept current by the
// shared informers of pods, persistent volumes, volume attachments and resource slices
// (upstream: graph_populator.go). Nothing is read from the store per request.
import type { Authorizer } from "../authorizer.js";
import { runController, type Controller, type ControllerContext } from "../../controller-runtime/controller.js";
import type { InformerHandler } from "../../registry/informer.js";
import type { InformerFactory, ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { Graph } from "./graph.js";
import { NodeAuthorizer, type NodeAuthorizerGates } from "./authorizer.js";
import { isMirrorPod, podEdgeKey, podReferences, pvKubeletSecrets } from "./references.js";

export { Graph } from "./graph.js";
export { NodeAuthorizer, nodeIdentity } from "./authorizer.js";

export interface NodeAuthorizerDeps {
  informers: InformerFactory;
  types: TypeRegistry;
  /** kapi's --feature-gates (enabled(name) throws for a gate it does not know). */
  gates: { enabled(name: string): boolean };
}

export interface NodeAuthorizerWithGraph extends Authorizer {
  /** Resolves once every informer feeding the graph has synced (or stopped); at once before the populator starts. */
  readonly synced: Promise<void>;
  /** The graph (tests, metrics). */
  readonly graph: Graph;
  /**
   * Starts what keeps the graph current (upstream's graph populator): the informers followed on
   * the controller runtime, started with the server's other controllers. Once only.
   */
  startPopulator(): Controller;
}

/** 1.34 defaults of the gates kapi's --feature-gates may not list. */
const gateDefaults: Record<string, boolean> = {
  AuthorizeNodeWithSelectors: true,
  KubeletServiceAccountTokenForCredentialProviders: true,
};

function gate(gates: NodeAuthorizerDeps["gates"], name: string): boolean {
  try {
    return gates.enabled(name);
  } catch {
    return gateDefaults[name] ?? false;
  }
}

type Obj = Record<string, unknown>;
const spec = (o: KObject): Obj => ((o.spec && typeof o.spec === "object" ? o.spec : {}) as Obj);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

export function createNodeAuthorizer(deps: NodeAuthorizerDeps): NodeAuthorizerWithGraph {
  const graph = new Graph();
  const gates: NodeAuthorizerGates = {
    authorizeNodeWithSelectors: gate(deps.gates, "AuthorizeNodeWithSelectors"),
    kubeletServiceAccountTokenForCredentialProviders: gate(deps.gates, "KubeletServiceAccountTokenForCredentialProviders"),
  };
  const authorizer = new NodeAuthorizer(graph, gates);
  const feeding: ObjectInformer[] = [];
  const watched = new Set<string>(); // group/resource already fed

  /** Follows a type's informer with handlers that change the graph (and queue no work). */
  const feed = (ctx: ControllerContext, group: string, resource: string, h: InformerHandler<KObject>) => {
    const key = `${group}/${resource}`;
    if (watched.has(key)) return;
    const t = deps.types.preferred(group, resource);
    if (!t || t.virtual) return;
    watched.add(key);
    const informer = deps.informers.forType(t);
    feeding.push(informer);
    ctx.follow(informer, h);
  };

  const setPod = (pod: KObject) => {
    const nodeName = str(spec(pod).nodeName);
    if (!nodeName) return; // not bound: nothing for any node
    graph.setPod(pod.metadata.namespace ?? "", pod.metadata.name ?? "", nodeName, isMirrorPod(pod) ? undefined : podReferences(pod));
  };
  const setPV = (pv: KObject) => {
    const claim = spec(pv).claimRef as Obj | undefined;
    const ref = claim && typeof claim === "object" && str(claim.name) ? { namespace: str(claim.namespace), name: str(claim.name) } : undefined;
    graph.setPV(pv.metadata.name ?? "", ref, ref ? pvKubeletSecrets(pv) : []);
  };

  const subscribeAll = (ctx: ControllerContext) => {
    feed(ctx, "", "pods", {
      added: setPod,
      updated: (oldPod, pod) => {
        // Spec references are immutable: only a (re)binding, a new uid or new claim statuses change the edges.
        if (str(spec(pod).nodeName) && podEdgeKey(oldPod) === podEdgeKey(pod)) return;
        if (!str(spec(pod).nodeName)) return;
        setPod(pod);
      },
      deleted: (pod) => {
        if (!str(spec(pod).nodeName)) return;
        graph.deletePod(pod.metadata.namespace ?? "", pod.metadata.name ?? "");
      },
    });
    feed(ctx, "", "persistentvolumes", { added: setPV, updated: (_o, pv) => setPV(pv), deleted: (pv) => graph.deletePV(pv.metadata.name ?? "") });
    feed(ctx, "storage.k8s.io", "volumeattachments", {
      added: (va) => graph.setNodeOwned("volumeattachment", "", va.metadata.name ?? "", str(spec(va).nodeName)),
      updated: (old, va) => {
        if (str(spec(old).nodeName) === str(spec(va).nodeName)) return;
        graph.setNodeOwned("volumeattachment", "", va.metadata.name ?? "", str(spec(va).nodeName));
      },
      deleted: (va) => graph.deleteNodeOwned("volumeattachment", "", va.metadata.name ?? ""),
    });
    feed(ctx, "resource.k8s.io", "resourceslices", {
      // spec.nodeName is immutable: updates change nothing.
      added: (s) => graph.setNodeOwned("resourceslice", "", s.metadata.name ?? "", str(spec(s).nodeName) || str((s as Obj).nodeName)),
      deleted: (s) => graph.deleteNodeOwned("resourceslice", "", s.metadata.name ?? ""),
    });
  };
  let populator: Controller | undefined;
  const startPopulator = (): Controller => {
    if (populator) throw new Error("the Node authorizer's graph populator is already running");
    return (populator = runController({
      name: "node-authorizer-graph",
      setup(ctx) {
        subscribeAll(ctx);
        // A type served later (its group enabled at run time) joins the graph then.
        ctx.onStop(
          deps.types.subscribe((ev) => {
            if (ev.type === "added") subscribeAll(ctx);
            if (ev.type === "removed" && !deps.types.preferred(ev.resource.group, ev.resource.resource)) watched.delete(`${ev.resource.group}/${ev.resource.resource}`);
          }),
        );
      },
    }));
  };

  return {
    authorize: (a) => authorizer.authorize(a),
    rulesFor: (user) => authorizer.rulesFor(user),
    graph,
    startPopulator,
    get synced() {
      return Promise.all(feeding.map((i) => i.synced)).then(() => undefined);
    },
  };
}
