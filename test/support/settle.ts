// settle() for a server started below the library (startApiServer): the test kit's own settle,
// read from the running server's activity seam and its store's revision.
import type { RunningServer } from "../../src/server/start.js";
import { settle, type SettleOptions } from "../../src/testing/settle.js";
import { req, type HttpServer } from "./client.js";

export async function settleRunning(s: RunningServer, opts?: SettleOptions): Promise<void> {
  await settle({ ...s, currentRevision: () => s.storage.currentRevision() }, opts);
}

/**
 * What `probe` returns once `s`'s controllers have settled. It is asked once, not retried until it
 * holds: a controller that has not done its part by then fails the test at once. `undefined` and
 * `false` mean "not so", so a yes/no question can be asked as well as a value fetched.
 */
export async function whenSettled<T>(s: { settle(): Promise<void> }, what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  await s.settle();
  const v = await probe();
  if (v === undefined || v === false) throw new Error(`not so once settled: ${what}`);
  return v;
}

/** `path` answers 200 once `s` has settled (asked once): a CRD's API after its create or update. */
export async function servedOnceSettled(s: HttpServer & { settle(): Promise<void> }, path: string): Promise<void> {
  await s.settle();
  const r = await req(s, "GET", path);
  if (r.status !== 200) throw new Error(`not served once settled: GET ${path}: ${r.status} ${r.text}`);
}
