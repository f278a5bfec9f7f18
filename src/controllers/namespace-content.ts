// The namespace controller's ear for the content of a namespace it could not empty yet (objects
// with finalizers, pods in graceful deletion). Upstream requeues such a namespace after an
// estimate (half of 15 s for finalizers, plus one) and has nothing else to go on; kapi queues the
// namespace again at the first change of anything in it (change-follower.ts).
import type { Storage } from "../storage/interface.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { followChanges } from "./change-follower.js";

export interface ContentFollower {
  /** Queue `namespace` at the first change of its content after `fromRevision`. */
  hold(namespace: string, fromRevision: number): void;
  /** The namespace needs no ear any more (finalized, gone, or being examined). */
  release(namespace: string): void;
  stop(): void;
}

/** Whether `key` is the storage key of an object of a namespaced type in `namespace`. */
export function isContentKey(types: TypeRegistry, key: string, namespace: string): boolean {
  const infix = `/${namespace}/`;
  if (!key.includes(infix)) return false;
  return types.stored().some((t) => t.namespaced && key.startsWith(t.keyPrefix + namespace + "/"));
}

export function followContent(storage: Storage, types: TypeRegistry, enqueue: (namespace: string) => void): ContentFollower {
  const follower = followChanges(storage, enqueue);
  return {
    hold: (namespace, fromRevision) => follower.hold(namespace, fromRevision, "/registry/", (key) => isContentKey(types, key, namespace)),
    release: (namespace) => follower.release(namespace),
    stop: () => follower.stop(),
  };
}
