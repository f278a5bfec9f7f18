// kube-apiserver's audit flags (features/audit.ts): the policy file, the log backend (path,
// format, rotation, mode and batching) and the webhook backend (connection file, mode, batching,
// the first retry's delay). Values are checked as upstream's AuditOptions.Validate checks them,
// each backend only when it is on, with its messages.
import { goQuote } from "../../apimachinery/go-quote.js";
import { backendModes } from "../../observability/audit/backend.js";
import { logFormats } from "../../observability/audit/log-backend.js";
import { truncateDefaults } from "../../observability/audit/truncate.js";
import { boolFlag, durationFlag, floatFlag, intFlag, type FlagSpec } from "../flag-spec.js";
import type { ServerOptions } from "../options.js";

type Plugin = "log" | "webhook";

/** Every flag's value; `<plugin>Mode` is batch, blocking or blocking-strict. */
export type AuditFlags = Record<`${Plugin}Mode`, string> &
  Record<`${Plugin}BatchBufferSize` | `${Plugin}BatchMaxSize` | `${Plugin}BatchMaxWaitMs` | `${Plugin}BatchThrottleQPS` | `${Plugin}BatchThrottleBurst`, number> &
  Record<`${Plugin}BatchThrottleEnable` | `${Plugin}TruncateEnabled`, boolean> &
  Record<`${Plugin}TruncateMaxBatchSize` | `${Plugin}TruncateMaxEventSize`, number> & {
    policyFile: string;
    logPath: string;
    logMaxAge: number;
    logMaxBackup: number;
    logMaxSize: number;
    logFormat: string;
    logCompress: boolean;
    logVersion: string;
    webhookConfigFile: string;
    webhookInitialBackoffMs: number;
    webhookVersion: string;
  };

const auditGroupVersion = "audit.k8s.io/v1";

/** Upstream's defaults: the log blocks (batching would gain a file nothing), the webhook batches. */
export const auditDefaults: AuditFlags = {
  policyFile: "",
  logPath: "",
  logMaxAge: 0,
  logMaxBackup: 0,
  logMaxSize: 0,
  logFormat: "json",
  logCompress: false,
  logVersion: auditGroupVersion,
  logMode: "blocking",
  logBatchBufferSize: 10_000,
  logBatchMaxSize: 1,
  logBatchMaxWaitMs: 0,
  logBatchThrottleEnable: false,
  logBatchThrottleQPS: 0,
  logBatchThrottleBurst: 0,
  logTruncateEnabled: false,
  logTruncateMaxBatchSize: truncateDefaults.maxBatchSize,
  logTruncateMaxEventSize: truncateDefaults.maxEventSize,
  webhookConfigFile: "",
  webhookInitialBackoffMs: 10_000,
  webhookVersion: auditGroupVersion,
  webhookMode: "batch",
  webhookBatchBufferSize: 10_000,
  webhookBatchMaxSize: 400,
  webhookBatchMaxWaitMs: 30_000,
  webhookBatchThrottleEnable: true,
  webhookBatchThrottleQPS: 10,
  webhookBatchThrottleBurst: 15,
  webhookTruncateEnabled: false,
  webhookTruncateMaxBatchSize: truncateDefaults.maxBatchSize,
  webhookTruncateMaxEventSize: truncateDefaults.maxEventSize,
};

/** The audit flags given, over upstream's defaults. */
export function auditFlagsOf(o: Pick<ServerOptions, "audit">): AuditFlags {
  return { ...auditDefaults, ...o.audit };
}

function set<K extends keyof AuditFlags>(o: ServerOptions, key: K, value: AuditFlags[K]): void {
  o.audit = { ...o.audit, [key]: value };
}

const ms = (n: number) => (n % 1000 === 0 ? `${n / 1000}s` : `${n}ms`);

function batchFlags(p: Plugin): FlagSpec[] {
  const d = auditDefaults;
  const flag = (suffix: string) => `audit-${p}-${suffix}`;
  return [
    { name: flag("mode"), kind: "string", default: d[`${p}Mode`], help: `How events reach the ${p} backend: blocking (the response waits for the event), blocking-strict (as blocking, and a request whose RequestReceived event cannot be stored fails) or batch (buffered and sent on their own).`, apply: (o, v) => set(o, `${p}Mode`, v) },
    { name: flag("batch-buffer-size"), kind: "int", default: String(d[`${p}BatchBufferSize`]), help: "Events kept waiting before they are batched (batch mode); more are dropped.", apply: (o, v) => set(o, `${p}BatchBufferSize`, intFlag(flag("batch-buffer-size"), v)) },
    { name: flag("batch-max-size"), kind: "int", default: String(d[`${p}BatchMaxSize`]), help: "Events in one batch at most (batch mode).", apply: (o, v) => set(o, `${p}BatchMaxSize`, intFlag(flag("batch-max-size"), v)) },
    { name: flag("batch-max-wait"), kind: "duration", default: ms(d[`${p}BatchMaxWaitMs`]), help: "How long a batch smaller than the maximum waits before it is sent anyway (batch mode).", apply: (o, v) => set(o, `${p}BatchMaxWaitMs`, durationFlag(flag("batch-max-wait"), v)) },
    { name: flag("batch-throttle-enable"), kind: "bool", default: String(d[`${p}BatchThrottleEnable`]), help: "Whether batches are rate-limited (batch mode).", apply: (o, v) => set(o, `${p}BatchThrottleEnable`, boolFlag(flag("batch-throttle-enable"), v)) },
    { name: flag("batch-throttle-qps"), kind: "float", default: String(d[`${p}BatchThrottleQPS`]), help: "Batches a second on average when throttled (batch mode).", apply: (o, v) => set(o, `${p}BatchThrottleQPS`, Math.fround(floatFlag(flag("batch-throttle-qps"), v))) },
    { name: flag("batch-throttle-burst"), kind: "int", default: String(d[`${p}BatchThrottleBurst`]), help: "Batches that may go at once when the rate was not used before (batch mode, throttled).", apply: (o, v) => set(o, `${p}BatchThrottleBurst`, intFlag(flag("batch-throttle-burst"), v)) },
  ];
}

/** The int64 flags of upstream's truncate options. */
const int64 = (name: string, v: string) => intFlag(name, v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

function truncateFlags(p: Plugin): FlagSpec[] {
  const d = auditDefaults;
  const flag = (suffix: string) => `audit-${p}-truncate-${suffix}`;
  return [
    { name: flag("enabled"), kind: "bool", default: String(d[`${p}TruncateEnabled`]), help: `Whether events too large for the ${p} backend lose their request and response objects (or are dropped), and its batches are split by size.`, apply: (o, v) => set(o, `${p}TruncateEnabled`, boolFlag(flag("enabled"), v)) },
    { name: flag("max-batch-size"), kind: "int", default: String(d[`${p}TruncateMaxBatchSize`]), help: "Bytes of the events handed on together at most; more are split into several batches (the request sent can be a few hundred bytes larger).", apply: (o, v) => set(o, `${p}TruncateMaxBatchSize`, int64(flag("max-batch-size"), v)) },
    { name: flag("max-event-size"), kind: "int", default: String(d[`${p}TruncateMaxEventSize`]), help: "Bytes of one event at most: a larger one loses its request and response objects, and is dropped if it is still too large.", apply: (o, v) => set(o, `${p}TruncateMaxEventSize`, int64(flag("max-event-size"), v)) },
  ];
}

export const auditFlags: readonly FlagSpec[] = [
  { name: "audit-policy-file", kind: "string", default: "", help: "The audit.k8s.io/v1 Policy (YAML or JSON) deciding what is audited at which level. Without it nothing is audited.", apply: (o, v) => set(o, "policyFile", v) },
  { name: "audit-log-path", kind: "string", default: "", help: "Write audit events to this file ('-': standard output).", apply: (o, v) => set(o, "logPath", v) },
  { name: "audit-log-maxage", kind: "int", default: "0", help: "Days a rotated audit log file is kept, by the time in its name (0: no limit).", apply: (o, v) => set(o, "logMaxAge", intFlag("audit-log-maxage", v)) },
  { name: "audit-log-maxbackup", kind: "int", default: "0", help: "Rotated audit log files kept (0: no limit).", apply: (o, v) => set(o, "logMaxBackup", intFlag("audit-log-maxbackup", v)) },
  { name: "audit-log-maxsize", kind: "int", default: "0", help: "Megabytes the audit log file may reach before it is rotated (0: 100).", apply: (o, v) => set(o, "logMaxSize", intFlag("audit-log-maxsize", v)) },
  { name: "audit-log-format", kind: "string", default: "json", help: `The audit log's format: ${logFormats.join(" or ")} (legacy: one line of text per event; json: the audit.k8s.io Event).`, apply: (o, v) => set(o, "logFormat", v) },
  { name: "audit-log-compress", kind: "bool", default: "false", help: "Gzip rotated audit log files.", apply: (o, v) => set(o, "logCompress", boolFlag("audit-log-compress", v)) },
  { name: "audit-log-version", kind: "string", default: auditGroupVersion, help: "The API group and version audit events are written to the log in.", apply: (o, v) => set(o, "logVersion", v) },
  ...batchFlags("log"),
  ...truncateFlags("log"),
  { name: "audit-webhook-config-file", kind: "string", default: "", help: "A kubeconfig naming the service audit events are POSTed to (as audit.k8s.io EventLists).", apply: (o, v) => set(o, "webhookConfigFile", v) },
  { name: "audit-webhook-initial-backoff", kind: "duration", default: ms(auditDefaults.webhookInitialBackoffMs), help: "How long the first retry of a failed webhook call waits.", apply: (o, v) => set(o, "webhookInitialBackoffMs", durationFlag("audit-webhook-initial-backoff", v)) },
  { name: "audit-webhook-batch-initial-backoff", kind: "duration", default: ms(auditDefaults.webhookInitialBackoffMs), help: "Deprecated: use --audit-webhook-initial-backoff.", apply: (o, v) => set(o, "webhookInitialBackoffMs", durationFlag("audit-webhook-batch-initial-backoff", v)) },
  { name: "audit-webhook-version", kind: "string", default: auditGroupVersion, help: "The API group and version audit events are sent to the webhook in.", apply: (o, v) => set(o, "webhookVersion", v) },
  ...batchFlags("webhook"),
  ...truncateFlags("webhook"),
];

/** upstream's AuditOptions.Validate: every problem of the backends that are on, in one error. */
export function checkAuditFlags(f: AuditFlags): void {
  const errs: string[] = [];
  if (f.logPath !== "") {
    errs.push(...batchErrors("log", f));
    errs.push(...truncateErrors("log", f));
    errs.push(...groupVersionErrors(f.logVersion));
    if (!logFormats.includes(f.logFormat as never)) errs.push(`invalid audit log format ${f.logFormat}, allowed formats are ${goQuote(logFormats.join(","))}`);
    if (f.logMaxAge < 0) errs.push(`--audit-log-maxage ${f.logMaxAge} can't be a negative number`);
    if (f.logMaxBackup < 0) errs.push(`--audit-log-maxbackup ${f.logMaxBackup} can't be a negative number`);
    if (f.logMaxSize < 0) errs.push(`--audit-log-maxsize ${f.logMaxSize} can't be a negative number`);
  }
  if (f.webhookConfigFile !== "") {
    errs.push(...batchErrors("webhook", f));
    errs.push(...truncateErrors("webhook", f));
    errs.push(...groupVersionErrors(f.webhookVersion));
  }
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(", ")}]`);
}

function batchErrors(p: Plugin, f: AuditFlags): string[] {
  const mode = f[`${p}Mode`];
  if (!backendModes.includes(mode as never)) return [`invalid audit ${p} mode ${mode}, allowed modes are ${goQuote(backendModes.join(","))}`];
  if (mode !== "batch") return [];
  const positive = (what: string, v: number) => `invalid audit batch ${p} ${what} ${v}, must be a positive number`;
  if (f[`${p}BatchBufferSize`] <= 0) return [positive("buffer size", f[`${p}BatchBufferSize`])];
  if (f[`${p}BatchMaxSize`] <= 0) return [positive("max batch size", f[`${p}BatchMaxSize`])];
  if (f[`${p}BatchThrottleEnable`]) {
    if (f[`${p}BatchThrottleQPS`] <= 0) return [positive("throttle QPS", f[`${p}BatchThrottleQPS`])];
    if (f[`${p}BatchThrottleBurst`] <= 0) return [positive("throttle burst", f[`${p}BatchThrottleBurst`])];
  }
  return [];
}

/** Checked whether or not truncating is on, as upstream checks them. */
function truncateErrors(p: Plugin, f: AuditFlags): string[] {
  const event = f[`${p}TruncateMaxEventSize`];
  const batch = f[`${p}TruncateMaxBatchSize`];
  if (event <= 0) return [`invalid audit truncate ${p} max event size ${event}, must be a positive number`];
  if (batch < event) return [`invalid audit truncate ${p} max batch size ${batch}, must be greater than max event size (${event})`];
  return [];
}

function groupVersionErrors(gv: string): string[] {
  if (gv.split("/").length > 2) return [`unexpected GroupVersion string: ${gv}`];
  return gv === auditGroupVersion ? [] : [`invalid group version, allowed versions are ["${auditGroupVersion}"]`];
}
