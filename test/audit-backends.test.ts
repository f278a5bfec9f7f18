// The audit backends and their flags end to end: the log file's rotation and legacy format, the
// webhook backend receiving EventLists over HTTPS (blocking and batch modes, retries), a
// blocking-strict backend that cannot store an event failing the request, standard output with
// `kapi serve --audit-log-path=-`, and bad policy files and flags refusing the start with
// upstream's messages.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCert } from "../src/authn/pki.testkit.js";
import { startServer } from "../src/index.js";
import { auditLog } from "./support/audit-log.js";
import { asTestServer, runKapi, serveKapi } from "./support/cli.js";
import { req, watchEvents, withCredentials } from "./support/client.js";
import { Heard } from "./support/heard.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { until } from "./support/until.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const configMapsAt = (level: string) => ({ rules: [{ level, resources: [{ group: "", resources: ["configmaps"] }] }, { level: "None" }] });

describe("the log backend", () => {
  it("rotates at --audit-log-maxsize, keeping --audit-log-maxbackup files of whole events", async () => {
    const log = auditLog(configMapsAt("RequestResponse"), { logMaxSize: 1, logMaxBackup: 1 });
    const s = withCredentials(await startServer({ options: log.options }));
    try {
      const data = { blob: "x".repeat(300 * 1024) };
      for (let i = 0; i < 8; i++) expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: `big-${i}` }, data } })).status).toBe(201);
    } finally {
      await s.stop();
    }
    const files = readdirSync(log.dir).filter((f) => f.startsWith("audit"));
    expect(files.sort()).toEqual([expect.stringMatching(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/), "audit.log"]);
    const lines = files.flatMap((f) => readFileSync(join(log.dir, f), "utf8").split("\n").filter(Boolean));
    for (const f of files) expect(readFileSync(join(log.dir, f)).length).toBeLessThanOrEqual(1024 * 1024);
    const created = lines.map((l) => JSON.parse(l)).filter((e) => e.stage === "ResponseComplete").map((e) => e.objectRef.name);
    // The oldest events went with the rotated file that was dropped; the newest are all there.
    expect(created.length).toBeGreaterThan(0);
    expect(created.at(-1)).toBe("big-7");
  });

  it("writes upstream's legacy lines with --audit-log-format=legacy", async () => {
    const log = auditLog(configMapsAt("Metadata"), { logFormat: "legacy" });
    const s = withCredentials(await startServer({ options: log.options }));
    try {
      await req(s, "GET", "/api/v1/namespaces/default/configmaps?limit=5", { headers: { "audit-id": "legacy-1", "user-agent": "audit-test" } });
    } finally {
      await s.stop();
    }
    const lines = readFileSync(log.path, "utf8").split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT\S+ AUDIT: id="legacy-1" stage="ResponseComplete" ip="127.0.0.1" method="list" user="kapi-admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="audit-test" namespace="default" uri="\/api\/v1\/namespaces\/default\/configmaps\?limit=5" response="200"$/);
  });

  it("writes to standard output with `kapi serve --audit-log-path=-`", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-audit-stdout-"));
    const log = auditLog(configMapsAt("Metadata"));
    const k = await serveKapi(["--data-dir", dir, "--secure-port=0", "--bind-address=127.0.0.1", `--audit-policy-file=${log.policyFile}`, "--audit-log-path=-"]);
    const out = new Heard<string>(); // a child's output, heard as it comes
    k.proc.stdout!.on("data", (c) => out.push(String(c)));
    try {
      const s = asTestServer(k.url, dir);
      await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { "audit-id": "to-stdout" } });
      await out.until("the ResponseComplete event", (chunks) => chunks.join("").includes('"stage":"ResponseComplete"'));
    } finally {
      k.proc.kill("SIGTERM");
    }
    const events = out.items.join("").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(events.map((e) => [e.auditID, e.stage])).toEqual([["to-stdout", "RequestReceived"], ["to-stdout", "ResponseComplete"]]);
  });
});

describe("truncating (--audit-log-truncate-*)", () => {
  it("kubectl's large create keeps its metadata without the objects, marked truncated; a Metadata event still too large is dropped and counted", async () => {
    const bin = kubectlBinary(33) ?? kubectlBinary(32);
    const log = auditLog(
      { rules: [{ level: "RequestResponse", namespaces: ["default"], resources: [{ group: "", resources: ["configmaps"] }] }, { level: "Metadata", resources: [{ group: "", resources: ["secrets"] }] }, { level: "None" }] },
      { logTruncateEnabled: true, logTruncateMaxEventSize: 4096, logTruncateMaxBatchSize: 8192 },
    );
    const server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-audit-trunc-")), options: log.options });
    const s = withCredentials(server);
    try {
      const big = "x".repeat(8000);
      if (bin) {
        const k = await kubectl(bin, server.kubeconfigPath!, ["create", "configmap", "big", `--from-literal=blob=${big}`]);
        expect(k.stderr).toBe("");
      } else expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "big" }, data: { blob: big } } })).status).toBe(201);
      expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "small" }, data: { a: "b" } } })).status).toBe(201);
      // A Metadata event has no objects to drop: one over the size (a long request URI) is lost, both its stages.
      const r = await req(s, "GET", `/api/v1/namespaces/default/secrets?labelSelector=${"a".repeat(5000)}`, { headers: { "audit-id": "too-big" } });
      expect(r.status).toBe(400);
      const events = log.events();
      const id = events.find((e) => e.verb === "create" && e.objectRef?.name === "big").auditID;
      const created = events.filter((e) => e.auditID === id);
      expect(created.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
      // RequestReceived comes before the body is read: small, and as it was.
      expect(created[0].annotations?.["audit.k8s.io/truncated"]).toBeUndefined();
      expect(created[1].requestObject).toBeUndefined();
      expect(created[1].annotations["audit.k8s.io/truncated"]).toBe("true");
      expect(created[1]).toMatchObject({ level: "RequestResponse", responseStatus: { code: 201 }, objectRef: { resource: "configmaps", namespace: "default", name: "big" } });
      expect(created[1].responseObject).toBeUndefined();
      const small = events.find((e) => e.stage === "ResponseComplete" && e.objectRef?.name === "small");
      expect(small.requestObject.data).toEqual({ a: "b" });
      expect(small.annotations["audit.k8s.io/truncated"]).toBeUndefined();
      expect(events.filter((e) => e.auditID === "too-big")).toEqual([]);
      const page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
      expect(page.find("apiserver_audit_error_total").map((m) => [m.labels, m.value])).toEqual([[{ plugin: "truncate" }, 2]]);
    } finally {
      await server.stop();
    }
  });
});

/** A loopback HTTPS receiver of audit EventLists, and the kubeconfig that points at it. */
async function receiver(answer: (n: number, body: any) => number | Promise<number> = () => 200) {
  const ca = await makeCert({ commonName: "audit-receiver-ca" });
  const serving = await makeCert({ commonName: "audit-receiver", issuer: ca, usage: "server", ips: ["127.0.0.1"] });
  // What it received, heard as it arrives (the batch backend sends when its wait is over).
  const heard = new Heard<any>();
  const lists = heard.items;
  let calls = 0;
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (r, res) => {
    const chunks: Buffer[] = [];
    r.on("data", (c) => chunks.push(c));
    r.on("end", async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const code = await answer(++calls, body);
      if (code === 200) heard.push({ contentType: r.headers["content-type"], method: r.method, body });
      res.writeHead(code, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), "kapi-audit-hook-"));
  const kubeconfig = join(dir, "webhook.kubeconfig");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: sink
  cluster:
    server: https://127.0.0.1:${port}/audit
    certificate-authority-data: ${Buffer.from(ca.certPem).toString("base64")}
contexts:
- name: sink
  context: {cluster: sink, user: ""}
current-context: sink
users: []
`,
  );
  return { lists, heard, kubeconfig, calls: () => calls, items: () => lists.flatMap((l) => l.body.items), close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe("the webhook backend", () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  let failing = 0;
  /** How long the receiver takes to answer a list holding a ResponseComplete event. */
  let completeDelayMs = 0;
  beforeAll(async () => {
    hook = await receiver(async (_, body) => {
      if (failing-- > 0) return 500;
      if (completeDelayMs > 0 && body.items.some((e: any) => e.stage === "ResponseComplete")) await new Promise((r) => setTimeout(r, completeDelayMs));
      return 200;
    });
  });
  afterAll(async () => hook?.close());

  it("blocking: the EventList is delivered before the response, retried after a failure", async () => {
    const log = auditLog(configMapsAt("Metadata"), { webhookConfigFile: hook.kubeconfig, webhookMode: "blocking", webhookInitialBackoffMs: 20, logPath: "" });
    const s = withCredentials(await startServer({ options: log.options }));
    try {
      failing = 1;
      // A slow receiver: the response's last bytes wait for the event, not only its end.
      completeDelayMs = 200;
      const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { "audit-id": "hooked" } });
      completeDelayMs = 0;
      expect(r.status).toBe(200);
      const mine = hook.items().filter((e) => e.auditID === "hooked");
      expect(mine.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
      expect(hook.lists[0]).toMatchObject({ method: "POST", contentType: "application/json", body: { kind: "EventList", apiVersion: "audit.k8s.io/v1", metadata: {} } });
      expect(mine[1]).toMatchObject({ level: "Metadata", verb: "list", objectRef: { resource: "configmaps", namespace: "default" }, responseStatus: { code: 200 } });
      expect(mine[1].kind).toBeUndefined();
    } finally {
      await s.stop();
    }
  });

  it("blocking: a watch's head waits until the webhook took its ResponseStarted event; the stages arrive in order", async () => {
    let release!: () => void;
    const released = new Promise<number>((r) => (release = () => r(200)));
    const seen: string[] = [];
    const held = await receiver((_, body) => {
      for (const e of body.items) if (e.verb === "watch") seen.push(e.stage);
      return body.items.some((e: any) => e.verb === "watch" && e.stage === "ResponseStarted") ? released : 200;
    });
    const log = auditLog(configMapsAt("Metadata"), { webhookConfigFile: held.kubeconfig, webhookMode: "blocking", logPath: "" });
    const s = withCredentials(await startServer({ options: log.options }));
    try {
      let opened = false;
      const w = watchEvents(s, "/api/v1/namespaces/default/configmaps?watch=1", (evs) => evs.some((e) => e.object.metadata.name === "seen-by-watch"));
      void w.opened.then(() => (opened = true));
      await until("the ResponseStarted event at the webhook", () => seen.includes("ResponseStarted"), 5000, 10);
      // The webhook has the event but has not answered: the client has no head yet.
      await new Promise((r) => setTimeout(r, 150));
      expect(opened).toBe(false);
      release();
      await w.opened;
      expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "seen-by-watch" } } })).status).toBe(201);
      expect((await w).at(-1)).toMatchObject({ type: "ADDED", object: { metadata: { name: "seen-by-watch" } } });
      await until("the ResponseComplete event at the webhook", () => seen.includes("ResponseComplete"), 5000, 10);
      expect(held.items().filter((e) => e.verb === "watch").map((e) => e.stage)).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
    } finally {
      await s.stop();
      await held.close();
    }
  });

  it("batch: events are sent together once the batch's wait is over", async () => {
    const log = auditLog(configMapsAt("Metadata"), { webhookConfigFile: hook.kubeconfig, webhookBatchMaxWaitMs: 200, webhookBatchMaxSize: 50, logPath: "" });
    const s = withCredentials(await startServer({ options: log.options }));
    const before = hook.lists.length;
    try {
      for (let i = 0; i < 3; i++) await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { "audit-id": `batched-${i}` } });
      await hook.heard.until("6 batched events", () => hook.items().filter((e) => String(e.auditID).startsWith("batched-")).length >= 6);
    } finally {
      await s.stop();
    }
    const batches = hook.lists.slice(before).map((l) => l.body.items.filter((e: any) => String(e.auditID).startsWith("batched-")).length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(6);
    expect(Math.max(...batches)).toBeGreaterThan(1);
  });

  it("blocking-strict: a request whose RequestReceived event cannot be delivered fails with 500, counted", async () => {
    const gone = await receiver(() => 503);
    const log = auditLog(configMapsAt("Metadata"), { webhookConfigFile: gone.kubeconfig, webhookMode: "blocking-strict", webhookInitialBackoffMs: 5, logPath: "" });
    const s = withCredentials(await startServer({ options: log.options }));
    try {
      const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps");
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ reason: "InternalError", message: "Internal error occurred: failed to store audit event" });
      expect(gone.calls()).toBe(5); // upstream's five attempts
      const page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
      expect(page.find("apiserver_audit_requests_rejected_total").map((m) => m.value)).toEqual([1]);
      expect(page.find("apiserver_audit_error_total").map((m) => [m.labels, m.value])).toEqual([[{ plugin: "webhook" }, 1]]);
    } finally {
      await s.stop();
      await gone.close();
    }
  });
});

describe("refusing to start", () => {
  const start = (options: Record<string, unknown>) =>
    startServer({ options }).then(
      async (s) => (await s.stop(), "started"),
      (e: Error) => e.message,
    );

  it("on a bad policy file, naming it and the problem", async () => {
    const log = auditLog("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n");
    expect(await start(log.options)).toBe(`loading audit policy file: rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${log.policyFile}`);
    const empty = auditLog("apiVersion: audit.k8s.io/v1\nkind: Policy\n");
    expect(await start(empty.options)).toBe(`loading audit policy file: loaded illegal policy with 0 rules: from file ${empty.policyFile}`);
    const cli = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", `--audit-policy-file=${log.policyFile}`]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`kapi: loading audit policy file: rules[0].level: Unsupported value: "Loud"`);
  });

  it("on bad flags, with upstream's messages", async () => {
    const log = auditLog();
    expect(await start({ audit: { ...log.options.audit, logMode: "sometimes" } })).toBe('invalid audit log mode sometimes, allowed modes are "batch,blocking,blocking-strict"');
    expect(await start({ audit: { ...log.options.audit, logMaxAge: -1, logFormat: "xml" } })).toBe(`[invalid audit log format xml, allowed formats are "legacy,json", --audit-log-maxage -1 can't be a negative number]`);
    writeFileSync(join(log.dir, "a-file"), "");
    expect(await start({ audit: { ...log.options.audit, logPath: join(log.dir, "a-file", "audit.log") } })).toMatch(/^ensureLogFile: mkdir \S*a-file\S*: not a directory$/);
    expect(await start({ audit: { ...log.options.audit, logTruncateMaxEventSize: 0 } })).toBe("invalid audit truncate log max event size 0, must be a positive number");
    // Checked whether or not truncating is on, as upstream checks them.
    expect(await start({ audit: { ...log.options.audit, logTruncateMaxBatchSize: 10 } })).toBe("invalid audit truncate log max batch size 10, must be greater than max event size (102400)");
    const cli = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", "--audit-webhook-config-file=/x", "--audit-webhook-batch-throttle-qps=fast"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('invalid argument "fast" for "--audit-webhook-batch-throttle-qps" flag: strconv.ParseFloat: parsing "fast": invalid syntax');
  });
});
