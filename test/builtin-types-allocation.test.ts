// Service allocation across a restart (sqlite storage) and the allocator's range logic.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allocateService, holdingsOf, kubernetesService, serviceRanges } from "../src/types/allocation/service.js";
import { parseIPv4Range, parsePortRange, pickFree } from "../src/types/allocation/ranges.js";
import { req, startTestServer } from "./support/client.js";

describe("allocator", () => {
  it("hands out every usable address of a range exactly once, the first one last-never", () => {
    const r = serviceRanges("10.96.0.0/28", "30000-30009");
    const held = { ips: new Set<string>(), ports: new Set<number>() };
    const got: string[] = [];
    for (let i = 0; i < 20; i++) {
      const svc: any = { metadata: { namespace: "a", name: `s${i}` }, spec: { type: "ClusterIP", ports: [{ port: 80 }] } };
      const errs = allocateService(svc, undefined, held, r);
      if (errs.length) {
        expect(errs[0]!.message).toBe("failed to allocate a serviceIP: range is full");
        break;
      }
      got.push(svc.spec.clusterIP as string);
      held.ips.add(svc.spec.clusterIP as string);
    }
    // /28: 16 addresses, network and broadcast excluded, the first kept for `kubernetes`
    expect(got).toHaveLength(13);
    expect(new Set(got).size).toBe(13);
    expect(got).not.toContain("10.96.0.1");
    expect(kubernetesService(r).spec.clusterIP).toBe("10.96.0.1");
  });

  it("is deterministic for the same holdings and name", () => {
    const r = serviceRanges();
    const mk = () => ({ metadata: { namespace: "x", name: "same" }, spec: { type: "NodePort", ports: [{ port: 80 }] } }) as any;
    const a = mk();
    const b = mk();
    allocateService(a, undefined, holdingsOf([]), r);
    allocateService(b, undefined, holdingsOf([]), r);
    expect(a.spec.clusterIP).toBe(b.spec.clusterIP);
    expect(a.spec.ports[0].nodePort).toBe(b.spec.ports[0].nodePort);
    const c = mk();
    allocateService(c, undefined, holdingsOf([a]), r);
    expect(c.spec.clusterIP).not.toBe(a.spec.clusterIP);
    expect(c.spec.ports[0].nodePort).not.toBe(a.spec.ports[0].nodePort);
  });

  it("parses ranges and prefers the upper band for dynamic values", () => {
    expect(parseIPv4Range("10.0.0.7/24")).toMatchObject({ cidr: "10.0.0.0/24", total: 256, first: 1, last: 254 });
    expect(parsePortRange("30000-32767")).toMatchObject({ base: 30000, size: 2768 });
    const off = pickFree(254, () => false, "seed", 16, 256);
    expect(off).toBeGreaterThanOrEqual(16);
  });
});

describe("allocation survives a restart", () => {
  it("Services created after a restart never reuse a ClusterIP", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-alloc-"));
    try {
      const ips = new Set<string>();
      let s = await startTestServer({ dataDir: dir });
      for (let i = 0; i < 30; i++) {
        const r = await req(s, "POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: `before-${i}` }, spec: { ports: [{ port: 80 }] } } });
        expect(r.status, r.text).toBe(201);
        ips.add(r.json.spec.clusterIP);
      }
      await s.stop();
      s = await startTestServer({ dataDir: dir });
      for (let i = 0; i < 30; i++) {
        const r = await req(s, "POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: `after-${i}` }, spec: { ports: [{ port: 80 }] } } });
        expect(r.status, r.text).toBe(201);
        expect(ips.has(r.json.spec.clusterIP)).toBe(false);
        ips.add(r.json.spec.clusterIP);
      }
      const list = await req(s, "GET", "/api/v1/namespaces/default/services");
      const all = list.json.items.map((x: any) => x.spec.clusterIP);
      expect(new Set(all).size).toBe(all.length);
      await s.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
