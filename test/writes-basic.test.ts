// PATCH (json, merge, strategic), server-side apply create/update, /scale and the reviews
// kubectl uses, over real HTTPS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
});
afterAll(async () => s?.stop());

const deployment = (name: string, image = "nginx:1.25") => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image, ports: [{ containerPort: 80 }, { containerPort: 8080 }], env: [{ name: "A", value: "1" }, { name: "B", value: "2" }] }] },
    },
  },
});

describe("patch", () => {
  beforeAll(async () => {
    expect((await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment("p1") })).status).toBe(201);
  });

  it("applies a JSON patch and maps a failed test to 422", async () => {
    const ok = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", {
      body: [{ op: "replace", path: "/spec/replicas", value: 2 }],
      headers: { "content-type": "application/json-patch+json" },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.spec.replicas).toBe(2);
    expect(ok.json.metadata.generation).toBe(2);
    const bad = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", {
      body: [{ op: "test", path: "/spec/replicas", value: 9 }],
      headers: { "content-type": "application/json-patch+json" },
    });
    expect(bad.status).toBe(422);
  });

  it("applies a merge patch", async () => {
    const r = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", {
      body: { metadata: { labels: { extra: "yes" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(r.json.metadata.labels).toEqual({ app: "p1", extra: "yes" });
  });

  it("applies a strategic merge patch with kubectl's directives", async () => {
    const r = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", {
      body: {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "app" }],
              containers: [{ name: "app", image: "nginx:1.26", "$setElementOrder/ports": [{ containerPort: 80 }], ports: [{ $patch: "delete", containerPort: 8080 }], env: [{ $patch: "delete", name: "B" }] }],
            },
          },
        },
      },
      headers: { "content-type": "application/strategic-merge-patch+json" },
    });
    expect(r.status).toBe(200);
    const c = r.json.spec.template.spec.containers[0];
    expect(c.image).toBe("nginx:1.26");
    expect(c.ports.map((p: { containerPort: number }) => p.containerPort)).toEqual([80]);
    expect(c.env).toEqual([{ name: "A", value: "1" }]);
  });

  it("refuses an unknown patch type with 415 and a stale resourceVersion with 409", async () => {
    const u = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", { body: {}, headers: { "content-type": "application/json" } });
    expect(u.status).toBe(415);
    const c = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/p1", {
      body: { metadata: { resourceVersion: "1" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(c.status).toBe(409);
  });
});

describe("server-side apply (create and update)", () => {
  it("needs a fieldManager, creates when absent, updates when present", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n";
    const nofm = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/applied", { body: yaml, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(nofm.status).toBe(422);
    expect(nofm.json.message).toContain("fieldManager");
    const c = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=test", { body: yaml, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(c.status).toBe(201);
    const u = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=test", { body: yaml.replace("'1'", "'2'"), headers: { "content-type": "application/apply-patch+yaml" } });
    expect(u.status).toBe(200);
    expect(u.json.data.a).toBe("2");
  });
});

describe("scale subresource", () => {
  it("reads and writes replicas through Scale", async () => {
    await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment("sc") });
    const g = await req(s, "GET", "/apis/apps/v1/namespaces/default/deployments/sc/scale");
    expect(g.json).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 }, status: { replicas: 0, selector: "app=sc" } });
    const p = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/sc/scale", { body: { spec: { replicas: 4 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(p.json.spec.replicas).toBe(4);
    expect((await req(s, "GET", "/apis/apps/v1/namespaces/default/deployments/sc")).json.spec.replicas).toBe(4);
    const put = await req(s, "PUT", "/apis/apps/v1/namespaces/default/deployments/sc/scale", { body: { ...p.json, spec: { replicas: 2 } } });
    expect(put.status).toBe(200);
    expect(put.json.spec.replicas).toBe(2);
  });
});

describe("reviews", () => {
  it("answers SelfSubjectReview with the caller", async () => {
    const r = await req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: "kapi-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("answers access reviews from the authorizer", async () => {
    const r = await req(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } } },
    });
    expect(r.status).toBe(201);
    expect(r.json.status.allowed).toBe(true);
    const rules = await req(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: { namespace: "default" } },
    });
    expect(rules.json.status.resourceRules[0].verbs).toEqual(["*"]);
    const bad = await req(s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { resourceAttributes: { verb: "get", resource: "pods" } } },
    });
    expect(bad.status).toBe(422);
    expect((await req(s, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")).status).toBe(405);
  });
});
