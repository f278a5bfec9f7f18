// The test kit of one running server: snapshots, restore, reset to the state right after start-up,
// and settle(). Start-up order: the snapshot to load (if any), then the manifests, then the
// controllers settle, and what is stored then is the state reset() returns to.
import { writeFile } from "node:fs/promises";
import { kapiVersion } from "../observability/version.js";
import type { RunningServer } from "../server/start.js";
import { applyManifests } from "./apply-manifests.js";
import type { ManifestObject } from "./manifests.js";
import { restoreSnapshot, takeSnapshot, type SnapshotTarget } from "./restore.js";
import { settle, type SettleOptions } from "./settle.js";
import { checkSnapshot, type Snapshot } from "./snapshot-format.js";

export interface TestKit {
  /** Every stored object now (built-in and custom, CRDs included). */
  snapshot(): Promise<Snapshot>;
  /** The stored state becomes the snapshot's, as new revisions (see restore.ts). */
  restore(snapshot: Snapshot): Promise<void>;
  /** The snapshot, written to a file as JSON (`kapi serve --load`, `startServer({ load })` read it). */
  save(path: string): Promise<void>;
  /** Back to the state right after start-up (bootstrap objects, the loaded snapshot, manifests). */
  reset(): Promise<void>;
  /** Until the in-process controllers have nothing left to do (settle.ts). */
  settle(opts?: SettleOptions): Promise<void>;
}

/** What the start brings in; files are read (and checked) before the server starts. */
export interface StartContent {
  snapshot?: Snapshot;
  manifests?: readonly ManifestObject[];
}

/** `initialState`: told the state reset() returns to, once it is reached (see initial-state.ts). */
export async function startTestKit(server: RunningServer, content: StartContent, initialState?: (s: Snapshot) => void): Promise<TestKit> {
  const target: SnapshotTarget = { storage: server.storage, types: server.parts.types, kapiVersion: kapiVersion() };
  const doSettle = (opts?: SettleOptions) => settle({ ...server, currentRevision: () => server.storage.currentRevision() }, opts);
  if (content.snapshot) await restoreSnapshot(target, content.snapshot);
  if (content.manifests?.length) await applyManifests({ stores: server.parts.stores, types: server.parts.types }, content.manifests);
  // The controllers' answers to start-up (default ServiceAccounts, kube-root-ca.crt, aggregated
  // roles) belong to the initial state: without them a reset would undo them and set them off again.
  await doSettle();
  const initial = await takeSnapshot(target);
  initialState?.(initial);
  /** The revision right after the last reset: nothing written since means nothing to undo. */
  let resetAt = initial.revision;
  return {
    snapshot: () => takeSnapshot(target),
    async restore(snapshot) {
      await restoreSnapshot(target, checkSnapshot(snapshot));
    },
    async save(path) {
      await writeFile(path, JSON.stringify(await takeSnapshot(target), null, 1) + "\n");
    },
    async reset() {
      if ((await server.storage.currentRevision()) === resetAt) return;
      await restoreSnapshot(target, initial);
      resetAt = await server.storage.currentRevision();
    },
    async settle(opts) {
      await doSettle(opts);
    },
  };
}
