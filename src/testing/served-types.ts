// Waiting until custom resources are served: a CustomResourceDefinition is served once the
// establishing controller marked it Established and the serving controller turned it into types
// in the registry. Event-driven: the registry tells of every type it adds.
import type { TypeRegistry } from "../registry/type-registry.js";

/** A group-resource a CRD defines. */
export interface DefinedResource {
  group: string;
  resource: string;
  /** The CRD's name, for messages. */
  crd: string;
}

export const defaultServeTimeoutMs = 10_000;

/** Resolves once every resource is served; rejects naming those that are not after the timeout. */
export function whenServed(types: TypeRegistry, wanted: readonly DefinedResource[], timeoutMs = defaultServeTimeoutMs): Promise<void> {
  const missing = () => wanted.filter((w) => !types.preferred(w.group, w.resource));
  if (missing().length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (missing().length > 0) return;
      done();
      resolve();
    };
    const unsubscribe = types.subscribe(check);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`not served after ${timeoutMs} ms: ${missing().map((m) => m.crd).join(", ")} (is the CRD valid, and is crd-establishing-controller running?)`));
    }, timeoutMs);
    const done = () => {
      unsubscribe();
      clearTimeout(timer);
    };
  });
}
