// Graceful shutdown and HTTP/2 rebalancing against a real server: --shutdown-delay-duration keeps
// serving while /readyz fails; then the drain refuses new requests (429 with Retry-After and
// Connection: close under --shutdown-send-retry-after, else 503 on connections still open and a
// GOAWAY to HTTP/2 clients), ends watches, and lets the requests in flight finish; --goaway-chance
// sends HTTP/2 clients a GOAWAY on about that share of requests without failing any.
import type { ClientHttp2Session } from "node:http2";
import { Agent, request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allow, startAdmissionWebhookServer, type AdmissionWebhookServer } from "../src/admission/webhook/server.testkit.js";
import { h2session, req, startTestServer, watchEvents, type EmbeddedTestServer, type RawResponse } from "./support/client.js";

let hooks: AdmissionWebhookServer;
/** Resolves when the slow webhook has received the review of the object named `name`. */
const reviewArrived = new Map<string, () => void>();

beforeAll(async () => {
  hooks = await startAdmissionWebhookServer();
  hooks.on("/slow", (r) => {
    reviewArrived.get(r.request.name)?.();
    return { ...allow(r), delayMs: String(r.request.name).startsWith("inflight") ? 4000 : 0 };
  });
});
afterAll(async () => hooks?.close());

/** A server whose creates of configmaps in `default` pass a webhook that holds "inflight*" ones 4 s. */
async function serverWithSlowWebhook(options: Record<string, unknown>): Promise<EmbeddedTestServer> {
  const s = await startTestServer({ options });
  const vwc = {
    metadata: { name: "slow" },
    webhooks: [
      {
        name: "slow.example.com",
        clientConfig: { url: hooks.url("/slow"), caBundle: hooks.caBundle },
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "default" } },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: 10,
      },
    ],
  };
  expect((await req(s, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", { body: vwc })).status).toBe(201);
  await s.settle();
  return s;
}

/** A create held up by the webhook: resolves with its answer; `arrived` once the webhook has it. */
function inflightCreate(s: EmbeddedTestServer, name: string): { done: Promise<RawResponse>; arrived: Promise<void> } {
  const arrived = new Promise<void>((r) => reviewArrived.set(name, r));
  return { done: req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name } } }), arrived };
}

const refused = (p: Promise<unknown>) => p.then(() => "answered", (e: NodeJS.ErrnoException) => e.code);

describe("graceful shutdown with --shutdown-send-retry-after", () => {
  it("serves through the delay with /readyz failing, then answers 429 while the requests in flight finish, and ends watches", async () => {
    const s = await serverWithSlowWebhook({ shutdownDelayMs: 1500, shutdownSendRetryAfter: true });
    const watch = watchEvents(s, "/api/v1/namespaces/default/configmaps?watch=true", () => false, 20_000);
    await watch.opened;
    const inflight = inflightCreate(s, "inflight-1");
    await inflight.arrived;

    const stopping = s.stop();
    // The delay: /readyz fails, requests are served.
    expect((await req(s, "GET", "/readyz")).status).toBe(500);
    expect((await req(s, "GET", "/api/v1/namespaces/default")).status).toBe(200);

    // The drain begins with the watches' end.
    await watch;
    const during = await req(s, "GET", "/api/v1/namespaces/default");
    expect(during.status).toBe(429);
    expect(during.headers["retry-after"]).toBe("5");
    expect(during.headers["connection"]).toBe("close");
    expect(during.text).toBe("The apiserver is shutting down, please try again later.\n");
    // Health probes are still answered.
    expect((await req(s, "GET", "/livez")).status).toBe(200);

    // The request in flight finishes as if nothing happened; then the server stops listening.
    expect((await inflight.done).status).toBe(201);
    await stopping;
    expect(await refused(req(s, "GET", "/livez"))).toBe("ECONNREFUSED");
  });
});

describe("graceful shutdown without --shutdown-send-retry-after", () => {
  it("stops listening when the delay has passed, sends HTTP/2 clients a GOAWAY, and finishes the requests in flight", async () => {
    const s = await serverWithSlowWebhook({ shutdownDelayMs: 300 });
    const session = h2session(s);
    const goaway = new Promise<number>((r) => session.once("goaway", (code) => r(code)));
    session.on("error", () => undefined);
    expect(await h2status(session, "/api/v1/namespaces/default")).toBe(200);
    const watch = watchEvents(s, "/api/v1/namespaces/default/configmaps?watch=true", () => false, 20_000);
    await watch.opened;
    const inflight = inflightCreate(s, "inflight-2");
    await inflight.arrived;

    const stopping = s.stop();
    expect(await goaway).toBe(0); // NO_ERROR: a graceful GOAWAY, once the delay has passed
    await watch;
    expect(await refused(req(s, "GET", "/livez"))).toBe("ECONNREFUSED");
    // (A request reaching the server on a connection still open now is answered 503: see filters/shutdown.test.ts.)
    expect((await inflight.done).status).toBe(201);
    await stopping;
    session.destroy();
  });
});

describe("graceful shutdown with --shutdown-watch-termination-grace-period", () => {
  it("ends the open watches within the grace period (at least 200 a second), then stops", async () => {
    const s = await startTestServer({ options: { shutdownWatchTerminationGraceMs: 20_000 } });
    const watches = ["configmaps", "secrets", "services"].map((r) => watchEvents(s, `/api/v1/namespaces/default/${r}?watch=true`, () => false, 30_000));
    await Promise.all(watches.map((w) => w.opened));
    const t0 = Date.now();
    await s.stop();
    await Promise.all(watches);
    // Three watches at 200 a second: long before the 20 s the grace period allows.
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await refused(req(s, "GET", "/livez"))).toBe("ECONNREFUSED");
  });
});

function h2status(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = session.request({ ":path": path });
    let status = 0;
    r.on("response", (h) => (status = Number(h[":status"])));
    r.on("data", () => undefined);
    r.on("end", () => resolve(status));
    r.on("error", reject);
    r.end();
  });
}

describe("--goaway-chance", () => {
  let s: EmbeddedTestServer;
  beforeAll(async () => {
    s = await startTestServer({ options: { goawayChance: 0.02 } });
  });
  afterAll(async () => s?.stop());

  it("sends about one HTTP/2 connection in fifty a GOAWAY, every request still answered", async () => {
    let goaways = 0;
    const statuses = new Set<number>();
    const requests = 1500;
    let wentAway = false;
    const open = () => {
      const next = h2session(s);
      next.once("goaway", () => (wentAway = true));
      return next;
    };
    let session = open();
    for (let i = 0; i < requests; i++) {
      statuses.add(await h2status(session, "/api/v1/namespaces/default"));
      if (wentAway) {
        goaways++;
        wentAway = false;
        session.close();
        session = open();
      }
    }
    session.close();
    expect([...statuses]).toEqual([200]);
    // Binomial(1500, 0.02): mean 30, standard deviation 5.4.
    expect(goaways).toBeGreaterThanOrEqual(10);
    expect(goaways).toBeLessThanOrEqual(55);
  });

  it("leaves HTTP/1.1 connections alone", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const headers = new Set<string | undefined>();
    for (let i = 0; i < 300; i++) {
      const r = await new Promise<string | undefined>((resolve, reject) => {
        const url = new URL("/api/v1/namespaces/default", s.url);
        const q = httpsRequest({ hostname: url.hostname, port: url.port, path: url.pathname, ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key, agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.headers["connection"]));
        });
        q.on("error", reject);
        q.end();
      });
      headers.add(r);
    }
    agent.destroy();
    expect([...headers]).toEqual(["keep-alive"]);
  });
});
