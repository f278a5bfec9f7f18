// A handler on the (metadata) informer of every stored type, following the type registry: a type
// added later gets one, a removed type loses it (upstream: the GC's monitors, resynced from
// discovery). Handlers are added through the controller's follow, so the runtime counts those
// informers for idle() and removes the handlers at stop.
//
// The initial informers start one after another, each once the previous has synced, so that
// loading the caches of a large store is spread over many turns of the event loop rather than
// competing all at once with requests.
import type { InformerHandler } from "../registry/informer.js";
import type { InformerFactory, ObjectInformer } from "../registry/informer-factory.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";

/**
 * How long the start waits for one type's informer before going on without it: a type whose cache
 * cannot load (an undecodable object) must not hold up every other type; its informer keeps
 * retrying and reports its objects once it syncs.
 */
const syncWaitMs = 5000;

/** How many types' informers load their caches at once at start. */
const initialSyncConcurrency = 8;

function settled(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export interface EveryTypeHandlers {
  /** The handler for one type's objects. */
  handlerFor(t: ResourceType): InformerHandler<KObject>;
  /** A type stopped being served (its handler is already removed). */
  removed?(prefix: string): void;
}

export interface EveryType {
  /** Resolves once the informers of the types stored at start have synced (or stopped, or timed out). */
  synced: Promise<void>;
  /** The informer of a stored type's key prefix, when watched. */
  informer(prefix: string): ObjectInformer | undefined;
  stop(): void;
}

/** Adds a handler to an informer; returns its remover (a controller's ctx.follow). */
export type Follow = (informer: ObjectInformer, handler: InformerHandler<KObject>) => () => void;

export function informAboutEveryType(types: TypeRegistry, informers: InformerFactory, h: EveryTypeHandlers, follow: Follow): EveryType {
  const watched = new Map<string, { informer: ObjectInformer; remove: () => void }>();
  let stopped = false;

  function watch(t: ResourceType): ObjectInformer | undefined {
    // (a type of the start-up snapshot may have been removed while earlier ones synced)
    if (stopped || watched.has(t.keyPrefix) || !types.get(t.group, t.version, t.resource)) return undefined;
    const informer = informers.metadataFor(t);
    watched.set(t.keyPrefix, { informer, remove: follow(informer, h.handlerFor(t)) });
    return informer;
  }

  function unwatchRemoved(): void {
    const served = new Set(types.stored().map((t) => t.keyPrefix));
    for (const [prefix, w] of watched) {
      if (served.has(prefix)) continue;
      w.remove();
      watched.delete(prefix);
      h.removed?.(prefix);
    }
  }

  const unsubscribe = types.subscribe((ev) => {
    if (stopped) return;
    if (ev.type === "removed") unwatchRemoved();
    else for (const t of types.stored()) if (t.keyPrefix === ev.resource.keyPrefix) watch(t);
  });

  // A few at a time rather than strictly one by one: each informer's first sync costs a round trip
  // or more to the backend (on etcd before 3.4.31, a new watch's first progress answer waits
  // ~250 ms), and sixty types in a row would hold the start for seconds.
  const pending = [...types.stored()];
  const startNext = async (): Promise<void> => {
    for (let t = pending.shift(); t; t = pending.shift()) {
      const informer = watch(t);
      if (informer) await settled(informer.synced, syncWaitMs);
    }
  };
  const synced = Promise.all(Array.from({ length: initialSyncConcurrency }, startNext))
    .then(() => undefined)
    .catch(() => undefined); // the informers were stopped under us: the server is stopping

  return {
    synced,
    informer: (prefix) => watched.get(prefix)?.informer,
    stop() {
      stopped = true;
      unsubscribe();
      for (const w of watched.values()) w.remove();
      watched.clear();
    },
  };
}
