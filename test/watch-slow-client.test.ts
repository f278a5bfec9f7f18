// A watcher that stops reading is ended with an ERROR event (429) once its bounded queue is
// full, instead of making the server hold its events without limit.
import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
beforeAll(async () => {
  s = await startTuned({ watchCache: { maxQueuedPerWatcher: 5 } });
});
afterAll(async () => s?.stop());

describe("slow watch clients", () => {
  it("get a 429 ERROR event and the end of the stream", async () => {
    const u = new URL(s.url);
    const chunks: Buffer[] = [];
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const done = new Promise<void>((resolve, reject) => {
      const r = request({ host: u.hostname, port: u.port, path: "/api/v1/namespaces/default/configmaps?watch=1", ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key, agent: false }, (res) => {
        opened(); // the head comes once the watch is registered
        res.pause(); // a client that stops reading
        setTimeout(() => {
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve());
          res.resume();
        }, 4000);
      });
      r.on("error", reject);
      r.end();
    });
    await open;
    const big = "x".repeat(60_000);
    for (let i = 0; i < 250; i++) await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: `big-${i}` }, data: { v: big } } });
    await done;
    const lines = Buffer.concat(chunks).toString().trim().split("\n").map((l) => JSON.parse(l));
    const last = lines[lines.length - 1];
    expect(last.type).toBe("ERROR");
    expect(last.object).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests" });
    expect(lines.length).toBeLessThan(251);
  }, 60_000);
});
