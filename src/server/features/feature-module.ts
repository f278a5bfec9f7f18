// The seam a capability plugs into start-up through (upstream's model: kube-apiserver's control
// plane and apiextensions each contribute storages, post-start hooks and controllers to one
// assembly). A feature module declares what it contributes; start-up assembles the modules of
// one server in list order, so adding a capability is adding a module to the list, not editing
// the wiring.
//
// A module may declare the flags it adds to `kapi serve` (parsed and listed by the CLI with the
// core's generic ones, server/core-flags.ts) and the strategies of the built-in types it owns
// (read when the type registry is built, first of all). Its life then follows start-up's phases,
// each called for every module in list order:
//   checkFlags        before anything is opened (no file, certificate, storage or port), so a
//                     refused start leaves nothing behind
//   setup             once the TLS material exists, before storage opens: reads its files and
//                     returns its contribution (a bad file still refuses the start)
//   authorizationModes, authorizer
//                     the modes every module provides, then the one chain built from them and
//                     the flags (one module builds it)
//   admissionPlugins  when the admission chain is built
//   namespaces, bootstrap
//                     the namespaces it needs, created first; then its objects, created when
//                     missing (all features' at once)
//   replicaControllers  started once the bootstrap objects exist, on every replica: what serving
//                     a request depends on (CRD serving, the Node authorizer's graph)
//   controllers       the controller manager's: started once the bootstrap objects exist, or,
//                     under leader election, whenever this replica becomes the leader (stopped
//                     when it stops leading)
//   authenticators    in the union's slots (upstream's order, whatever the module order)
//   flowControl       when the filter chain is built: the flow control stage (at most one module
//                     gives it; without one, max-in-flight)
//   storages, nonResource, delegatedPaths
//                     when the router is built, with the authorizer chain and the authenticator union
//   controllersOnceServing  the controller manager's too, started once the server listens (and leads)
//   stop              when the server stops (or fails to start listening)
import type { Authenticator, AuthnRequest } from "../../authn/authenticator.js";
import type { AuthnOutcome } from "../../authn/union.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { ModeFactories } from "../../authz/modes.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { FeatureGates } from "../../apimachinery/feature-gates.js";
import type { Controller } from "../../controller-runtime/controller.js";
import type { HealthCheck } from "../../observability/health.js";
import type { Codec } from "../../encoding/codec.js";
import type { ServerParts } from "../../handlers/context.js";
import { registrationKey, type StorageRegistration } from "../../handlers/rest/storage-table.js";
import type { NonResourceHandler } from "../../http/context.js";
import type { ServerMetrics } from "../../observability/metrics.js";
import type { Auditing } from "../../observability/audit/auditing.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { NamespaceStates } from "../../registry/namespace-states.js";
import type { Stores } from "../../registry/stores.js";
import type { Strategy } from "../../registry/strategy.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Storage } from "../../storage/interface.js";
import type { StrategyContributions } from "../../types/strategies.js";
import type { FlagSpec } from "../flag-spec.js";
import type { Filter } from "../filters/filter.js";
import type { ServerOptions } from "../options.js";
import type { TlsSetup } from "../tls-setup.js";

/** The options a feature reads: the flags, plus the library-only ones an embedding program passes. */
export type FeatureOptions = ServerOptions & { readonly admissionPlugins?: readonly AdmissionPlugin[] };

/** The authentication union's slots, in upstream's order: a module's authenticators go in its slot. */
export const authenticatorSlots = ["client", "token-file", "service-account", "bootstrap-token", "jwt", "token-webhook"] as const;
export type AuthenticatorSlot = (typeof authenticatorSlots)[number];

/** The server's core, made before any hook that takes it runs. */
export interface CoreParts {
  /** The storage itself (the namespace controller watches it for the content of a namespace it could not empty yet). */
  storage: Storage;
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** Creates a bootstrap object unless it exists (its type may be unserved: then nothing). */
  ensure(t: ResourceType | undefined, ns: string, obj: KObject, fieldManager?: string): Promise<void>;
  /** ensure() of several objects of one type, the missing ones created in one transaction (by `fieldManager`, when given). */
  ensureAll(t: ResourceType | undefined, ns: string, objs: readonly KObject[], fieldManager?: string): Promise<void>;
  log(msg: string): void;
}

export interface FeatureSetupContext {
  readonly options: FeatureOptions;
  readonly gates: FeatureGates;
  readonly tls: TlsSetup;
  /** Where generated keys and certificates are kept (absent: in memory only). */
  readonly certDir: string | undefined;
  /** The API audiences the modules set up earlier declared (service accounts own --api-audiences). */
  readonly apiAudiences: readonly string[];
  /** The port the server listens on: --secure-port, or with --secure-port=0 the one bound (known once it listens). */
  servingPort(): number;
  /**
   * The core, for what a module builds now but uses later (an authenticator's first request):
   * setup runs before storage opens, so calling this during setup itself throws.
   */
  core(): CoreParts;
  log(msg: string): void;
}

export interface AdmissionAssemblyContext extends CoreParts {
  namespaces: NamespaceStates;
  gates: FeatureGates;
  /** The server's whole authorizer chain (read on use: plugins may be asked before it changes). */
  authorizer(): Authorizer;
  /** The server's metrics (webhook plugins record their calls). */
  metrics?: ServerMetrics;
}

/** The server's authorizer chain as one module builds it. */
export interface AuthorizerChain {
  /** Always the current chain (a reloaded configuration replaces what it asks). */
  readonly authorizer: Authorizer;
}

/** What the router's storages and non-resource handlers are built with. */
export interface ServingContext {
  readonly parts: ServerParts;
  /** The server's authorizer chain (the access reviews). */
  readonly authorizer: Authorizer;
  /** The server's authenticator union (TokenReview). */
  authenticate(req: AuthnRequest): AuthnOutcome | Promise<AuthnOutcome>;
  readonly metrics: ServerMetrics;
  readonly lifecycle: ServerLifecycle;
}

/** Where the server is in its life (health checks read it). */
export interface ServerLifecycle {
  readonly startedAt: number;
  /** True once every module's namespaces and bootstrap objects exist. */
  bootstrapped(): boolean;
  /** True once shutdown began. */
  stopping(): boolean;
  /** Undefined when the storage answers, else what went wrong. */
  checkStorage(): Promise<string | undefined>;
  /** The readiness-only storage check of a remote store (etcd, within --etcd-readycheck-timeout). */
  checkStorageReadiness?(): Promise<string | undefined>;
  /** The features' boot-sequence checks, in module order. */
  readonly bootSequence: readonly HealthCheck[];
  /** Both checks of each etcd cluster of --etcd-servers-overrides, in the order first named. */
  readonly storageOverrides: readonly { check(): Promise<string | undefined>; checkReadiness(): Promise<string | undefined> }[];
}

/** What one feature adds to the server; every member is optional. */
export interface FeatureContribution {
  /** The audiences tokens are checked against (at most one module says). */
  readonly apiAudiences?: readonly string[];
  /** The CA bundle the TLS handshake asks client certificates from (at most one module says). */
  readonly tlsClientCA?: string;
  /** The anonymous fallback after every authenticator, when anonymous requests are allowed (at most one module says). */
  readonly anonymous?: Authenticator;
  /** What the request path audits with (at most one module says; none: nothing is audited). */
  readonly audit?: Auditing;
  /** Encodings served besides JSON and YAML, in the order they are offered. */
  readonly codecs?: readonly Codec[];
  authorizationModes?(core: CoreParts): ModeFactories;
  /** The authorizer chain, from every module's modes (at most one module builds it). */
  authorizer?(core: CoreParts, modes: ModeFactories): AuthorizerChain;
  /** Admission plugins, in chain order; the modules' lists are chained in module order. */
  admissionPlugins?(ctx: AdmissionAssemblyContext): AdmissionPlugin[];
  /** Namespaces it needs, created before any module's bootstrap objects. */
  readonly namespaces?: readonly string[];
  bootstrap?(core: CoreParts): Promise<unknown>;
  /** Controllers every replica runs, never elected: what serving requests depends on. */
  replicaControllers?(core: CoreParts): Controller[];
  /** The controller manager's controllers: on one replica at a time when leader election is on. */
  controllers?(core: CoreParts): Controller[];
  authenticators?(core: CoreParts): Partial<Record<AuthenticatorSlot, Authenticator[]>>;
  controllersOnceServing?(core: CoreParts): Controller[];
  /** The flow control stage of the filter chain, in place of max-in-flight (at most one module gives it). */
  flowControl?(core: CoreParts): Filter;
  nonResource?(ctx: ServingContext): NonResourceHandler[];
  /**
   * Health checks of start-up's later parts (upstream's AddBootSequenceHealthChecks and post-start
   * hooks): in /healthz and /readyz, and in /livez once --livez-grace-period is over.
   */
  bootSequenceChecks?(core: CoreParts): HealthCheck[];
  /**
   * Handlers offered every request before routing, resource requests too: a path another server
   * serves (the aggregator's extension servers) is answered there, whatever this one serves.
   */
  delegatedPaths?(ctx: ServingContext): NonResourceHandler[];
  /** REST storages of resources and subresources, each for one group/resource or for every type declaring the subresource. */
  storages?(ctx: ServingContext): StorageRegistration[];
  registerMetrics?(metrics: ServerMetrics): void;
  stop?(): void;
}

export interface FeatureModule {
  readonly name: string;
  /** The flags of `kapi serve` this capability adds (kube-apiserver's names); a name belongs to one declaration. */
  readonly flags?: readonly FlagSpec[];
  /**
   * The strategies of the built-in types this feature owns ("resource.group" → strategy), in place
   * of the default one. Declared, not set up: the type registry is built before any phase runs.
   */
  readonly strategies?: StrategyContributions;
  checkFlags?(options: FeatureOptions, gates: FeatureGates): void;
  setup?(ctx: FeatureSetupContext): FeatureContribution;
}

/** The strategies the modules declare for the built-in types they own; two owners of one type are a wiring mistake. */
export function featureStrategiesOf(modules: readonly FeatureModule[]): StrategyContributions {
  const out: Record<string, Strategy> = {};
  for (const m of modules) {
    for (const [key, strategy] of Object.entries(m.strategies ?? {})) {
      if (out[key]) throw new Error(`feature ${m.name}: the strategy of ${key} is already contributed`);
      out[key] = strategy;
    }
  }
  return out;
}

/** The core's flags and every module's, in that order; a name declared twice is a wiring mistake. */
export function flagsOf(core: readonly FlagSpec[], modules: readonly FeatureModule[]): { section: string; flags: readonly FlagSpec[] }[] {
  const sections = [{ section: "generic", flags: core }, ...modules.filter((m) => m.flags?.length).map((m) => ({ section: m.name, flags: m.flags! }))];
  const seen = new Map<string, string>();
  for (const { section, flags } of sections) {
    for (const f of flags) {
      const other = seen.get(f.name);
      if (other) throw new Error(`flag --${f.name} is declared by both ${other} and ${section}`);
      seen.set(f.name, section);
    }
  }
  return sections;
}

/** Runs every module's flag checks, in module order: the first bad flag refuses the start. */
export function checkFeatureFlags(modules: readonly FeatureModule[], options: FeatureOptions, gates: FeatureGates): void {
  for (const m of modules) m.checkFlags?.(options, gates);
}

type SetupContext = Omit<FeatureSetupContext, "apiAudiences">;

/** Sets up every module in order and assembles their contributions into one server's features. */
export function setUpFeatures(modules: readonly FeatureModule[], ctx: SetupContext): AssembledFeatures {
  const contributions: { name: string; c: FeatureContribution }[] = [];
  let apiAudiences: readonly string[] = [];
  for (const m of modules) {
    const c = m.setup?.({ ...ctx, apiAudiences }) ?? {};
    if (c.apiAudiences) apiAudiences = c.apiAudiences;
    contributions.push({ name: m.name, c });
  }
  return new AssembledFeatures(contributions);
}

/** The one value several modules may not both give. */
function single<K extends "apiAudiences" | "tlsClientCA" | "anonymous" | "audit">(all: readonly { name: string; c: FeatureContribution }[], key: K): FeatureContribution[K] {
  const givers = all.filter((x) => x.c[key] !== undefined);
  if (givers.length > 1) throw new Error(`features ${givers.map((g) => g.name).join(" and ")} both contribute ${key}`);
  return givers[0]?.c[key];
}

/** The contributions of one server's features, handed out phase by phase. */
export class AssembledFeatures {
  readonly apiAudiences: readonly string[];
  readonly tlsClientCA: string | undefined;
  readonly anonymous: Authenticator | undefined;
  readonly audit: Auditing | undefined;
  /** Encodings besides JSON and YAML, in module order. */
  readonly codecs: readonly Codec[];
  /** Every replica's controllers. */
  private readonly running: Controller[] = [];
  /** The controller manager's, while this replica runs them. */
  private elected: Controller[] = [];

  constructor(private readonly all: readonly { name: string; c: FeatureContribution }[]) {
    this.apiAudiences = single(all, "apiAudiences") ?? [];
    this.tlsClientCA = single(all, "tlsClientCA");
    this.anonymous = single(all, "anonymous");
    this.audit = single(all, "audit");
    this.codecs = all.flatMap(({ c }) => c.codecs ?? []);
    const chains = all.filter((x) => x.c.authorizer);
    if (chains.length > 1) throw new Error(`features ${chains.map((g) => g.name).join(" and ")} both build the authorizer chain`);
  }

  /** The names of the features assembled, in order. */
  names(): string[] {
    return this.all.map((x) => x.name);
  }

  authorizationModes(core: CoreParts): ModeFactories {
    const modes: ModeFactories = {};
    for (const { name, c } of this.all) {
      for (const [mode, factory] of Object.entries(c.authorizationModes?.(core) ?? {}) as [keyof ModeFactories, ModeFactories[keyof ModeFactories]][]) {
        if (modes[mode]) throw new Error(`feature ${name}: authorization mode ${mode} is already provided`);
        modes[mode] = factory;
      }
    }
    return modes;
  }

  /** The one authorizer chain, built from every module's modes. */
  authorizer(core: CoreParts): AuthorizerChain {
    const builder = this.all.find(({ c }) => c.authorizer);
    if (!builder) throw new Error("no feature builds the authorizer chain");
    return builder.c.authorizer!(core, this.authorizationModes(core));
  }

  admissionPlugins(ctx: AdmissionAssemblyContext): AdmissionPlugin[] {
    return this.all.flatMap(({ c }) => c.admissionPlugins?.(ctx) ?? []);
  }

  /**
   * Every feature's namespaces, then every feature's bootstrap objects (objects may live in those
   * namespaces); the namespaces are written in one transaction, the modules' objects concurrently.
   */
  async bootstrap(core: CoreParts, namespaceType: ResourceType | undefined): Promise<void> {
    const namespaces = new Set(this.all.flatMap(({ c }) => c.namespaces ?? []));
    await core.ensureAll(namespaceType, "", [...namespaces].map((name) => ({ metadata: { name } }) as KObject));
    await Promise.all(this.all.flatMap(({ c }) => (c.bootstrap ? [c.bootstrap(core)] : [])));
  }

  startReplicaControllers(core: CoreParts): void {
    for (const { c } of this.all) this.running.push(...(c.replicaControllers?.(core) ?? []));
  }

  startControllers(core: CoreParts): void {
    for (const { c } of this.all) this.elected.push(...(c.controllers?.(core) ?? []));
  }

  startControllersOnceServing(core: CoreParts): void {
    for (const { c } of this.all) this.elected.push(...(c.controllersOnceServing?.(core) ?? []));
  }

  /** Stops the controller manager's controllers (leadership lost); a new term starts them afresh. */
  stopElectedControllers(): void {
    for (const controller of this.elected.splice(0)) controller.stop();
  }

  /** The controllers running now (every phase). */
  controllers(): readonly Controller[] {
    return [...this.running, ...this.elected];
  }

  /** The authenticators in the union's slot order; within a slot, in module order. */
  authenticators(core: CoreParts): Authenticator[] {
    const bySlot = this.all.map(({ c }) => c.authenticators?.(core) ?? {});
    return authenticatorSlots.flatMap((slot) => bySlot.flatMap((s) => s[slot] ?? []));
  }

  nonResource(ctx: ServingContext): NonResourceHandler[] {
    return this.all.flatMap(({ c }) => c.nonResource?.(ctx) ?? []);
  }

  bootSequenceChecks(core: CoreParts): HealthCheck[] {
    return this.all.flatMap(({ c }) => c.bootSequenceChecks?.(core) ?? []);
  }

  delegatedPaths(ctx: ServingContext): NonResourceHandler[] {
    return this.all.flatMap(({ c }) => c.delegatedPaths?.(ctx) ?? []);
  }

  /** The flow control stage a module gives, if one does. */
  flowControl(core: CoreParts): Filter | undefined {
    const givers = this.all.filter(({ c }) => c.flowControl);
    if (givers.length > 1) throw new Error(`features ${givers.map((g) => g.name).join(" and ")} both give the flow control stage`);
    return givers[0]?.c.flowControl!(core);
  }

  /** The REST storages every feature contributes, in module order; one storage per group/resource/subresource. */
  storages(ctx: ServingContext): StorageRegistration[] {
    const claimed = new Set<string>();
    const out: StorageRegistration[] = [];
    for (const { name, c } of this.all) {
      for (const r of c.storages?.(ctx) ?? []) {
        const key = registrationKey(r);
        if (claimed.has(key)) throw new Error(`feature ${name}: ${key} already has a storage`);
        claimed.add(key);
        out.push(r);
      }
    }
    return out;
  }

  registerMetrics(metrics: ServerMetrics): void {
    for (const { c } of this.all) c.registerMetrics?.(metrics);
  }

  /** Stops the features (in module order), then every controller they started. */
  stop(): void {
    for (const { c } of this.all) c.stop?.();
    this.stopElectedControllers();
    for (const controller of this.running) controller.stop();
  }
}
