// One informer per stored resource type (group-resource: all its versions share one cache) and
// kind of view, shared by every in-process reader: namespace states, the namespace controller,
// the garbage collector. Informers start on first use; one whose type stops being served stops.
//
// Two views: full objects (forType), or metadata only (metadataFor, upstream's metadata
// informers: object-metadata.ts) — what the controllers use, so that following every type costs
// metadata, not whole objects. Both read the type's one watch cache: a metadata view over a full
// cache simply sees full objects; asking for full objects replaces a metadata-only cache, and
// metadata views relist from the new one.
import type { CacheSpec } from "../storage/cacher/cacher.js";
import { cacheSpec, type ObjectCacher } from "./list.js";
import { Informer } from "./informer.js";
import type { KObject } from "../apimachinery/object.js";
import { metadataCacheSpec } from "./object-metadata.js";
import type { ResourceType } from "./resource-type.js";
import type { TypeRegistry } from "./type-registry.js";

export type ObjectInformer = Informer<KObject>;

/** An informer that cannot list its type, and why (its last attempt's error). */
export interface InformerFailure {
  resource: string;
  error: unknown;
}
type View = "full" | "metadata";
const views: View[] = ["full", "metadata"];

export class InformerFactory {
  private readonly informers = new Map<string, ObjectInformer>(); // view + key prefix → informer
  /** view + key prefix → the group-resource it informs on ("secrets", "widgets.example.com"). */
  private readonly resourceNames = new Map<string, string>();
  private failureWaiters: (() => void)[] = [];
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(
    private readonly cacher: ObjectCacher,
    private readonly types: TypeRegistry,
    /** A handler threw; the change still reached the other handlers. */
    private readonly onHandlerError: (err: unknown) => void = () => undefined,
  ) {
    this.unsubscribe = types.subscribe((ev) => {
      if (ev.type !== "removed") return;
      const prefix = ev.resource.keyPrefix;
      if (this.isServed(prefix)) return; // another version of the group-resource remains
      for (const view of views) {
        this.informers.get(view + prefix)?.stop();
        this.informers.delete(view + prefix);
        this.resourceNames.delete(view + prefix);
      }
    });
  }

  /** The shared informer of `t`'s group-resource, with full objects; started on first use. */
  forType(t: ResourceType): ObjectInformer {
    return this.informer("full", t, cacheSpec(t));
  }

  /** The shared informer of `t`'s group-resource, with apiVersion, kind and metadata (at least). */
  metadataFor(t: ResourceType): ObjectInformer {
    return this.informer("metadata", t, metadataCacheSpec(t));
  }

  /** A running informer of a key prefix, if one was started. */
  peek(prefix: string, view: View = "metadata"): ObjectInformer | undefined {
    const i = this.informers.get(view + prefix);
    return i && !i.isStopped ? i : undefined;
  }

  private informer(view: View, t: ResourceType, spec: CacheSpec<KObject>): ObjectInformer {
    if (t.virtual) throw new Error(`${t.resource}: nothing is stored, nothing to inform about`);
    if (this.stopped) throw new Error("informers stopped");
    const existing = this.informers.get(view + t.keyPrefix);
    if (existing && !existing.isStopped) return existing;
    const informer = new Informer<KObject>({
      prefix: t.keyPrefix,
      namespaced: t.namespaced,
      cache: () => this.cacher.get(spec),
      exists: () => !this.stopped && this.isServed(t.keyPrefix),
      onHandlerError: this.onHandlerError,
      onListError: () => {
        for (const w of this.failureWaiters.splice(0)) w();
      },
    });
    this.informers.set(view + t.keyPrefix, informer);
    this.resourceNames.set(view + t.keyPrefix, t.group ? `${t.resource}.${t.group}` : t.resource);
    return informer.start();
  }

  /**
   * Every running informer is quiet (Informer.quiet: listed, attached to its cache, each change it
   * took handed to all of its handlers).
   */
  quiet(): boolean {
    for (const i of this.informers.values()) if (!i.quiet()) return false;
    return true;
  }

  /** Resolves once quiet() holds; an informer started meanwhile is waited for too. */
  async whenQuiet(): Promise<void> {
    while (!this.quiet()) await Promise.all([...this.informers.values()].map((i) => i.whenQuiet()));
  }

  /** The informers whose last attempt to list their type failed (each tries again later). */
  failing(): InformerFailure[] {
    const out: InformerFailure[] = [];
    for (const [key, i] of this.informers) {
      const f = i.failure();
      if (f) out.push({ resource: this.resourceNames.get(key) ?? key, error: f.error });
    }
    return out;
  }

  /** The informers whose last attempt to list failed try again now (Informer.retryNow). */
  retryFailing(): void {
    for (const i of this.informers.values()) i.retryNow();
  }

  /** Resolves at the next failed attempt of any informer to list (at once while one is failing). */
  whenFailing(): Promise<void> {
    if (this.failing().length > 0) return Promise.resolve();
    return new Promise((r) => this.failureWaiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    for (const i of this.informers.values()) i.stop();
    this.informers.clear();
    for (const w of this.failureWaiters.splice(0)) w();
  }

  private isServed(prefix: string): boolean {
    return this.types.all().some((t) => !t.virtual && t.keyPrefix === prefix);
  }
}
