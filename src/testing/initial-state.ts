// The initial state of a test process's servers, kept per configuration. A test suite starts
// many servers with the same options, and each reaches the same state: the bootstrap objects
// (namespaces, the RBAC default policy, priority classes, the kubernetes Service) and the
// controllers' answers to them (default ServiceAccounts, kube-root-ca.crt ConfigMaps). The first
// server of a configuration gets there the long way, every object through the create path and
// the controllers; its state is kept, and the later ones start from a copy of it, written in one
// transaction — each object with a uid of its own and the copy's time as its creation time, so
// no two servers share an object's identity. Only configurations whose state nothing outside the
// options decides are kept: a memory store, no data dir, no in-process admission plugins (they
// could change or refuse a bootstrap object), no manifests or snapshot to load.
import { randomUUID } from "node:crypto";
import type { ServerOptions } from "../server/options.js";
import type { Snapshot } from "./snapshot-format.js";

/** What startServer() was given, beyond the server's options. */
export interface InitialStateInputs {
  options: ServerOptions;
  admissionPlugins: boolean;
  content: boolean;
}

const kept = new Map<string, Snapshot>();

/** The key a configuration's initial state is kept under, or undefined when it is not kept. */
export function initialStateKey(i: InitialStateInputs): string | undefined {
  const o = i.options;
  if (o.storageBackend !== "memory" || o.dataDir || o.writeKubeconfig || i.admissionPlugins || i.content) return undefined;
  try {
    // Functions (the log) say nothing of the state; anything that is not plain data keeps nothing.
    return JSON.stringify(o, (_, v: unknown) => (typeof v === "function" ? undefined : v));
  } catch {
    return undefined;
  }
}

export function keepInitialState(key: string, state: Snapshot): void {
  if (!kept.has(key)) kept.set(key, state);
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * A copy of the kept state of `key` to start from (storage keys and values, in the snapshot's
 * order), or undefined. Every uid is replaced (references to it too), and creation and
 * managed-fields times are now.
 */
export function initialStateCopy(key: string | undefined): { key: string; value: string }[] | undefined {
  const state = key === undefined ? undefined : kept.get(key);
  if (!state) return undefined;
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const uids = new Map<string, string>();
  for (const { object } of state.objects) if (typeof object.metadata.uid === "string") uids.set(object.metadata.uid, randomUUID());
  return state.objects.map(({ key: k, object }) => {
    const metadata: Record<string, unknown> = { ...object.metadata };
    if (metadata.creationTimestamp !== undefined) metadata.creationTimestamp = now;
    if (Array.isArray(metadata.managedFields)) metadata.managedFields = metadata.managedFields.map((f: Record<string, unknown>) => (f.time === undefined ? f : { ...f, time: now }));
    const value = JSON.stringify({ ...object, metadata }).replace(uuid, (u) => uids.get(u) ?? u);
    return { key: k, value };
  });
}
