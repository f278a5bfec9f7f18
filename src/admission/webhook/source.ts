// The webhooks of one kind (mutating or validating), read from the informer of its
// configuration type (upstream: configuration/{mutating,validating}_webhook_manager). A change of
// any configuration marks the list stale; the next request rebuilds it — configurations sorted
// by name, each one's webhooks in their written order — so a configuration takes effect as soon
// as the informer has seen it. Compiled parts (CEL, connection) are kept per configuration
// resourceVersion.
import type { InformerFactory, ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { MatchCriteria } from "../matching/index.js";
import { endpointOf, type Endpoint } from "./call.js";
import { compileConditions, type CompiledCondition } from "./conditions.js";
import { defaultTimeoutSeconds, maxTimeoutSeconds, type FailurePolicy, type WebhookConfiguration, type WebhookKind, type WebhookSpec } from "./types.js";

/** One webhook ready to be matched and called. */
export interface Hook {
  /** `<configuration>/<webhook>/<n>`: unique even when names repeat (reinvocation keys on it). */
  uid: string;
  configuration: string;
  name: string;
  spec: WebhookSpec;
  criteria: MatchCriteria;
  failurePolicy: FailurePolicy;
  timeoutSeconds: number;
  reinvokeIfNeeded: boolean;
  conditions: CompiledCondition[];
  /** The connection, or why the clientConfig cannot be used (failurePolicy decides at call time). */
  endpoint: Endpoint | { error: string };
}

const resources: Record<WebhookKind, string> = { mutating: "mutatingwebhookconfigurations", validating: "validatingwebhookconfigurations" };

/** A webhook as the API defaults it (v1 SetDefaults): what the dispatcher relies on. */
export function compileHook(configuration: string, index: number, spec: WebhookSpec): Hook {
  const timeoutSeconds = Math.min(Math.max(spec.timeoutSeconds ?? defaultTimeoutSeconds, 1), maxTimeoutSeconds);
  let endpoint: Hook["endpoint"];
  try {
    endpoint = endpointOf(spec.clientConfig ?? {}, timeoutSeconds);
  } catch (e) {
    endpoint = { error: (e as Error).message };
  }
  return {
    uid: `${configuration}/${spec.name}/${index}`,
    configuration,
    name: spec.name,
    spec,
    criteria: {
      namespaceSelector: spec.namespaceSelector,
      objectSelector: spec.objectSelector,
      rules: (spec.rules ?? []).map((r) => ({ ...r, scope: r.scope ?? "*" })),
      matchPolicy: spec.matchPolicy ?? "Equivalent",
    },
    failurePolicy: spec.failurePolicy ?? "Fail",
    timeoutSeconds,
    reinvokeIfNeeded: spec.reinvocationPolicy === "IfNeeded",
    conditions: compileConditions(spec.matchConditions),
    endpoint,
  };
}

export class HookSource {
  private informer?: ObjectInformer;
  private stale = true;
  private list: Hook[] = [];
  /** configuration uid+resourceVersion → its compiled hooks */
  private compiled = new Map<string, Hook[]>();
  private removeHandler?: () => void;

  constructor(
    private readonly kind: WebhookKind,
    private readonly parts: () => { informers: InformerFactory; types: TypeRegistry },
  ) {}

  /** Starts the informer (first use); false while it has not synced within `waitMs`. */
  async ready(waitMs = 10_000): Promise<boolean> {
    const informer = this.start();
    if (!informer) return true;
    if (informer.hasSynced()) return true;
    await Promise.race([informer.synced, new Promise((r) => setTimeout(r, waitMs).unref())]);
    return informer.hasSynced();
  }

  private start(): ObjectInformer | undefined {
    if (this.informer && !this.informer.isStopped) return this.informer;
    const { informers, types } = this.parts();
    const t = types.get("admissionregistration.k8s.io", "v1", resources[this.kind]);
    if (!t) return undefined;
    this.informer = informers.forType(t);
    this.removeHandler?.();
    const mark = () => {
      this.stale = true;
    };
    this.removeHandler = this.informer.addHandler({ added: mark, updated: mark, deleted: mark });
    this.stale = true;
    return this.informer;
  }

  /** The webhooks in calling order. */
  hooks(): Hook[] {
    const informer = this.start();
    if (!informer) return [];
    // Handlers run on the event loop right after the informer's view changed: a written
    // configuration is seen within milliseconds, without a scan per request.
    if (!this.stale) return this.list;
    this.stale = false;
    const configs = informer.list().slice().sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    const next = new Map<string, Hook[]>();
    const out: Hook[] = [];
    for (const c of configs) {
      const key = `${c.metadata.uid}/${c.metadata.resourceVersion}`;
      const hooks = this.compiled.get(key) ?? compileConfiguration(c);
      next.set(key, hooks);
      out.push(...hooks);
    }
    for (const [key, hooks] of this.compiled) if (!next.has(key)) closeHooks(hooks);
    this.compiled = next;
    this.list = out;
    return out;
  }

  stop(): void {
    this.removeHandler?.();
    for (const hooks of this.compiled.values()) closeHooks(hooks);
    this.compiled.clear();
  }
}

/** Closes the kept-alive connections of webhooks no longer configured. */
function closeHooks(hooks: readonly Hook[]): void {
  for (const h of hooks) if (!("error" in h.endpoint)) h.endpoint.agent.destroy();
}

function compileConfiguration(c: KObject): Hook[] {
  const cfg = c as unknown as WebhookConfiguration;
  const name = cfg.metadata.name ?? "";
  const seen = new Map<string, number>();
  return (cfg.webhooks ?? []).map((spec) => {
    const n = seen.get(spec.name) ?? 0;
    seen.set(spec.name, n + 1);
    return compileHook(name, n, spec);
  });
}
