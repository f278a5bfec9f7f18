// One informer per stored resource type (group-resource: all its versions share one cache),
// shared by every in-process reader: namespace states, the namespace controller, the garbage
// collector. Informers start on first use; one whose type stops being served is stopped.
import { cacheSpec, type ObjectCacher } from "./list.js";
import { Informer } from "./informer.js";
import type { KObject } from "./object.js";
import type { ResourceType } from "./resource-type.js";
import type { TypeRegistry } from "./type-registry.js";

export type ObjectInformer = Informer<KObject>;

export class InformerFactory {
  private readonly informers = new Map<string, ObjectInformer>(); // key prefix → informer
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
      this.informers.get(prefix)?.stop();
      this.informers.delete(prefix);
    });
  }

  /** The shared informer of `t`'s group-resource, started on first use. */
  forType(t: ResourceType): ObjectInformer {
    if (t.virtual) throw new Error(`${t.resource}: nothing is stored, nothing to inform about`);
    if (this.stopped) throw new Error("informers stopped");
    const existing = this.informers.get(t.keyPrefix);
    if (existing && !existing.isStopped) return existing;
    const spec = cacheSpec(t);
    const informer = new Informer<KObject>({
      prefix: t.keyPrefix,
      namespaced: t.namespaced,
      cache: () => this.cacher.get(spec),
      exists: () => !this.stopped && this.isServed(t.keyPrefix),
      onHandlerError: this.onHandlerError,
    });
    this.informers.set(t.keyPrefix, informer);
    return informer.start();
  }

  /** The running informer of a key prefix, if one was started. */
  peek(prefix: string): ObjectInformer | undefined {
    const i = this.informers.get(prefix);
    return i && !i.isStopped ? i : undefined;
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    for (const i of this.informers.values()) i.stop();
    this.informers.clear();
  }

  private isServed(prefix: string): boolean {
    return this.types.all().some((t) => !t.virtual && t.keyPrefix === prefix);
  }
}
