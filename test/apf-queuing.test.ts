// API Priority and Fairness, queuing against a real server: 429 with Retry-After when a priority
// level's queue is full or a request's wait outlasts its limit, a flood from one user does not
// starve another's requests (fair queuing across their queues), and a watch holds its seat only
// while it initializes. Requests are held in execution by a read of a future resourceVersion
// (the store waits up to 3 s for it), or until the test lets them go.
import type { ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, watchEvents, type Credentials, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const base = "/apis/flowcontrol.apiserver.k8s.io/v1";

/** A level and a schema sending `subjects`' requests to it. */
async function configure(s: EmbeddedTestServer, name: string, queuing: object, subjects: object[], distinguisher?: string): Promise<{ plUID: string; fsUID: string }> {
  const pl = await req(s, "POST", `${base}/prioritylevelconfigurations`, {
    body: { metadata: { name }, spec: { type: "Limited", limited: { nominalConcurrencyShares: 1000, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: "Queue", queuing } } } },
  });
  expect(pl.status).toBe(201);
  const fs = await req(s, "POST", `${base}/flowschemas`, {
    body: {
      metadata: { name },
      spec: {
        priorityLevelConfiguration: { name },
        matchingPrecedence: 100,
        ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
        rules: [{ subjects, resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }] }],
      },
    },
  });
  expect(fs.status).toBe(201);
  await s.settle();
  return { plUID: pl.json.metadata.uid, fsUID: fs.json.metadata.uid };
}

/** The dump_priority_levels row of `level`, by column name. */
async function level(s: EmbeddedTestServer, name: string): Promise<Record<string, string>> {
  const lines = (await req(s, "GET", "/debug/api_priority_and_fairness/dump_priority_levels")).text.trimEnd().split("\n").map((l) => l.split(/,\s*/));
  const row = lines.find((l) => l[0] === name);
  if (!row) throw new Error(`no priority level ${name}`);
  return Object.fromEntries(lines[0]!.map((h, i) => [h, row[i]!]));
}

/** Polls until `level` shows what `done` wants (the server's own state, not a time). */
async function untilLevel(s: EmbeddedTestServer, name: string, done: (row: Record<string, string>) => boolean): Promise<Record<string, string>> {
  for (let i = 0; i < 500; i++) {
    const row = await level(s, name);
    if (done(row)) return row;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`priority level ${name} never got there: ${JSON.stringify(await level(s, name))}`);
}

/** A request whose connection the test can cut (its server side then gives up its wait). */
function heldRequest(s: EmbeddedTestServer, path: string, creds: Credentials): { done: Promise<number>; cut(): void } {
  const url = new URL(path, s.url);
  let r!: ClientRequest;
  const done = new Promise<number>((resolve) => {
    r = httpsRequest({ method: "GET", hostname: url.hostname, port: url.port, path: url.pathname + url.search, ca: creds.ca, headers: creds.token ? { authorization: `Bearer ${creds.token}` } : {}, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(-1));
    });
    r.on("error", () => resolve(-1));
    r.end();
  });
  return { done, cut: () => r.destroy() };
}

async function futureRevision(s: EmbeddedTestServer): Promise<number> {
  return Number((await req(s, "GET", "/api/v1/namespaces/default/configmaps")).json.metadata.resourceVersion) + 1000;
}

describe("a priority level with one seat and short queues", () => {
  let s: EmbeddedTestServer;
  let uids: { plUID: string; fsUID: string };
  beforeAll(async () => {
    // One seat for the whole server: every limited level gets one.
    s = await startTestServer({ options: { maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 } });
    uids = await configure(s, "tiny", { queues: 1, handSize: 1, queueLengthLimit: 2 }, [{ kind: "Group", group: { name: "system:unauthenticated" } }]);
  });
  afterAll(async () => s?.stop());

  it("queues while the seat is taken, refuses with 429 and Retry-After when the queue is full or a wait outlasts its limit", async () => {
    const future = await futureRevision(s);
    const held = heldRequest(s, `/api/v1/namespaces/default/configmaps/none?resourceVersion=${future}`, s.anonymous);
    await untilLevel(s, "tiny", (r) => r.ExecutingRequests === "1");
    const queued = req(s, "GET", "/api/v1/namespaces/default", { creds: s.anonymous });
    await untilLevel(s, "tiny", (r) => r.WaitingRequests === "1");

    // A deadline of 400 ms allows a wait of a quarter of it: the request leaves its queue, refused.
    const impatient = await req(s, "GET", "/api/v1/namespaces/default?timeout=400ms", { creds: s.anonymous });
    expect(impatient.status).toBe(429);
    expect(impatient.headers["retry-after"]).toBe("1");

    const second = req(s, "GET", "/api/v1/namespaces/kube-system", { creds: s.anonymous });
    await untilLevel(s, "tiny", (r) => r.WaitingRequests === "2");
    const refused = await req(s, "GET", "/api/v1/namespaces", { creds: s.anonymous });
    expect(refused.status).toBe(429);
    expect(refused.text).toBe("Too many requests, please try again later.\n");
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect([refused.headers["x-kubernetes-pf-flowschema-uid"], refused.headers["x-kubernetes-pf-prioritylevel-uid"]]).toEqual([uids.fsUID, uids.plUID]);

    // Two read-only requests wait: the in-queue watermark shows them.
    const waiting = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    expect(waiting.families.get("apiserver_current_inqueue_requests")?.help).toMatch(/^\[ALPHA\] /);
    expect(waiting.find("apiserver_current_inqueue_requests", { request_kind: "readOnly" }).map((x) => x.value)).toEqual([2]);
    expect(waiting.find("apiserver_current_inqueue_requests", { request_kind: "mutating" }).map((x) => x.value)).toEqual([0]);

    // What waits and what executes, as the dumps show it.
    const queues = (await req(s, "GET", "/debug/api_priority_and_fairness/dump_queues")).text.split("\n").filter((l) => l.startsWith("tiny,"));
    expect(queues.map((l) => l.split(/,\s*/).slice(0, 5))).toEqual([["tiny", "0", "2", "1", "1"]]);
    const requests = (await req(s, "GET", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1")).text.split("\n").filter((l) => l.startsWith("tiny,"));
    expect(requests.map((l) => l.split(/,\s*/)).map((c) => [c[1], c[2], c[3], c[10], c[12]])).toEqual(
      expect.arrayContaining([
        ["tiny", "0", "0", "system:anonymous", "/api/v1/namespaces/default"],
        ["tiny", "0", "1", "system:anonymous", "/api/v1/namespaces/kube-system"],
        ["tiny", "0", "-1", "system:anonymous", "/api/v1/namespaces/default/configmaps/none"],
      ]),
    );

    held.cut();
    expect((await queued).status).toBe(200);
    expect((await second).status).toBe(200);
    const row = await untilLevel(s, "tiny", (r) => r.ExecutingRequests === "0");
    expect(row).toMatchObject({ WaitingRequests: "0", RejectedRequests: "2", CancelledRequests: "1" });
    const metrics = (await req(s, "GET", "/metrics")).text;
    expect(metrics).toContain('apiserver_flowcontrol_rejected_requests_total{flow_schema="tiny",priority_level="tiny",reason="queue-full"} 1');
    expect(metrics).toContain('apiserver_flowcontrol_rejected_requests_total{flow_schema="tiny",priority_level="tiny",reason="time-out"} 1');
    expect(metrics).toMatch(/apiserver_flowcontrol_request_wait_duration_seconds_count\{execute="false",flow_schema="tiny",priority_level="tiny"\} 2/);
    // Both refusals were terminations in self-defence, labelled as the requests were.
    const page = parseMetricsPage(metrics);
    const terminated = (labels: Record<string, string>) => page.find("apiserver_request_terminations_total", { code: "429", component: "apiserver", resource: "namespaces", ...labels }).map((x) => x.value);
    expect(terminated({ verb: "GET", scope: "resource" })).toEqual([1]);
    expect(terminated({ verb: "LIST", scope: "cluster" })).toEqual([1]);
  });

  it("frees a watch's seat once its initial events are sent", async () => {
    const events = watchEvents(s, "/api/v1/namespaces?watch=true&timeoutSeconds=30", (e) => e.length >= 1000, 30_000, s.anonymous);
    await events.opened;
    // The watch stays open, and the level's one seat serves the next request at once.
    const row = await untilLevel(s, "tiny", (r) => r.ExecutingRequests === "0");
    expect(row.WaitingRequests).toBe("0");
    expect((await req(s, "GET", "/api/v1/namespaces/default", { creds: s.anonymous })).status).toBe(200);
    const metrics = (await req(s, "GET", "/metrics")).text;
    expect(metrics).toMatch(/apiserver_flowcontrol_request_execution_seconds_count\{flow_schema="tiny",priority_level="tiny",type="watch"\} 1/);
  });
});

describe("a flood from one user", () => {
  let s: EmbeddedTestServer;
  let alice: Credentials;
  let bob: Credentials;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-apf-"));
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, 'alice-token,alice,1,"devs"\nbob-token,bob,2,"devs"\n');
    // Two seats for the whole server; the level below takes both.
    s = await startTestServer({ options: { maxRequestsInflight: 2, maxMutatingRequestsInflight: 0, tokenAuthFile: tokens } });
    alice = s.as("alice-token");
    bob = s.as("bob-token");
    // One queue per user (hand size 1), long enough to hold the whole flood.
    await configure(s, "shared", { queues: 16, handSize: 1, queueLengthLimit: 20 }, [{ kind: "User", user: { name: "alice" } }, { kind: "User", user: { name: "bob" } }], "ByUser");
  });
  afterAll(async () => s?.stop());

  it("does not starve another user's requests", async () => {
    const future = await futureRevision(s);
    // 2 execute (each holds its seat for up to 3 s), 20 wait in alice's queue.
    const flood = Array.from({ length: 22 }, () => heldRequest(s, `/api/v1/namespaces/default/configmaps/none?resourceVersion=${future}`, alice));
    await untilLevel(s, "shared", (r) => r.ExecutingRequests === "2" && r.WaitingRequests === "20");

    // In arrival order bob would wait behind the 20 (ten rounds of 3 s, past his 15 s wait
    // limit); fair queuing serves his queue as soon as a seat frees.
    const bobs = await Promise.all([1, 2, 3].map(() => req(s, "GET", "/api/v1/namespaces/default", { creds: bob })));
    expect(bobs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(Number((await level(s, "shared")).WaitingRequests)).toBeGreaterThanOrEqual(14);
    for (const f of flood) f.cut();
    await Promise.all(flood.map((f) => f.done));
  });
});
