// The `kapi serve` process: graceful SIGTERM and durability across SIGKILL.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { asTestServer, serveKapi } from "./support/cli.js";

describe("kapi serve process", () => {
  it("on SIGTERM fails readyz during the shutdown delay, then exits cleanly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-term-"));
    const k = await serveKapi(["--data-dir", dir, "--secure-port=0", "--bind-address=127.0.0.1", "--shutdown-delay-duration=1500ms"]);
    const s = asTestServer(k.url, dir);
    expect((await req(s, "GET", "/readyz")).status).toBe(200);
    const exited = new Promise<number | null>((r) => k.proc.on("exit", (c) => r(c)));
    k.proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 400));
    const during = await req(s, "GET", "/readyz?verbose");
    expect(during.status).toBe(500);
    expect(during.text).toContain("[-]shutdown failed");
    expect((await req(s, "GET", "/livez")).status).toBe(200);
    expect(await exited).toBe(0);
  });

  it("keeps every acknowledged create across SIGKILL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-kill-"));
    const k = await serveKapi(["--data-dir", dir, "--secure-port=0", "--bind-address=127.0.0.1"]);
    const s = asTestServer(k.url, dir);
    const acked: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `k-${w}-${i}`;
        try {
          const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name }, data: { i: String(i) } } });
          if (r.status === 201) acked.push(name);
        } catch {
          return; // connection died with the server
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    // Kill mid-stream once a good number of creates were acknowledged (however loaded the machine).
    for (const started = Date.now(); acked.length <= 20 && Date.now() - started < 30_000; ) await new Promise((r) => setTimeout(r, 50));
    k.proc.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    expect(acked.length).toBeGreaterThan(20);
    const k2 = await serveKapi(["--data-dir", dir, "--secure-port=0", "--bind-address=127.0.0.1"]);
    try {
      const s2 = asTestServer(k2.url, dir);
      const list = (await req(s2, "GET", "/api/v1/namespaces/default/configmaps")).json;
      const present = new Set(list.items.map((i: any) => i.metadata.name));
      const lost = acked.filter((n) => !present.has(n));
      expect(lost).toEqual([]);
    } finally {
      k2.proc.kill("SIGKILL");
    }
  });
});
