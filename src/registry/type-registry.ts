// The resource types this server serves. Types are added, updated and removed while serving
// (built-ins at start from the composition root, custom resources when their definitions
// change); everything that keeps per-type state (discovery, OpenAPI, the watch caches, the
// garbage collector, the namespace controller) subscribes to the registry's events.
import type { ResourceType } from "./resource-type.js";

export interface GroupVersionKey {
  group: string;
  version: string;
}

export type TypeEvent =
  | { type: "added"; resource: ResourceType }
  | { type: "updated"; resource: ResourceType; previous: ResourceType }
  | { type: "removed"; resource: ResourceType };

export type TypeListener = (event: TypeEvent) => void;

const gvrKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;

export class TypeRegistry {
  private readonly byGVR = new Map<string, ResourceType>();
  private readonly listeners = new Set<TypeListener>();

  /** Serves a new type; an already-served group/version/resource is an error (use update). */
  add(t: ResourceType): void {
    const key = gvrKey(t.group, t.version, t.resource);
    if (this.byGVR.has(key)) throw new Error(`type ${key} is already registered`);
    this.byGVR.set(key, t);
    this.emit({ type: "added", resource: t });
  }

  /** Replaces a served type's declaration (a new schema, printer or strategy). */
  update(t: ResourceType): void {
    const key = gvrKey(t.group, t.version, t.resource);
    const previous = this.byGVR.get(key);
    if (!previous) throw new Error(`type ${key} is not registered`);
    this.byGVR.set(key, t);
    this.emit({ type: "updated", resource: t, previous });
  }

  /** Stops serving a type; returns what was removed (undefined when it was not served). */
  remove(group: string, version: string, resource: string): ResourceType | undefined {
    const key = gvrKey(group, version, resource);
    const t = this.byGVR.get(key);
    if (!t) return undefined;
    this.byGVR.delete(key);
    this.emit({ type: "removed", resource: t });
    return t;
  }

  /** Calls `fn` for every later change; returns the unsubscribe function. */
  subscribe(fn: TypeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byGVR.get(gvrKey(group, version, resource));
  }

  hasGroupVersion(group: string, version: string): boolean {
    for (const t of this.byGVR.values()) if (t.group === group && t.version === version) return true;
    return false;
  }

  all(): ResourceType[] {
    return [...this.byGVR.values()];
  }

  /** Group versions in registration order. */
  enabledGroupVersions(): GroupVersionKey[] {
    const seen = new Set<string>();
    const out: GroupVersionKey[] = [];
    for (const t of this.byGVR.values()) {
      const gv = `${t.group}/${t.version}`;
      if (seen.has(gv)) continue;
      seen.add(gv);
      out.push({ group: t.group, version: t.version });
    }
    return out;
  }

  /** The served version of a group-resource to use for internal access (preferred first). */
  preferred(group: string, resource: string): ResourceType | undefined {
    const candidates = this.all().filter((t) => t.group === group && t.resource === resource);
    return candidates.find((t) => t.preferredVersion === t.version) ?? candidates[0];
  }

  /** One type per stored group-resource (all versions share storage), the preferred version. */
  stored(): ResourceType[] {
    const byPrefix = new Map<string, ResourceType>();
    for (const t of this.byGVR.values()) {
      if (t.virtual || byPrefix.has(t.keyPrefix)) continue;
      byPrefix.set(t.keyPrefix, this.preferred(t.group, t.resource) ?? t);
    }
    return [...byPrefix.values()];
  }

  private emit(event: TypeEvent): void {
    for (const fn of [...this.listeners]) fn(event);
  }
}
