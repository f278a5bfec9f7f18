// Which group versions are served by an extension API server, and how to reach each (upstream:
// the aggregator's proxyHandlingInfo, updated by its APIService registration controller). Kept on
// every replica from the APIService informer, since serving a request depends on it; local
// APIServices are not in it (their group versions are served here).
import type { KObject } from "../apimachinery/object.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { apiServiceType, isAvailable, specOf, type APIServiceSpec } from "./apiservices.js";

export interface RemoteGroupVersion extends APIServiceSpec {
  /** The APIService's name (`<version>.<group>`). */
  name: string;
  service: NonNullable<APIServiceSpec["service"]>;
  /** Its Available condition is True: otherwise requests get upstream's plain-text 503. */
  available: boolean;
}

export class ProxyTable {
  private readonly byGroupVersion = new Map<string, RemoteGroupVersion>();
  private readonly listeners = new Set<() => void>();

  /** The extension server of group/version, if one serves it. */
  route(group: string, version: string): RemoteGroupVersion | undefined {
    return this.byGroupVersion.get(`${group}/${version}`);
  }

  all(): RemoteGroupVersion[] {
    return [...this.byGroupVersion.values()];
  }

  /** Calls `fn` after every change of the table (discovery follows it); returns the unsubscribe. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Follows the APIServices (every replica), until stopped. */
  follow(types: TypeRegistry, informers: InformerFactory): Controller | undefined {
    const t = apiServiceType(types);
    if (!t) return undefined;
    const informer = informers.forType(t);
    const set = (o: KObject) => {
      const spec = specOf(o);
      const key = `${spec.group}/${spec.version}`;
      const before = this.byGroupVersion.get(key);
      if (before && before.name !== o.metadata.name) return; // another object's (an invalid twin); upstream keys by name too
      if (spec.service) this.byGroupVersion.set(key, { ...spec, service: spec.service, name: o.metadata.name!, available: isAvailable(o) });
      else this.byGroupVersion.delete(key);
      this.changed();
    };
    const remove = (o: KObject) => {
      const spec = specOf(o);
      const key = `${spec.group}/${spec.version}`;
      if (this.byGroupVersion.get(key)?.name !== o.metadata.name) return;
      this.byGroupVersion.delete(key);
      this.changed();
    };
    return runController({
      name: "apiservice-registration",
      setup: (ctx) => void ctx.follow(informer, { added: set, updated: (_old, o) => set(o), deleted: remove }),
    });
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
