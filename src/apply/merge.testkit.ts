// Shared by the server-side apply tests: a Deployment, simulated storage and apply/update
// helpers with fixed times. Not part of the build (*.testkit.ts).
import { deepClone } from "../apimachinery/json-value.js";
import { getDefinition } from "../encoding/schema/schema-facts.js";
import { ApplyConflictError, applyPatch, recordUpdate } from "./index.js";
import type { ApplyOptions, FieldManagerResult, ManagedFieldsEntry } from "./index.js";

export const T0 = "2024-05-01T10:00:00Z";
export const T1 = "2024-05-01T11:00:00Z";
export const base: ApplyOptions = {
  force: false,
  apiVersion: "apps/v1",
  now: T0,
  schema: getDefinition,
  rootRef: "io.k8s.api.apps.v1.Deployment",
};

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Obj = any;

export function deployment(spec: Obj = {}, meta: Obj = {}): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", ...meta },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
      },
      ...spec,
    },
  };
}

// Simulates storage: gives the created object a uid.
export function stored(r: FieldManagerResult): Obj {
  const o: Obj = deepClone(r.object);
  o.metadata.uid ??= "0a6c1b1e-uid";
  return o;
}

export function apply(live: Obj, config: Obj, manager: string, opts: Partial<ApplyOptions> = {}): Obj {
  return stored(applyPatch(live, config, manager, undefined, { ...base, ...opts }));
}

export function update(live: Obj, next: Obj, manager: string, now = T1): Obj {
  return stored(recordUpdate(live, next, manager, undefined, { ...base, now }));
}

export function entry(obj: Obj, manager: string): ManagedFieldsEntry | undefined {
  return (obj.metadata.managedFields as ManagedFieldsEntry[] | undefined)?.find((e) => e.manager === manager);
}

export function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApplyConflictError) return e;
    throw e;
  }
  throw new Error("expected a conflict");
}
