// GET one object by name with 64 connections, against a bare node:http2 server that answers the
// very bytes kapi answered, with the same TLS. HTTP/2 (several streams per connection) and
// HTTP/1.1 keep-alive variants.
import type { Proto } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { pod } from "../fixtures.js";

export const getPath = "/api/v1/namespaces/default/pods/bench-get";

/** Store the pod at getPath (with its owner and status) as the admin; kapi's response to GET it. */
export async function storeGetPod(ctx: BenchContext, kapi: ServerHandle): Promise<{ body: Uint8Array; contentType: string }> {
  const owner = await ctx.ensureOwner(kapi.target, "default");
  for (const [method, path] of [["POST", "/api/v1/namespaces/default/pods"], ["PUT", `${getPath}/status`]]) {
    const c = await ctx.client.request({ target: kapi.target, method, path, body: JSON.stringify(pod("bench-get", "default", "0", owner)) });
    if (c.status >= 300) throw new Error(`get: ${method} ${path}: HTTP ${c.status}: ${Buffer.from(c.body).toString().slice(0, 300)}`);
  }
  const g = await ctx.client.request({ target: kapi.target, method: "GET", path: getPath });
  if (g.status !== 200) throw new Error(`get: HTTP ${g.status}`);
  return g;
}

/** kapi with one stored pod, and the bare server primed with kapi's exact response for it. */
export async function kapiAndBare(ctx: BenchContext): Promise<{ kapi: ServerHandle; bare: ServerHandle; bytes: number }> {
  const kapi = await ctx.startKapi();
  const g = await storeGetPod(ctx, kapi);
  const bare = await ctx.startAnchor("servers/bare.ts", { body: g.body, contentType: g.contentType });
  return { kapi, bare, bytes: g.body.length };
}

/** Issue 26's goals: HTTP/1.1 ≥ 0.95 and HTTP/2 ≥ 0.8 of the bare server. */
const getGoal = { h1: 0.95, h2: 0.8 } as const;

function getCase(proto: Proto, perConnection: number): BenchCase {
  const streams = proto === "h2" ? `HTTP/2, ${perConnection} streams each` : "HTTP/1.1 keep-alive";
  return {
    name: `get-${proto}`,
    title: `GET one pod by name, 64 connections (${streams})`,
    anchorTitle: "bare node:http2 server answering the same bytes, same TLS",
    unit: "req/s",
    better: "higher",
    goal: { op: ">=", value: getGoal[proto], text: `≥ ${getGoal[proto]}` },
    async setup(ctx): Promise<Session> {
      const { kapi, bare, bytes } = await kapiAndBare(ctx);
      const run = async (s: ServerHandle) => {
        const { value: r, serverCpuPct } = await s.cpuDuring(() =>
          ctx.client.closed({ target: s.target, proto, connections: ctx.opts.connections, perConnection, durationMs: ctx.opts.durationMs, request: { op: "get", path: getPath } }),
        );
        return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
      };
      return {
        api: () => run(kapi),
        anchor: () => run(bare),
        close: async () => void (await Promise.all([kapi.stop(), bare.stop()])),
        notes: [`response body ${bytes} bytes`],
      };
    },
  };
}

export const getH2 = getCase("h2", 4);
export const getH1 = getCase("h1", 1);
