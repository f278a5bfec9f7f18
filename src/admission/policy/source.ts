// Policies and their bindings as the plugins see them (upstream: generic.PolicySource): kept
// from the shared informers of the two types, so a write takes effect as soon as the informer
// hears it (well within a second) with no restart. A policy is compiled once per generation,
// when a request first needs it; bindings are grouped by the policy they name.
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionParts } from "../plugins.js";
import type { PolicyBinding, PolicyMeta } from "./types.js";

export interface Hook<P, C> {
  policy: P;
  compiled: C;
  bindings: PolicyBinding[];
}

interface Entry<P, C> {
  policy: P;
  key: string;
  compiled?: C;
}

export interface PolicySourceOptions<P, C> {
  parts: () => AdmissionParts;
  group: string;
  /** Served versions in preference order (the first one served is read). */
  versions: readonly string[];
  policyResource: string;
  bindingResource: string;
  compile(policy: P): C;
}

/** How long a request waits for the first list of policies and bindings (upstream's timeToWaitForReady). */
const readyWaitMs = 10_000;

const compileKey = (m: PolicyMeta) => `${m.uid ?? ""}/${m.generation ?? ""}/${m.generation === undefined ? m.resourceVersion : ""}`;

export class PolicySource<P extends { metadata: PolicyMeta }, C> {
  private readonly policies = new Map<string, Entry<P, C>>();
  private readonly bindings = new Map<string, PolicyBinding>();
  private byPolicy?: Map<string, PolicyBinding[]>;
  /** The hooks as last built; dropped on every change. */
  private built?: Hook<P, C>[];
  private stops: (() => void)[] = [];
  private started = false;
  private synced?: Promise<unknown>;
  private ready = false;

  constructor(private readonly o: PolicySourceOptions<P, C>) {}

  private typeOf(resource: string): ResourceType | undefined {
    const { types } = this.o.parts();
    for (const v of this.o.versions) {
      const t = types.get(this.o.group, v, resource);
      if (t) return t;
    }
    return undefined;
  }

  /** Starts following the two types (on the first request: the store exists by then). */
  private start(): Promise<unknown> | undefined {
    if (this.started) return this.synced;
    const pt = this.typeOf(this.o.policyResource);
    const bt = this.typeOf(this.o.bindingResource);
    if (!pt || !bt) return undefined; // not served (alpha/beta off): nothing to follow yet
    this.started = true;
    const { informers } = this.o.parts();
    const pi = informers.forType(pt);
    const bi = informers.forType(bt);
    this.stops.push(
      pi.addHandler({
        added: (o) => this.putPolicy(o),
        updated: (_, o) => this.putPolicy(o),
        deleted: (o) => {
          this.policies.delete(o.metadata.name ?? "");
          this.built = undefined;
        },
      }),
      bi.addHandler({
        added: (o) => this.putBinding(o),
        updated: (_, o) => this.putBinding(o),
        deleted: (o) => {
          this.bindings.delete(o.metadata.name ?? "");
          this.byPolicy = undefined;
          this.built = undefined;
        },
      }),
    );
    this.synced = Promise.all([pi.synced, bi.synced]);
    return this.synced;
  }

  private putPolicy(o: KObject): void {
    const p = o as unknown as P;
    const key = compileKey(p.metadata);
    const known = this.policies.get(p.metadata.name);
    // Status updates (type checking) keep the generation: keep the compiled form.
    if (known && known.key === key) known.policy = p;
    else this.policies.set(p.metadata.name, { policy: p, key });
    this.built = undefined;
  }

  private putBinding(o: KObject): void {
    this.bindings.set(o.metadata.name ?? "", o as unknown as PolicyBinding);
    this.byPolicy = undefined;
    this.built = undefined;
  }

  /**
   * Every policy with at least one binding, compiled, with its bindings (sorted by name); undefined
   * when the informers have not listed within 10 s (upstream: WaitForReady, then "not yet ready
   * to handle request").
   */
  async hooks(): Promise<Hook<P, C>[] | undefined> {
    const synced = this.start();
    if (synced && !this.ready) {
      let timer: NodeJS.Timeout | undefined;
      const ready = await Promise.race([synced.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), readyWaitMs)))]);
      clearTimeout(timer);
      if (!ready) return undefined;
      this.ready = true;
    }
    if (this.built) return this.built;
    if (!this.byPolicy) {
      const m = new Map<string, PolicyBinding[]>();
      for (const b of this.bindings.values()) {
        const name = b.spec?.policyName;
        if (!name) continue;
        let list = m.get(name);
        if (!list) m.set(name, (list = []));
        list.push(b);
      }
      for (const list of m.values()) list.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      this.byPolicy = m;
    }
    const out: Hook<P, C>[] = [];
    const names = [...this.byPolicy.keys()].sort();
    for (const name of names) {
      const e = this.policies.get(name);
      if (!e) continue;
      e.compiled ??= this.o.compile(e.policy);
      out.push({ policy: e.policy, compiled: e.compiled, bindings: this.byPolicy.get(name)! });
    }
    this.built = out;
    return out;
  }

  /** Every known policy (the type-checking controller). */
  allPolicies(): P[] {
    return [...this.policies.values()].map((e) => e.policy);
  }

  stop(): void {
    for (const s of this.stops) s();
    this.stops = [];
  }
}
