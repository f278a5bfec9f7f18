// Namespace states for create admission (upstream NamespaceLifecycle reads an informer cache):
// kept from a storage watch, so a namespaced create costs no storage read. A namespace not in
// the map is looked up live (it may be newer than the watch has delivered).
import type { Storage, Watcher } from "../storage/interface.js";

export type NamespaceState = "active" | "terminating" | "missing";

const stateOf = (value: string): NamespaceState => (value.includes('"deletionTimestamp"') ? "terminating" : "active");

export class NamespaceStates {
  private readonly states = new Map<string, NamespaceState>();
  private watcher?: Watcher;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
  ) {}

  async start(): Promise<void> {
    const res = await this.storage.range(this.prefix);
    for (const kv of res.items) this.states.set(kv.key.slice(this.prefix.length), stateOf(kv.value));
    if (this.stopped) return;
    this.watcher = this.storage.watch(this.prefix, { afterRevision: res.revision }, (ev) => {
      const name = ev.kv.key.slice(this.prefix.length);
      if (ev.type === "delete") this.states.delete(name);
      else this.states.set(name, stateOf(ev.kv.value));
    }, () => this.states.clear()); // the feed broke: fall back to live reads
  }

  async get(ns: string): Promise<NamespaceState> {
    const known = this.states.get(ns);
    if (known) return known;
    const kv = await this.storage.get(this.prefix + ns);
    return kv ? stateOf(kv.value) : "missing";
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.stop();
  }
}
