// The Node authorizer's graph (upstream: plugin/pkg/auth/authorizer/node/graph.go, 1.34): which
// API objects a node may read because something bound to it refers to them. Every edge points
// towards a node vertex:
//
//   pod -> node                      volumeattachment -> node        resourceslice -> node
//   secret | configmap | pvc | serviceaccount | resourceclaim -> pod
//   pv -> pvc                        secret -> pv
//
// Edges that start from the pod side carry their final destination (the node): a traversal never
// follows an edge that leads to another node, and a vertex with many such edges keeps an index of
// destinations so that the common question ("is this secret used by a pod on node x?") is one
// lookup. Vertices are removed when their last edge goes (orphans), never kept for nothing.
//
// Single-threaded (the event loop): no locks; informer handlers and authorize() interleave only
// between whole operations.

export type VertexType =
  | "configmap"
  | "resourceslice"
  | "node"
  | "pod"
  | "pvc"
  | "pv"
  | "resourceclaim"
  | "secret"
  | "volumeattachment"
  | "serviceAccount"
  | "podcertificaterequest";

/** Types whose every outgoing edge carries a destination, so that their index is authoritative. */
const authoritativeIndex: ReadonlySet<VertexType> = new Set<VertexType>([
  "configmap",
  "resourceslice",
  "pod",
  "pvc",
  "resourceclaim",
  "volumeattachment",
  "serviceAccount",
  "podcertificaterequest",
]);

export interface Vertex {
  readonly id: number;
  readonly type: VertexType;
  readonly namespace: string;
  readonly name: string;
  /** to-vertex id → destination node id (undefined: a plain edge). */
  readonly out: Map<number, number | undefined>;
  /** from-vertex ids */
  readonly in: Set<number>;
}

/** Below this many outgoing edges, no destination index is kept (upstream's experimentally found 200). */
export const defaultDestinationIndexThreshold = 200;

export class Graph {
  private nextId = 1;
  private readonly byId = new Map<number, Vertex>();
  /** type → namespace → name → vertex */
  private readonly vertices = new Map<VertexType, Map<string, Map<string, Vertex>>>();
  /** vertex id → (destination node id → number of outgoing edges with that destination) */
  private readonly destinationIndex = new Map<number, Map<number, number>>();

  constructor(private readonly indexThreshold = defaultDestinationIndexThreshold) {}

  // ---- reading ----------------------------------------------------------------------------

  vertex(type: VertexType, namespace: string, name: string): Vertex | undefined {
    return this.vertices.get(type)?.get(namespace)?.get(name);
  }

  /** Number of vertices (tests, metrics). */
  get size(): number {
    return this.byId.size;
  }

  /** Whether a destination index is kept for a vertex (tests). */
  hasDestinationIndex(v: Vertex): boolean {
    return this.destinationIndex.has(v.id);
  }

  /**
   * Is there a path from the object to the node? Answers `{ok: true}` or why not (upstream logs
   * these texts; the client sees the generic "no relationship found" reason).
   */
  pathToNode(nodeName: string, type: VertexType, namespace: string, name: string): { ok: true } | { ok: false; why: string } {
    const node = this.vertex("node", "", nodeName);
    if (!node) return { ok: false, why: `unknown node '${nodeName}' cannot get ${type} ${namespace}/${name}` };
    const start = this.vertex(type, namespace, name);
    if (!start) return { ok: false, why: `node '${nodeName}' cannot get unknown ${type} ${namespace}/${name}` };
    const index = this.destinationIndex.get(start.id);
    if (index?.has(node.id)) return { ok: true };
    if (index && authoritativeIndex.has(start.type)) {
      // The index lists every node reachable from here.
      return { ok: false, why: this.noPath(nodeName, type, namespace, name) };
    }
    // Depth-first, never following an edge whose destination is another node.
    const seen = new Set<number>([start.id]);
    const stack: Vertex[] = [start];
    while (stack.length > 0) {
      const v = stack.pop()!;
      for (const [to, dest] of v.out) {
        if (dest !== undefined) {
          if (dest !== node.id) continue;
          return { ok: true };
        }
        if (to === node.id) return { ok: true };
        if (seen.has(to)) continue;
        seen.add(to);
        const next = this.byId.get(to);
        if (next) stack.push(next);
      }
    }
    return { ok: false, why: this.noPath(nodeName, type, namespace, name) };
  }

  private noPath(nodeName: string, type: VertexType, namespace: string, name: string): string {
    return `node '${nodeName}' cannot get ${type} ${namespace}/${name}, no relationship to this object was found in the node authorizer graph`;
  }

  // ---- object-level operations (what the informers call) ------------------------------------

  /** A pod bound to a node (spec.nodeName set): its edges are rebuilt from `refs`. */
  setPod(namespace: string, name: string, nodeName: string, refs: PodReferences | undefined): void {
    this.deleteVertex("pod", namespace, name);
    const pod = this.getOrCreate("pod", namespace, name);
    const node = this.getOrCreate("node", "", nodeName);
    this.addEdge(pod, node, node);
    // A mirror pod (refs undefined) grants nothing beyond itself: a node could create one.
    if (!refs) return;
    if (refs.serviceAccount) this.addEdge(this.getOrCreate("serviceAccount", namespace, refs.serviceAccount), pod, node);
    for (const s of refs.secrets) this.addEdge(this.getOrCreate("secret", namespace, s), pod, node);
    for (const c of refs.configMaps) this.addEdge(this.getOrCreate("configmap", namespace, c), pod, node);
    for (const c of refs.pvcs) this.addEdge(this.getOrCreate("pvc", namespace, c), pod, node);
    for (const c of refs.resourceClaims) this.addEdge(this.getOrCreate("resourceclaim", namespace, c), pod, node);
  }

  deletePod(namespace: string, name: string): void {
    this.deleteVertex("pod", namespace, name);
  }

  /** A PV: bound (claimRef) → pv -> pvc, and each kubelet-visible secret -> pv. */
  setPV(name: string, claim: { namespace: string; name: string } | undefined, secrets: readonly { namespace: string; name: string }[]): void {
    this.deleteVertex("pv", "", name);
    if (!claim) return;
    const pv = this.getOrCreate("pv", "", name);
    // The pvc's pod (and node) may not exist yet: a plain edge.
    this.addEdge(pv, this.getOrCreate("pvc", claim.namespace, claim.name), undefined);
    for (const s of secrets) this.addEdge(this.getOrCreate("secret", s.namespace, s.name), pv, undefined);
  }

  deletePV(name: string): void {
    this.deleteVertex("pv", "", name);
  }

  /** volumeattachment -> node (and resourceslice -> node, podcertificaterequest -> node). */
  setNodeOwned(type: "volumeattachment" | "resourceslice" | "podcertificaterequest", namespace: string, name: string, nodeName: string): void {
    this.deleteVertex(type, namespace, name);
    if (!nodeName) return;
    const v = this.getOrCreate(type, namespace, name);
    const node = this.getOrCreate("node", "", nodeName);
    this.addEdge(v, node, node);
  }

  deleteNodeOwned(type: "volumeattachment" | "resourceslice" | "podcertificaterequest", namespace: string, name: string): void {
    this.deleteVertex(type, namespace, name);
  }

  // ---- vertex and edge primitives ---------------------------------------------------------

  private getOrCreate(type: VertexType, namespace: string, name: string): Vertex {
    const existing = this.vertex(type, namespace, name);
    if (existing) return existing;
    const v: Vertex = { id: this.nextId++, type, namespace, name, out: new Map(), in: new Set() };
    this.byId.set(v.id, v);
    let byNs = this.vertices.get(type);
    if (!byNs) this.vertices.set(type, (byNs = new Map()));
    let byName = byNs.get(namespace);
    if (!byName) byNs.set(namespace, (byName = new Map()));
    byName.set(name, v);
    return v;
  }

  private degree(v: Vertex): number {
    return v.out.size + v.in.size;
  }

  private addEdge(from: Vertex, to: Vertex, destination: Vertex | undefined): void {
    if (destination === undefined && authoritativeIndex.has(from.type)) {
      throw new Error(`vertex of type "${from.type}" must have destination edges only`);
    }
    const had = from.out.has(to.id);
    const previous = from.out.get(to.id);
    from.out.set(to.id, destination?.id);
    to.in.add(from.id);
    const index = this.destinationIndex.get(from.id);
    if (!index) {
      this.recomputeIndex(from);
      return;
    }
    if (had && previous !== undefined) decrement(index, previous);
    if (destination) index.set(destination.id, (index.get(destination.id) ?? 0) + 1);
  }

  private removeEdge(from: Vertex, to: Vertex): void {
    if (!from.out.has(to.id)) return;
    const dest = from.out.get(to.id);
    from.out.delete(to.id);
    to.in.delete(from.id);
    if (this.degree(from) < this.indexThreshold) {
      this.destinationIndex.delete(from.id);
      return;
    }
    const index = this.destinationIndex.get(from.id);
    if (index && dest !== undefined) decrement(index, dest);
  }

  private recomputeIndex(v: Vertex): void {
    if (this.degree(v) < this.indexThreshold) {
      this.destinationIndex.delete(v.id);
      return;
    }
    const index = new Map<number, number>();
    for (const dest of v.out.values()) if (dest !== undefined) index.set(dest, (index.get(dest) ?? 0) + 1);
    this.destinationIndex.set(v.id, index);
  }

  /** Removes a vertex, and the neighbours for which it was the only edge. */
  private deleteVertex(type: VertexType, namespace: string, name: string): void {
    const v = this.vertex(type, namespace, name);
    if (!v) return;
    const orphans: Vertex[] = [];
    for (const id of v.out.keys()) {
      const n = this.byId.get(id)!;
      if (this.degree(n) === 1) orphans.push(n);
    }
    for (const id of v.in) {
      const n = this.byId.get(id)!;
      if (this.degree(n) === 1) orphans.push(n);
    }
    this.removeVertex(v);
    for (const n of orphans) this.removeVertex(n);
  }

  /** Drops a vertex with its edges; neighbours that had an edge to it update their index. */
  private removeVertex(v: Vertex): void {
    if (!this.byId.has(v.id)) return;
    for (const id of [...v.in]) {
      const from = this.byId.get(id);
      if (from) this.removeEdge(from, v);
    }
    for (const id of [...v.out.keys()]) {
      const to = this.byId.get(id);
      if (to) to.in.delete(v.id);
    }
    v.out.clear();
    this.byId.delete(v.id);
    this.destinationIndex.delete(v.id);
    const byNs = this.vertices.get(v.type);
    const byName = byNs?.get(v.namespace);
    byName?.delete(v.name);
    if (byName && byName.size === 0) byNs!.delete(v.namespace);
  }
}

function decrement(index: Map<number, number>, key: number): void {
  const n = (index.get(key) ?? 0) - 1;
  if (n <= 0) index.delete(key);
  else index.set(key, n);
}

/** What a pod refers to (namespace: the pod's). */
export interface PodReferences {
  serviceAccount: string;
  secrets: readonly string[];
  configMaps: readonly string[];
  pvcs: readonly string[];
  resourceClaims: readonly string[];
}
