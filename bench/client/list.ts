// Full paged traversal of a collection (limit + continue), one request after another like a
// reflector's initial list; and its anchor, JSON.stringify of the same items in one go.
import { cpuPct } from "../core/child.js";
import type { ListJob, ListResult, StringifyJob, StringifyResult } from "./protocol.js";
import { openH2, type H2Conn } from "./transport.js";

const continuePattern = /"continue":"([^"]*)"/;
/** Items of the last untimed traversal, decoded: the stringify anchor serializes exactly these. */
let kept: unknown[] = [];

async function traverse(conn: H2Conn, job: ListJob, decode: boolean): Promise<{ pages: number; items: number; bytes: number; all: unknown[] }> {
  let token = "";
  let pages = 0;
  let bytes = 0;
  const all: unknown[] = [];
  do {
    const q = `?limit=${job.limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
    const r = await conn.request("GET", job.path + q, undefined, true);
    if (r.status !== 200) throw new Error(`list page ${pages}: HTTP ${r.status}: ${r.body?.toString().slice(0, 300)}`);
    const body = r.body!;
    // The list's metadata (and its continue token) precedes the items: no need to parse 1 MB.
    const m = continuePattern.exec(body.toString("latin1", 0, Math.min(body.length, 4096))) ?? (decode ? continuePattern.exec(body.toString("latin1")) : null);
    token = m?.[1] ?? "";
    if (decode) all.push(...(JSON.parse(body.toString("utf8")).items as unknown[]));
    pages++;
    bytes += r.bytes;
  } while (token);
  return { pages, items: all.length, bytes, all };
}

export async function runList(job: ListJob): Promise<ListResult> {
  const conn = await openH2(job.target);
  try {
    // Untimed first pass: warms the connection, counts the items, keeps them for the anchor.
    const first = await traverse(conn, job, true);
    if (job.keepItems) kept = first.all;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const times: number[] = [];
    let bytes = 0;
    do {
      const t = performance.now();
      bytes = (await traverse(conn, job, false)).bytes;
      times.push(performance.now() - t);
    } while (performance.now() - t0 < job.durationMs);
    const elapsed = performance.now() - t0;
    return {
      traversals: times.length,
      meanMs: times.reduce((a, b) => a + b, 0) / times.length,
      minMs: Math.min(...times),
      pages: first.pages,
      items: first.items,
      bytes,
      cpuPct: cpuPct(c0, process.cpuUsage(), elapsed),
    };
  } finally {
    conn.close();
  }
}

export function runStringify(job: StringifyJob): StringifyResult {
  if (!kept.length) throw new Error("stringify: no items kept (run a list job with keepItems first)");
  const list = { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: kept };
  const times: number[] = [];
  let bytes = 0;
  const t0 = performance.now();
  do {
    const t = performance.now();
    bytes = JSON.stringify(list).length;
    times.push(performance.now() - t);
  } while (performance.now() - t0 < job.durationMs);
  return { iterations: times.length, meanMs: times.reduce((a, b) => a + b, 0) / times.length, minMs: Math.min(...times), items: kept.length, bytes };
}
