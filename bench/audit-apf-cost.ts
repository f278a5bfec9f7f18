// `npx tsx bench/audit-apf-cost.ts [durationMs] [name part]`: what auditing at Metadata (to a log file, blocking
// mode) and priority and fairness (the bootstrap configuration, an exempt admin and a
// global-default user) add to one GET, in CPU µs per request, without HTTP: the real filters over
// a recording exchange in front of a handler that answers a small object, run in turns of 64
// concurrent requests (the log's group commit shares one write per turn), beside the handler
// alone. Then the core of each without the filters around it (the harness's own garbage makes
// the first figures move with the collector): one request's audit event at its two stages
// encoded into the log's buffer, and one request's classification, dispatch and finish.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Dispatcher } from "../src/controllers/flowcontrol/dispatcher.js";
import { DroppedRequestsTracker } from "../src/controllers/flowcontrol/dropped-requests.js";
import { WatchTracker } from "../src/controllers/flowcontrol/watch-tracker.js";
import { workEstimator } from "../src/controllers/flowcontrol/work-estimator.js";
import { jsonCodec } from "../src/encoding/codec.js";
import { recordingContext } from "../src/http/recording-exchange.testkit.js";
import { writeObject } from "../src/http/respond.js";
import { auditing } from "../src/observability/audit/auditing.js";
import { microNow } from "../src/observability/audit/micro-time.js";
import { RequestAudit } from "../src/observability/audit/request-audit.js";
import { LogBackend } from "../src/observability/audit/log-backend.js";
import { AuditMetrics } from "../src/observability/audit/metrics.js";
import { PolicyEvaluator } from "../src/observability/audit/policy.js";
import { RotatingFile } from "../src/observability/audit/rotating-file.js";
import { FlowControlMetrics } from "../src/observability/flowcontrol-metrics.js";
import { auditFilter, auditInitFilter } from "../src/server/filters/audit.js";
import { compose, type Filter, type Handler } from "../src/server/filters/filter.js";
import { priorityAndFairnessFilter } from "../src/server/filters/priority-and-fairness.js";
import { isLongRunning } from "../src/server/long-running.js";
import { toApiError } from "../src/handlers/errors.js";
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from "../src/types/flowcontrol-bootstrap.js";
import type { UserInfo } from "../src/apimachinery/user.js";
import type { RequestInfo } from "../src/http/request-info.js";
import { randomUUID } from "node:crypto";

const durationMs = Number(process.argv[2] ?? 2000);
/** Only the set-ups whose name contains this (to profile one). */
const only = process.argv[3];
const admin: UserInfo = { name: "admin", groups: ["system:masters", "system:authenticated"] };
const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };
const pod = { kind: "Pod", apiVersion: "v1", metadata: { name: "p", namespace: "default", uid: "6c0b2f5e-1d7f-4a39-9d0e-3f2b1a0c9e11", resourceVersion: "12" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
const handler: Handler = async (ctx) => writeObject(ctx.ex, 200, pod, jsonCodec);

const dir = mkdtempSync(join(tmpdir(), "audit-apf-cost-"));
const file = new RotatingFile(join(dir, "audit.log"), { maxSizeMB: 100, maxBackups: 1, maxAgeDays: 0, compress: false });
const log = new LogBackend(file, { format: "json", groupCommit: true, errors: () => undefined });
const a = auditing(new PolicyEvaluator({ rules: [{ level: "Metadata" }] }), log, new AuditMetrics());
const auditFilters = (x: typeof a): Filter[] => [auditInitFilter(x), auditFilter(x, { isLongRunning, toApiError })];
const audit = auditFilters(a);
// The parts of the cost: the Audit-Id alone; the audited exchange and the policy's decision (None);
// the events made but taken by a backend that keeps nothing.
const noneAudit = auditFilters(auditing(new PolicyEvaluator({ rules: [{ level: "None" }] }), log, new AuditMetrics()));
const discarding = { name: "discard", processEvents: () => true, shutdown: async () => undefined };
const unwrittenAudit = auditFilters(auditing(new PolicyEvaluator({ rules: [{ level: "Metadata" }] }), discarding, new AuditMetrics()));

const fcMetrics = new FlowControlMetrics();
const dispatcher = new Dispatcher({ serverConcurrencyLimit: 600, metrics: fcMetrics });
dispatcher.digest([...mandatoryPriorityLevels(), ...suggestedPriorityLevels()], [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]);
const watches = new WatchTracker();
const apf: Filter[] = [
  priorityAndFairnessFilter({
    dispatcher,
    watches,
    metrics: fcMetrics,
    dropped: new DroppedRequestsTracker(),
    isLongRunning,
    requestTimeoutMs: 60_000,
    estimate: workEstimator({ objectCount: () => undefined, watches, maxSeats: (pl) => dispatcher.maxSeats(pl), watchList: true }),
  }),
];

const chains: [string, (ctx: Parameters<Handler>[0]) => Promise<void>, UserInfo][] = [
  ["handler alone", compose([], handler), admin],
  ["audit: Audit-Id only", compose([auditInitFilter(undefined)], handler), admin],
  ["audit: policy None", compose(noneAudit, handler), admin],
  ["audit: Metadata, not written", compose(unwrittenAudit, handler), admin],
  ["audit (Metadata, log file)", compose(audit, handler), admin],
  ["APF, exempt admin", compose(apf, handler), admin],
  ["APF, global-default user", compose(apf, handler), alice],
  ["audit + APF (exempt admin)", compose([...audit, ...apf], handler), admin],
];

const chosen = only ? chains.filter(([name]) => name === "handler alone" || name.includes(only)) : chains;
const turn = 64;

async function measure(run: (ctx: Parameters<Handler>[0]) => Promise<void>, user: UserInfo, ms: number): Promise<number> {
  let n = 0;
  const startCpu = process.cpuUsage();
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const all: Promise<void>[] = [];
    for (let i = 0; i < turn; i++) {
      const { ctx } = recordingContext({ user, path: "/api/v1/namespaces/default/pods/p", headers: { "user-agent": "bench/v1.0 (linux/amd64)", accept: "application/json" }, socket: { remoteAddress: "127.0.0.1" } });
      all.push(run(ctx));
    }
    await Promise.all(all);
    n += turn;
  }
  const cpu = process.cpuUsage(startCpu);
  return (cpu.user + cpu.system) / n;
}

const base = new Map<string, number>();
for (const [, run, user] of chosen) await measure(run, user, 300); // warm-up
const results: [string, number][] = [];
for (let round = 0; round < 3; round++) {
  for (const [name, run, user] of chosen) {
    const us = await measure(run, user, durationMs / 3);
    base.set(name, Math.min(base.get(name) ?? Infinity, us));
  }
}
const alone = base.get("handler alone")!;
for (const [name] of chosen) results.push([name, base.get(name)!]);
for (const [name, us] of results) process.stdout.write(`${name.padEnd(30)} ${us.toFixed(1).padStart(6)} µs/request CPU${name === "handler alone" ? "" : `  (+${(us - alone).toFixed(1)})`}\n`);
await log.shutdown();
rmSync(dir, { recursive: true, force: true });

// The cores, timed in a loop: the best of 7 rounds of CPU time.
function core(name: string, fn: () => void, n = 50_000): void {
  for (let i = 0; i < n; i++) fn();
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) fn();
    const c = process.cpuUsage(t);
    best = Math.min(best, (c.user + c.system) / n);
  }
  process.stdout.write(`${name.padEnd(30)} ${best.toFixed(2).padStart(6)} µs/request CPU\n`);
}

const discardLog = new LogBackend({ write: () => undefined, writeBytes: () => undefined, close: () => undefined }, { format: "json", groupCommit: false, errors: () => undefined });
const toLog = { process: (r: Parameters<typeof discardLog.processEvents>[0][number]) => discardLog.processEvents([r]) };
const metadata = { level: "Metadata" as const, omitStages: [], omitManagedFields: false };
core("core: audit event, 2 stages", () => {
  const ra = new RequestAudit(randomUUID(), microNow(), toLog);
  ra.init(metadata, { requestURI: "/api/v1/namespaces/default/pods/p", verb: "get", sourceIPs: ["127.0.0.1"], userAgent: "bench/v1.0 (linux/amd64)", user: { username: admin.name, groups: admin.groups }, objectRef: { resource: "pods", namespace: "default", name: "p", apiGroup: "", apiVersion: "v1", subresource: "" } });
  void ra.received();
  ra.annotate("authorization.k8s.io/decision", "allow");
  ra.annotate("authorization.k8s.io/reason", 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"');
  void ra.responseStarted(200);
  void ra.complete();
});
const getPod = { isResourceRequest: true, path: "/api/v1/namespaces/default/pods/p", verb: "get", apiPrefix: "api", apiGroup: "", apiVersion: "v1", namespace: "default", resource: "pods", subresource: "", name: "p", parts: [] } as unknown as RequestInfo;
const oneSeat = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };
for (const [name, user] of [["exempt admin", admin], ["global-default user", alice]] as const) {
  core(`core: APF, ${name}`, () => {
    const c = dispatcher.classify(getPod, user);
    const req = dispatcher.start(c, oneSeat, fcMetrics.series(c.pl.metadata.name, c.fs.metadata.name), { user, info: getPod })!;
    req.qs.noteDispatched();
    dispatcher.finished(c.state, req);
  });
}
