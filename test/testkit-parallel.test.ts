// Fifty servers at once in one test file, each its own world: an object created in one is absent
// from every other, and each resets on its own. Prints the total start time and the memory each
// idle server costs.
import { afterAll, expect, it } from "vitest";
import type { KapiServer } from "../src/index.js";
import { req, startTestServer, type TestServer } from "./support/client.js";

const count = 50;
const servers: (TestServer & KapiServer)[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

it(`${count} servers start at once, each isolated from the others`, { timeout: 180_000 }, async () => {
  const before = process.memoryUsage();
  const t0 = performance.now();
  servers.push(...(await Promise.all(Array.from({ length: count }, () => startTestServer()))));
  const startMs = performance.now() - t0;
  expect(new Set(servers.map((s) => s.port)).size).toBe(count);

  await Promise.all(servers.map((s, i) => req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: `only-in-${i}` } } }).then((r) => expect(r.status).toBe(201))));
  await Promise.all(servers.map((s) => s.settle()));
  const after = process.memoryUsage();
  console.log(
    `${count} servers (memory storage): started together in ${startMs.toFixed(0)} ms; per idle server: ` +
      `heap ${mib((after.heapUsed - before.heapUsed) / count)} MiB, rss ${mib((after.rss - before.rss) / count)} MiB`,
  );

  // Every server holds its own object and none of the others'.
  const lists = await Promise.all(servers.map((s) => req(s, "GET", "/api/v1/namespaces/default/configmaps")));
  lists.forEach((r, i) => {
    const mine = (r.json.items as { metadata: { name: string } }[]).map((o) => o.metadata.name).filter((n) => n.startsWith("only-in-"));
    expect(mine).toEqual([`only-in-${i}`]);
  });

  // Each resets alone: the others keep their object.
  await servers[0]!.reset();
  expect((await req(servers[0]!, "GET", "/api/v1/namespaces/default/configmaps/only-in-0")).status).toBe(404);
  expect((await req(servers[1]!, "GET", "/api/v1/namespaces/default/configmaps/only-in-1")).status).toBe(200);
});
