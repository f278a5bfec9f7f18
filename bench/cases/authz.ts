// What authorization costs a GET: the get-h2 load (one pod by name, 64 connections, HTTP/2) sent
// by a plain user authenticated by bearer token (--token-auth-file), against kapi with
// --authorization-mode=Node,RBAC, anchored by the SAME kapi set-up (same token file, same stored
// objects) with AlwaysAllow. Only authorization differs: the Node authorizer (no opinion for a
// user that is not a node) and RBAC's index lookup, over a policy of 1,000 ClusterRoles and 1,000
// (Cluster)RoleBindings for other users, plus the one ClusterRoleBinding that lets this user get pods.
// The requests carry no client certificate: the admin's would make them system:masters, which every
// authorizer allows before looking at anything (and x509 is tried before tokens).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BatchJob, Target } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { getPath, storeGetPod } from "./get.js";

const rbacGroup = "rbac.authorization.k8s.io";
const rbacPath = `/apis/${rbacGroup}/v1`;
const user = "bench-reader";
const token = "bench-authz-6f1d2c3b4a5e6f708192a3b4c5d6e7f8";
/** Namespaces the RoleBindings are spread over ("default", where the pod is, among them). */
const namespaces = ["default", ...Array.from({ length: 9 }, (_, i) => `bench-authz-${i}`)];
export const policySize = { clusterRoles: 1000, clusterRoleBindings: 500, roleBindings: 500 };

type Req = BatchJob["requests"][number];
const post = (path: string, body: unknown): Req => ({ method: "POST", path, body: JSON.stringify(body) });

/** The other users' policy: ClusterRoles with a few rules each, bound to users, groups and service accounts. */
function otherPolicy(): Req[] {
  const out: Req[] = [];
  for (let i = 0; i < policySize.clusterRoles; i++) {
    out.push(
      post(`${rbacPath}/clusterroles`, {
        apiVersion: `${rbacGroup}/v1`,
        kind: "ClusterRole",
        metadata: { name: `bench-role-${i}`, labels: { "bench/authz": "policy" } },
        rules: [
          { apiGroups: ["", "apps"], resources: [`things-${i}`, `things-${i}/status`, "configmaps"], verbs: ["get", "list", "watch"] },
          { apiGroups: ["apps"], resources: ["deployments"], resourceNames: [`app-${i}`], verbs: ["update", "patch"] },
          { nonResourceURLs: [`/custom/${i}/*`], verbs: ["get"] },
        ],
      }),
    );
  }
  const roleRef = (i: number) => ({ apiGroup: rbacGroup, kind: "ClusterRole", name: `bench-role-${i % policySize.clusterRoles}` });
  for (let i = 0; i < policySize.clusterRoleBindings; i++) {
    out.push(
      post(`${rbacPath}/clusterrolebindings`, {
        apiVersion: `${rbacGroup}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name: `bench-binding-${i}` },
        roleRef: roleRef(i),
        subjects: [
          { kind: "User", apiGroup: rbacGroup, name: `user-${i}` },
          { kind: "Group", apiGroup: rbacGroup, name: `team-${i % 20}` },
        ],
      }),
    );
  }
  for (let i = 0; i < policySize.roleBindings; i++) {
    const namespace = namespaces[i % namespaces.length];
    out.push(
      post(`${rbacPath}/namespaces/${namespace}/rolebindings`, {
        apiVersion: `${rbacGroup}/v1`,
        kind: "RoleBinding",
        metadata: { name: `bench-binding-${i}`, namespace },
        roleRef: roleRef(policySize.clusterRoleBindings + i),
        subjects: [
          { kind: "User", apiGroup: rbacGroup, name: `user-${(i * 7) % 750}` },
          { kind: "ServiceAccount", name: `sa-${i}`, namespace },
        ],
      }),
    );
  }
  return out;
}

/** What lets the bench user GET pods (created last, on both servers). */
const readerPolicy: Req[] = [
  post(`${rbacPath}/clusterroles`, {
    apiVersion: `${rbacGroup}/v1`,
    kind: "ClusterRole",
    metadata: { name: "bench-pod-reader" },
    rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
  }),
  post(`${rbacPath}/clusterrolebindings`, {
    apiVersion: `${rbacGroup}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: "bench-pod-reader" },
    roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name: "bench-pod-reader" },
    subjects: [{ kind: "User", apiGroup: rbacGroup, name: user }],
  }),
];

async function batch(ctx: BenchContext, target: Target, requests: Req[], what: string): Promise<void> {
  const r = await ctx.client.batch({ target, requests, concurrency: 32 });
  const ok = r.statuses["201"] ?? 0;
  if (ok !== requests.length) throw new Error(`get-authz: ${what}: ${ok} of ${requests.length} created (${JSON.stringify(r.statuses)}; ${r.firstError})`);
}

/** The token user's GET of the pod, as the load client sends it (no client certificate). */
async function tokenGet(ctx: BenchContext, t: Target): Promise<{ status: number; text: string }> {
  const r = await ctx.client.request({ target: t, method: "GET", path: getPath });
  return { status: r.status, text: Buffer.from(r.body).toString("utf8") };
}

/** One kapi with the token file: the namespaces, the other users' policy and the pod (as the admin). */
async function startOne(ctx: BenchContext, tokenFile: string, authorizationMode: string[]): Promise<{ kapi: ServerHandle; asUser: Target; body: Uint8Array; setupMs: number }> {
  const kapi = await ctx.startKapi(undefined, undefined, { authorizationMode, tokenAuthFile: tokenFile });
  const asUser: Target = { ...kapi.target, bearerToken: token };
  const t0 = performance.now();
  const extraNs = namespaces.filter((n) => n !== "default");
  await batch(ctx, kapi.target, extraNs.map((name) => post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } })), "namespaces");
  await batch(ctx, kapi.target, otherPolicy(), "other users' policy");
  const setupMs = performance.now() - t0;
  const g = await storeGetPod(ctx, kapi);
  return { kapi, asUser, body: g.body, setupMs };
}

/** Who the server takes the token requests for (SelfSubjectReview): the token user, never system:masters. */
async function checkIdentity(ctx: BenchContext, t: Target, what: string): Promise<string[]> {
  const r = await ctx.client.request({ target: t, method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }) });
  const text = Buffer.from(r.body).toString("utf8");
  if (r.status !== 201) throw new Error(`get-authz: ${what}: SelfSubjectReview as the token user: HTTP ${r.status}: ${text.slice(0, 300)}`);
  const info = (JSON.parse(text) as { status?: { userInfo?: { username?: string; groups?: string[] } } }).status?.userInfo;
  const groups = info?.groups ?? [];
  if (info?.username !== user || groups.includes("system:masters")) throw new Error(`get-authz: ${what}: requests are made as ${JSON.stringify(info)}, not as ${user}`);
  return groups;
}

/** Until the user's GET is allowed (RBAC's index is fed by an informer: it lags the write a little). */
async function untilAllowed(ctx: BenchContext, t: Target, what: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  for (;;) {
    const r = await tokenGet(ctx, t);
    if (r.status === 200) return;
    if (r.status !== 403 || performance.now() > deadline) throw new Error(`get-authz: ${what}: the token user's GET answered HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export const getAuthz: BenchCase = {
  name: "get-authz",
  title: "GET one pod by name as a token user, authorization Node,RBAC (1,000 roles, 1,000 bindings), 64 connections (HTTP/2, 4 streams each)",
  anchorTitle: "the same kapi, token file and objects with AlwaysAllow",
  unit: "req/s",
  better: "higher",
  goal: { op: ">=", value: 0.9, text: "≥ 0.9" },
  async setup(ctx): Promise<Session> {
    const tokenFile = join(ctx.dir("authz"), "tokens.csv");
    writeFileSync(tokenFile, `${token},${user},bench-reader-uid,"bench-readers"\n`);
    const rbac = await startOne(ctx, tokenFile, ["Node", "RBAC"]);
    let allow: Awaited<ReturnType<typeof startOne>> | undefined;
    let groups: string[] = [];
    try {
      // Before the reader's binding RBAC must refuse the token user: proof that the requests are
      // the token user's (not system:masters) and really go through Node and RBAC.
      const denied = await tokenGet(ctx, rbac.asUser);
      const message = denied.status === 403 ? (JSON.parse(denied.text) as { message?: string }).message ?? "" : "";
      if (!message.includes(`User "${user}"`)) throw new Error(`get-authz: expected 403 for ${user} before its binding, got HTTP ${denied.status}: ${denied.text.slice(0, 300)}`);
      await batch(ctx, rbac.kapi.target, readerPolicy, "the reader's ClusterRole and binding");
      await untilAllowed(ctx, rbac.asUser, "Node,RBAC");
      allow = await startOne(ctx, tokenFile, ["AlwaysAllow"]);
      await batch(ctx, allow.kapi.target, readerPolicy, "the reader's ClusterRole and binding");
      await untilAllowed(ctx, allow.asUser, "AlwaysAllow");
      // kapi has no bootstrap policy (upstream's system:basic-user lets anyone create one), so the
      // review is asked of the AlwaysAllow server; on Node,RBAC the 403 above named the user.
      groups = await checkIdentity(ctx, allow.asUser, "AlwaysAllow");
    } catch (e) {
      await Promise.all([rbac.kapi.stop(), allow?.kapi.stop()]);
      throw e;
    }
    const both = allow;
    const run = async (s: ServerHandle, t: Target) => {
      const { value: r, serverCpuPct } = await s.cpuDuring(() =>
        ctx.client.closed({ target: t, proto: "h2", connections: ctx.opts.connections, perConnection: 4, durationMs: ctx.opts.durationMs, request: { op: "get", path: getPath } }),
      );
      return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
    };
    const objects = policySize.clusterRoles + policySize.clusterRoleBindings + policySize.roleBindings;
    return {
      api: () => run(rbac.kapi, rbac.asUser),
      anchor: () => run(both.kapi, both.asUser),
      close: async () => void (await Promise.all([rbac.kapi.stop(), both.kapi.stop()])),
      notes: [
        `user ${user} (groups ${groups.join(", ")}) by bearer token, no client certificate (SelfSubjectReview on the AlwaysAllow server); denied (403, naming the user) by Node,RBAC before its ClusterRoleBinding, allowed after`,
        `${policySize.clusterRoles} ClusterRoles, ${policySize.clusterRoleBindings} ClusterRoleBindings and ${policySize.roleBindings} RoleBindings (over ${namespaces.length} namespaces) for other users, on both servers (${objects} objects in ${Math.round(rbac.setupMs)} ms and ${Math.round(both.setupMs)} ms)`,
        `response body ${rbac.body.length} bytes (AlwaysAllow: ${both.body.length})`,
      ],
    };
  },
};
