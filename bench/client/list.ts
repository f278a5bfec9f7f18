// Full paged traversal of a collection (limit + continue), one request after another like a
// reflector's initial list. Pages are counted with a cheap scan (list-page.ts), never parsed,
// so the figure is the server's; a verifying traversal first parses every page in full, checks
// the scan's counts against it, and can keep the exact pages for the pre-encoded-pages anchor.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuPct } from "../core/child.js";
import type { ListJob, ListResult, ListVerifyJob, ListVerifyResult } from "./protocol.js";
import { continueToken, pageItems } from "./list-page.js";
import { openH2, type H2Conn } from "./transport.js";

interface Page {
  path: string;
  body: Buffer;
}

/** One traversal; `onPage` sees each page's request path and body. */
async function traverse(conn: H2Conn, job: Pick<ListJob, "path" | "limit">, onPage?: (p: Page) => void): Promise<{ pages: number; items: number; bytes: number }> {
  let token = "";
  let pages = 0;
  let items = 0;
  let bytes = 0;
  do {
    const path = `${job.path}?limit=${job.limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
    const r = await conn.request("GET", path, undefined, true);
    if (r.status !== 200) throw new Error(`list page ${pages}: HTTP ${r.status}: ${r.body?.toString().slice(0, 300)}`);
    const body = r.body!;
    onPage?.({ path, body });
    token = continueToken(body);
    items += pageItems(body);
    pages++;
    bytes += r.bytes;
  } while (token);
  return { pages, items, bytes };
}

/**
 * One traversal that parses every page in full: the scan's count must agree with the parsed
 * items on every page. With `captureDir`, the pages are written there as served, with a manifest
 * of the request path each answers (bench/servers/pages.ts serves them).
 */
export async function runListVerify(job: ListVerifyJob): Promise<ListVerifyResult> {
  const conn = await openH2(job.target);
  const captured: { path: string; file: string }[] = [];
  if (job.captureDir) mkdirSync(job.captureDir, { recursive: true });
  try {
    const r = await traverse(conn, job, ({ path, body }) => {
      const parsed = (JSON.parse(body.toString("utf8")) as { items: unknown[] }).items.length;
      const scanned = pageItems(body);
      if (parsed !== scanned) throw new Error(`list page ${captured.length}: the scan counted ${scanned} items, the parse ${parsed}`);
      const file = `page-${captured.length}.json`;
      if (job.captureDir) writeFileSync(join(job.captureDir, file), body);
      captured.push({ path, file });
    });
    if (job.captureDir) writeFileSync(join(job.captureDir, "manifest.json"), JSON.stringify(captured));
    return r;
  } finally {
    conn.close();
  }
}

export async function runList(job: ListJob): Promise<ListResult> {
  const conn = await openH2(job.target);
  try {
    // Untimed first traversal: warms the connection (and is counted in `served`, for per-traversal server CPU).
    const first = await traverse(conn, job);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const times: number[] = [];
    let bytes = 0;
    do {
      const t = performance.now();
      const r = await traverse(conn, job);
      times.push(performance.now() - t);
      if (r.items !== first.items) throw new Error(`list: a traversal counted ${r.items} items, the first ${first.items}`);
      bytes = r.bytes;
    } while (performance.now() - t0 < job.durationMs);
    const elapsed = performance.now() - t0;
    return {
      traversals: times.length,
      served: times.length + 1,
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
