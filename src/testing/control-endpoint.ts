// The control endpoint of `kapi testenv`: the test harness over loopback HTTP for suites in other
// languages. JSON in and out, a bearer token on every request, its own port, 127.0.0.1 only.
// Errors are Kubernetes Status bodies, so a client that reads one reads all.
//
//   POST /reset  GET /snapshot  POST /restore  POST /settle
//   GET /faults  POST /faults  DELETE /faults  DELETE /faults/{id}
//   GET /journal[?verb=…&resource=…]  DELETE /journal  POST /wait {match, timeout}
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, badRequest } from "../apimachinery/errors.js";
import { HarnessInputError } from "./input-error.js";
import { journalMatchKeys, type JournalMatch } from "./journal.js";
import type { TestHarness } from "./harness.js";
import { SettleBlockedError, SettleTimeoutError } from "./settle.js";

/**
 * What the endpoint asks of the server beyond its harness: reset, snapshots and settle live on
 * the server (KapiServer); a method the server lacks is answered 501 naming it.
 */
export interface ServerControls {
  reset?(): Promise<unknown>;
  snapshot?(): Promise<unknown>;
  restore?(snapshot: unknown): Promise<unknown>;
  settle?(options?: unknown): Promise<unknown>;
}

/** What the endpoint serves of a harness: `kapi testenv`'s TestHarness, or a KapiServer itself. */
export type HarnessControls = Pick<TestHarness, "journal" | "faults" | "waitFor">;

export interface ControlEndpointOptions {
  harness: HarnessControls;
  controls: ServerControls;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Made at random when not given. */
  token?: string;
}

export interface ControlEndpoint {
  /** http://127.0.0.1:<port> */
  url: string;
  token: string;
  close(): Promise<void>;
}

/** A snapshot can be large; anything past this is refused with 413. */
const maxBodyBytes = 256 << 20;

export async function startControlEndpoint(o: ControlEndpointOptions): Promise<ControlEndpoint> {
  const token = o.token ?? randomBytes(32).toString("hex");
  const server = createServer((rq, rs) => {
    void handle(rq, rs, o, token).catch((e: unknown) => send(rs, asStatusError(e)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, token, close: () => closeServer(server) };
}

async function handle(rq: IncomingMessage, rs: ServerResponse, o: ControlEndpointOptions, token: string): Promise<void> {
  if (!authorized(rq.headers.authorization, token)) return send(rs, new ApiError(401, "Unauthorized", "Unauthorized"));
  const url = new URL(rq.url ?? "/", "http://control");
  const route = `${rq.method} ${url.pathname.replace(/\/+$/, "") || "/"}`;
  const { harness, controls } = o;
  const faultId = /^DELETE \/faults\/(\d+)$/.exec(route);
  if (faultId) {
    if (!harness.faults.remove(Number(faultId[1]))) return send(rs, new ApiError(404, "NotFound", `fault rule ${faultId[1]} not found`));
    return send(rs, 200, { removed: Number(faultId[1]) });
  }
  switch (route) {
    case "POST /reset":
      return send(rs, 200, (await call(controls, "reset")) ?? {});
    case "GET /snapshot":
      return send(rs, 200, await call(controls, "snapshot"));
    case "POST /restore":
      return send(rs, 200, (await call(controls, "restore", await readJson(rq))) ?? {});
    case "POST /settle":
      return send(rs, 200, (await settleFromBody(controls, (await readJson(rq, true)) ?? undefined)) ?? {});
    case "GET /faults":
      return send(rs, 200, harness.faults.list());
    case "POST /faults":
      return send(rs, 201, harness.faults.add((await readJson(rq)) as never));
    case "DELETE /faults":
      harness.faults.clear();
      return send(rs, 200, {});
    case "GET /journal":
      return send(rs, 200, harness.journal.find(matchFromQuery(url.searchParams)));
    case "DELETE /journal":
      harness.journal.clear();
      return send(rs, 200, {});
    case "POST /wait":
      return send(rs, 200, await waitFromBody(harness, await readJson(rq)));
  }
  const known = ["/reset", "/snapshot", "/restore", "/settle", "/faults", "/journal", "/wait"];
  if (known.includes(url.pathname)) return send(rs, new ApiError(405, "MethodNotAllowed", `${rq.method} is not supported on ${url.pathname}`));
  return send(rs, new ApiError(404, "NotFound", `no control route ${url.pathname} (routes: ${known.join(", ")})`));
}

async function call(controls: ServerControls, method: keyof ServerControls, arg?: unknown): Promise<unknown> {
  const fn = controls[method] as ((a?: unknown) => Promise<unknown>) | undefined;
  if (!fn) throw new ApiError(501, "", `${method} is not available: this server has no ${method}() yet`);
  return arg === undefined ? fn.call(controls) : fn.call(controls, arg);
}

/**
 * A settle that runs out of time is a 504 Timeout, as a request that did not complete in time;
 * its causes name each controller still busy (field) and what it was doing (message). One that
 * cannot finish (an informer cannot list its type) is a 500 InternalError, as the list that fails
 * is; its causes name each such type and the error.
 */
async function settleFromBody(controls: ServerControls, body: unknown): Promise<unknown> {
  try {
    return await call(controls, "settle", body);
  } catch (e) {
    if (e instanceof SettleBlockedError) throw new ApiError(500, "InternalError", e.message, { causes: e.blockedBy.map((b) => ({ field: b.resource, message: b.error })) });
    if (!(e instanceof SettleTimeoutError)) throw e;
    const causes = e.busy.map((b) => ({ field: b.name, message: b.doing }));
    throw new ApiError(504, "Timeout", e.message, causes.length > 0 ? { causes } : undefined);
  }
}

async function waitFromBody(harness: HarnessControls, body: unknown): Promise<unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HarnessInputError(`the body must be {"match": {...}, "timeout": ms}, got ${JSON.stringify(body)}`);
  const { match, timeout, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new HarnessInputError(`unknown key "${extra[0]}" (known: match, timeout)`);
  if (timeout !== undefined && typeof timeout !== "number") throw new HarnessInputError(`timeout: must be a number of ms, got ${JSON.stringify(timeout)}`);
  try {
    return await harness.waitFor((match ?? {}) as JournalMatch, { timeout: timeout as number | undefined });
  } catch (e) {
    if (e instanceof HarnessInputError) throw e;
    throw new ApiError(504, "Timeout", (e as Error).message);
  }
}

/** `?verb=update&resource=deployments&code=409`: repeated keys are "any of"; numbers and booleans as the matcher types them. */
function matchFromQuery(q: URLSearchParams): JournalMatch {
  const m: Record<string, unknown> = {};
  for (const key of new Set(q.keys())) {
    const kind = journalMatchKeys[key];
    const raw = q.getAll(key);
    const values = kind === "number" ? raw.map((v) => (/^\d+$/.test(v) ? Number(v) : v)) : kind === "boolean" ? raw.map((v) => (v === "true" ? true : v === "false" ? false : v)) : raw;
    m[key] = values.length === 1 ? values[0] : values;
  }
  return m as JournalMatch;
}

function authorized(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

async function readJson(rq: IncomingMessage, optional = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of rq) {
    size += (c as Buffer).length;
    if (size > maxBodyBytes) throw new ApiError(413, "RequestEntityTooLarge", "the request entity is too large");
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") {
    if (optional) return undefined;
    throw badRequest("the request needs a JSON body");
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the body is not JSON: ${(e as Error).message}`);
  }
}

function asStatusError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof HarnessInputError) return badRequest(e.message);
  return new ApiError(500, "InternalError", `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
}

function send(rs: ServerResponse, status: number | ApiError, body?: unknown): void {
  if (rs.headersSent) return void rs.end();
  const err = status instanceof ApiError ? status : undefined;
  const payload = JSON.stringify(err ? err.toStatus() : (body ?? null));
  rs.writeHead(err ? err.code : (status as number), { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  rs.end(payload);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
