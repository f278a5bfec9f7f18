// apiserver_cel_compilation_duration_seconds and apiserver_cel_evaluation_duration_seconds
// (kube-apiserver 1.34's apiserver/pkg/cel/metrics: BETA histograms on client_golang's default
// buckets) against a real server, read by a real Prometheus text parser: a CRD with validation
// rules on two schema nodes is compiled when the CRD is validated and again when it is served;
// each write of a custom resource evaluates them, a refused write as well.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";
import { servedOnceSettled } from "./support/settle.js";

let s: EmbeddedTestServer;
const metricsPage = async () => parseMetricsPage((await req(s, "GET", "/metrics")).text);
const count = (p: MetricsPage, name: string) => p.find(`${name}_count`).reduce((n, x) => n + x.value, 0);
const widgets = "/apis/cel.example.com/v1/namespaces/default/widgets";

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.stop());

describe("CEL metric families", () => {
  it("time the compilation of a CRD's rules per schema node and their evaluation on each write", async () => {
    const before = await metricsPage();
    for (const name of ["apiserver_cel_compilation_duration_seconds", "apiserver_cel_evaluation_duration_seconds"]) {
      const f = before.families.get(name);
      expect(f?.type, name).toBe("HISTOGRAM");
      expect(f?.help, name).toMatch(/^\[BETA\] \S/);
      expect(f?.buckets, name).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);
      for (const x of before.find(`${name}_count`)) expect(x.labels, name).toEqual({});
    }
    const crd = {
      metadata: { name: "widgets.cel.example.com" },
      spec: {
        group: "cel.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", kind: "Widget" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    "x-kubernetes-validations": [{ rule: "self.min <= self.max", message: "min must not exceed max" }],
                    properties: { min: { type: "integer" }, max: { type: "integer" }, name: { type: "string", "x-kubernetes-validations": [{ rule: "self.size() < 10" }] } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status).toBe(201);
    await servedOnceSettled(s, widgets);
    const served = await metricsPage();
    // Two nodes with rules: compiled by the CRD's validation, and again for serving it.
    expect(count(served, "apiserver_cel_compilation_duration_seconds") - count(before, "apiserver_cel_compilation_duration_seconds")).toBe(4);
    expect(count(served, "apiserver_cel_evaluation_duration_seconds")).toBe(count(before, "apiserver_cel_evaluation_duration_seconds"));

    const widget = (name: string, spec: object) => ({ apiVersion: "cel.example.com/v1", kind: "Widget", metadata: { name }, spec });
    expect((await req(s, "POST", widgets, { body: widget("ok", { min: 1, max: 2, name: "a" }) })).status).toBe(201);
    const refused = await req(s, "POST", widgets, { body: widget("bad", { min: 3, max: 2 }) });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toContain("min must not exceed max");
    const after = await metricsPage();
    // Per node and value: the root, spec, and spec.name for the first; the root and spec for the second.
    expect(count(after, "apiserver_cel_evaluation_duration_seconds") - count(served, "apiserver_cel_evaluation_duration_seconds")).toBe(5);
    expect(count(after, "apiserver_cel_compilation_duration_seconds")).toBe(count(served, "apiserver_cel_compilation_duration_seconds"));
    const sum = after.find("apiserver_cel_evaluation_duration_seconds_sum")[0]!.value;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);
  }, 60_000);
});
