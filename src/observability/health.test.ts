import { describe, expect, it } from "vitest";
import { runChecks, type HealthCheck } from "./health.js";

const checks: HealthCheck[] = [
  { name: "ping", check: () => undefined },
  { name: "etcd", check: () => undefined },
  { name: "etcd-override-0", group: "etcd", check: () => "down" },
];

describe("runChecks", () => {
  it("a grouped check is excluded by its own name or its group's, as kube-apiserver's etcd-override-N with etcd", async () => {
    const byGroup = await runChecks("healthz", checks, new URLSearchParams("verbose&exclude=etcd"));
    expect(byGroup).toEqual({ status: 200, body: "[+]ping ok\n[+]etcd excluded: ok\n[+]etcd-override-0 excluded with etcd: ok\nhealthz check passed\n" });
    const byName = await runChecks("healthz", checks, new URLSearchParams("verbose&exclude=etcd-override-0"));
    expect(byName).toEqual({ status: 200, body: "[+]ping ok\n[+]etcd ok\n[+]etcd-override-0 excluded: ok\nhealthz check passed\n" });
    const failing = await runChecks("healthz", checks, new URLSearchParams("verbose"));
    expect(failing.status).toBe(500);
    expect(failing.body).toContain("[-]etcd-override-0 failed: reason withheld\n");
  });
});
