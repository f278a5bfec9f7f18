// The audit backends the flags ask for, each behind its mode: the log (a rotating file, or
// standard output) and the webhook (EventLists POSTed through the kubeconfig's connection, every
// failure retried with upstream's backoff from --audit-webhook-initial-backoff).
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { ignoringErrors, type AuditBackend, type BackendMode, type PluginErrors } from "../../observability/audit/backend.js";
import { BufferedBackend, type BatchConfig } from "../../observability/audit/buffered.js";
import { LogBackend, stdoutSink, type LogFormat } from "../../observability/audit/log-backend.js";
import { RotatingFile } from "../../observability/audit/rotating-file.js";
import { TruncatingBackend } from "../../observability/audit/truncate.js";
import { WebhookBackend } from "../../observability/audit/webhook-backend.js";
import { CallError, genericMessage, post, withBackoff } from "../../webhook/client.js";
import { loadWebhookKubeconfig } from "../../webhook/kubeconfig.js";
import type { AuditFlags } from "./audit-flags.js";

type Plugin = "log" | "webhook";

export function logBackend(f: AuditFlags, errors: PluginErrors, report: (message: string) => void): AuditBackend {
  const out = f.logPath === "-" ? stdoutSink : new RotatingFile(ensureLogFile(f.logPath), { maxSizeMB: f.logMaxSize, maxBackups: f.logMaxBackup, maxAgeDays: f.logMaxAge, compress: f.logCompress }, Date.now, report);
  const log = new LogBackend(out, { format: f.logFormat as LogFormat, groupCommit: f.logMode === "blocking", errors });
  // Blocking mode is the log's own (group commit, failures only counted); upstream's batch mode
  // hands the log one event at a time from the batching loop itself.
  return truncating(f.logMode === "blocking" ? log : withMode(log, "log", f, { asyncDelegate: false }, errors), "log", f, errors);
}

export function webhookBackend(f: AuditFlags, errors: PluginErrors): AuditBackend {
  let conn;
  try {
    conn = loadWebhookKubeconfig(f.webhookConfigFile);
  } catch (e) {
    throw new Error(`initializing audit webhook: ${(e as Error).message}`);
  }
  const backoff = { durationMs: f.webhookInitialBackoffMs, factor: 1.5, jitter: 0.2, steps: 5 };
  // Every failure is retried (upstream: an event not delivered is an event lost).
  const once = async (body: Buffer) => {
    let res;
    try {
      res = await post(conn, body, { userAgent: "kapi/audit-webhook" });
    } catch (e) {
      throw new CallError((e as Error).message, true);
    }
    if (res.status < 200 || res.status > 299) throw new CallError(genericMessage(res.status, res.body.toString("utf8").slice(0, 1024)), true);
  };
  const webhook = new WebhookBackend((body) => withBackoff(backoff, () => once(body)), errors);
  return truncating(withMode(webhook, "webhook", f, { asyncDelegate: true }, errors), "webhook", f, errors);
}

/** Upstream puts the truncating backend in front of the mode's: events are cut before they are queued. */
function truncating(b: AuditBackend, p: Plugin, f: AuditFlags, errors: PluginErrors): AuditBackend {
  if (!f[`${p}TruncateEnabled`]) return b;
  return new TruncatingBackend(b, { maxEventSize: f[`${p}TruncateMaxEventSize`], maxBatchSize: f[`${p}TruncateMaxBatchSize`] }, errors);
}

function withMode(b: AuditBackend, p: Plugin, f: AuditFlags, o: Pick<BatchConfig, "asyncDelegate">, errors: PluginErrors): AuditBackend {
  const mode = f[`${p}Mode`] as BackendMode;
  if (mode === "blocking-strict") return b;
  if (mode === "blocking") return ignoringErrors(b);
  return new BufferedBackend(
    b,
    {
      bufferSize: f[`${p}BatchBufferSize`],
      maxBatchSize: f[`${p}BatchMaxSize`],
      maxBatchWaitMs: f[`${p}BatchMaxWaitMs`],
      throttleEnable: f[`${p}BatchThrottleEnable`],
      throttleQPS: f[`${p}BatchThrottleQPS`],
      throttleBurst: f[`${p}BatchThrottleBurst`],
      ...o,
    },
    errors,
  );
}

/** The log file exists and can be appended to before the server starts (upstream's ensureLogFile). */
function ensureLogFile(path: string): string {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, "a", 0o600));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // A recursive mkdir meeting a file on the way says EEXIST; Go's MkdirAll says what it is.
    const why = err.code === "EACCES" ? "permission denied" : err.code === "EISDIR" ? "is a directory" : err.code === "ENOTDIR" || err.code === "EEXIST" ? "not a directory" : err.message;
    throw new Error(`ensureLogFile: ${err.syscall === "mkdir" ? "mkdir" : "open"} ${err.path ?? path}: ${why}`);
  }
  return path;
}
