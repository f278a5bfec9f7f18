// settle() for a server started below the library (startApiServer): the test kit's own settle,
// read from the running server's activity seam and its store's revision.
import type { RunningServer } from "../../src/server/start.js";
import { settle, type SettleOptions } from "../../src/testing/settle.js";

export async function settleRunning(s: RunningServer, opts?: SettleOptions): Promise<void> {
  await settle({ ...s, currentRevision: () => s.storage.currentRevision() }, opts);
}
