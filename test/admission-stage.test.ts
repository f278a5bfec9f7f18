// The admission stage of the write path, seen from in-process plugins while real clients
// (kubectl, @kubernetes/client-node) write: upstream's order default → mutating admission →
// prepare → validate → validating admission → storage, for create, update, patch, apply,
// subresources and delete; dry run; and Service allocation that never holds its lock across
// validating admission.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../src/apimachinery/errors.js";
import { deepClone } from "../src/apimachinery/json-value.js";
import { startServer, type AdmissionAttributes, type AdmissionPlugin, type KapiServer } from "../src/index.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { req, withCredentials, type TestServer } from "./support/client.js";

interface Seen {
  stage: "admit" | "validate";
  operation: string;
  resource: string;
  subresource: string;
  name: string;
  dryRun: boolean;
  user?: string;
  object?: any;
  oldObject?: any;
}

const seen: Seen[] = [];
/** Per-test behaviour of the plugins (reset before each test). */
let onAdmit: (a: AdmissionAttributes) => void | Promise<void> = () => {};
let onValidate: (a: AdmissionAttributes) => void | Promise<void> = () => {};

const snapshot = (stage: Seen["stage"], a: AdmissionAttributes): Seen => ({
  stage,
  operation: a.operation,
  resource: a.type.resource,
  subresource: a.subresource,
  name: a.name,
  dryRun: a.dryRun,
  user: a.user?.name,
  object: a.object === undefined ? undefined : deepClone(a.object),
  oldObject: a.oldObject === undefined ? undefined : deepClone(a.oldObject),
});

const recorder: AdmissionPlugin = {
  name: "Recorder",
  async admit(a) {
    seen.push(snapshot("admit", a));
    await onAdmit(a);
  },
  async validate(a) {
    seen.push(snapshot("validate", a));
    await onValidate(a);
  },
};

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let server: KapiServer;
let s: TestServer;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-admission-")), admissionPlugins: [recorder] });
  s = withCredentials(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(async () => server?.stop());
beforeEach(() => {
  seen.length = 0;
  onAdmit = () => {};
  onValidate = () => {};
});

const of = (resource: string, stage?: Seen["stage"]) => seen.filter((x) => x.resource === resource && (!stage || x.stage === stage));

describe("create", () => {
  it.skipIf(!kubectlBin)("mutating admission sees kubectl's Deployment defaulted, before the server's own fields and validation", async () => {
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["create", "deployment", "web", "--image=nginx:1.25"]);
    expect(r.stderr).toBe("");
    const [admit, validate] = [of("deployments", "admit"), of("deployments", "validate")];
    expect(admit).toHaveLength(1);
    expect(validate).toHaveLength(1);
    const a = admit[0];
    expect(a.operation).toBe("CREATE");
    expect(a.user).toBe("kapi-admin");
    // Defaulted (upstream's Deployment defaults) ...
    expect(a.object.spec.revisionHistoryLimit).toBe(10);
    expect(a.object.spec.progressDeadlineSeconds).toBe(600);
    expect(a.object.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    expect(a.object.spec.template.spec.containers[0].terminationMessagePath).toBe("/dev/termination-log");
    // ... but not yet prepared: no uid, no generation, the client's (empty) status not yet dropped.
    expect(a.object.metadata.uid).toBeUndefined();
    expect(a.object.metadata.generation).toBeUndefined();
    expect(a.object.status).toEqual({});
    // The validating stage sees the prepared object as it will be stored.
    const v = validate[0].object;
    expect(v.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(v.metadata.generation).toBe(1);
    expect(v.metadata.managedFields?.[0]?.manager).toBe("kubectl-create");
    expect(seen.findIndex((x) => x.resource === "deployments" && x.stage === "admit")).toBeLessThan(seen.findIndex((x) => x.resource === "deployments" && x.stage === "validate"));
  });

  it("a mutation is stored, and what it changed is validated after it", async () => {
    onAdmit = (a) => {
      if (a.type.resource !== "configmaps") return;
      a.object!.metadata.labels = { ...a.object!.metadata.labels, mutated: a.object!.metadata.name === "bad" ? "not a valid value!" : "yes" };
    };
    const ok = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "good" }, data: { k: "v" } } });
    expect(ok.metadata?.labels).toEqual({ mutated: "yes" });
    expect((await core.readNamespacedConfigMap({ name: "good", namespace: "default" })).metadata?.labels).toEqual({ mutated: "yes" });
    const bad = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "bad" } } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain("metadata.labels: Invalid value: \"not a valid value!\"");
    // Validation failed, so the validating stage never saw it.
    expect(of("configmaps", "validate").map((x) => x.object.metadata.name)).toEqual(["good"]);
  });

  it("a validating plugin's rejection is the answer and nothing is stored", async () => {
    onValidate = (a) => {
      if (a.type.resource === "configmaps" && (a.object?.data as Record<string, string> | undefined)?.forbidden) throw new ApiError(403, "Forbidden", "configmaps \"nope\" is forbidden: policy says no");
    };
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "nope" }, data: { forbidden: "1" } } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ kind: "Status", reason: "Forbidden", message: "configmaps \"nope\" is forbidden: policy says no" });
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/nope")).status).toBe(404);
    // Positive control: the same plugin lets an ordinary object through.
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "yes-please" } } })).status).toBe(201);
  });

  it("dry run passes both stages with dryRun set and stores nothing", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", { body: { metadata: { name: "dry" } } });
    expect(r.status).toBe(201);
    expect(of("configmaps").map((x) => [x.stage, x.dryRun])).toEqual([["admit", true], ["validate", true]]);
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
  });

  it("a generated name is chosen after mutating admission and before validating admission", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { generateName: "gen-" } } });
    expect(r.status).toBe(201);
    const [admit, validate] = [of("configmaps", "admit")[0], of("configmaps", "validate")[0]];
    expect(admit.name).toBe("");
    expect(admit.object.metadata.generateName).toBe("gen-");
    expect(validate.name).toBe(r.json.metadata.name);
    expect(validate.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });
});

describe("update, patch, apply, subresources, delete", () => {
  beforeAll(async () => {
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "target" }, data: { a: "1" } } });
  });

  it("PUT, merge patch and apply are UPDATE with the stored object as oldObject", async () => {
    const cur = await core.readNamespacedConfigMap({ name: "target", namespace: "default" });
    await core.replaceNamespacedConfigMap({ name: "target", namespace: "default", body: { ...cur, data: { a: "2" } } });
    await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target", { body: { data: { a: "3" } }, headers: { "content-type": "application/merge-patch+json" } });
    const applied = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target?fieldManager=tester&force=true", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target" }, data: { a: "4" } },
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(applied.status).toBe(200);
    const admits = of("configmaps", "admit");
    expect(admits.map((x) => x.operation)).toEqual(["UPDATE", "UPDATE", "UPDATE"]);
    expect(admits.map((x) => [x.oldObject.data.a, x.object.data.a])).toEqual([["1", "2"], ["2", "3"], ["3", "4"]]);
  });

  it("apply of a missing object is a CREATE", async () => {
    const r = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=tester", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { x: "y" } },
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(r.status).toBe(201);
    expect(of("configmaps", "admit").map((x) => [x.operation, x.oldObject])).toEqual([["CREATE", undefined]]);
  });

  it("a no-op update still passes admission but stores nothing", async () => {
    const before = await core.readNamespacedConfigMap({ name: "target", namespace: "default" });
    const r = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target", { body: { data: before.data }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(of("configmaps", "admit")).toHaveLength(1);
  });

  it("/status and /scale writes name their subresource", async () => {
    const dep = {
      metadata: { name: "scaled" },
      spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } } },
    };
    expect((await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: dep })).status).toBe(201);
    const scale = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/scaled/scale", { body: { spec: { replicas: 3 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(scale.status).toBe(200);
    const status = await req(s, "PATCH", "/apis/apps/v1/namespaces/default/deployments/scaled/status", { body: { status: { observedGeneration: 2 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(status.status).toBe(200);
    const updates = of("deployments", "admit").filter((x) => x.operation === "UPDATE");
    expect(updates.map((x) => x.subresource)).toEqual(["scale", "status"]);
    expect(updates[0].object.spec.replicas).toBe(3);
  });

  it("DELETE passes both stages with the stored object as oldObject, and a validating rejection keeps the object", async () => {
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "doomed" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "kept" } } });
    onValidate = (a) => {
      if (a.operation === "DELETE" && a.name === "kept") throw new ApiError(403, "Forbidden", "configmaps \"kept\" is forbidden: keep it");
    };
    seen.length = 0;
    await core.deleteNamespacedConfigMap({ name: "doomed", namespace: "default" });
    expect(of("configmaps").map((x) => [x.stage, x.operation, x.object, x.oldObject?.metadata.name])).toEqual([
      ["admit", "DELETE", undefined, "doomed"],
      ["validate", "DELETE", undefined, "doomed"],
    ]);
    const r = await req(s, "DELETE", "/api/v1/namespaces/default/configmaps/kept");
    expect(r.status).toBe(403);
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/kept")).status).toBe(200);
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/doomed")).status).toBe(404);
  });
});

describe("NamespaceLifecycle as the chain's first plugin", () => {
  it("refuses creates in a missing namespace before any other plugin runs", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/nowhere/configmaps", { body: { metadata: { name: "x" } } });
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('namespaces "nowhere" not found');
    expect(of("configmaps")).toEqual([]);
    // Positive control: in an existing namespace the recorder runs.
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "x" } } })).status).toBe(201);
    expect(of("configmaps", "admit")).toHaveLength(1);
  });

  it("refuses to delete the system namespaces, as upstream", async () => {
    for (const ns of ["default", "kube-system", "kube-public"]) {
      const r = await req(s, "DELETE", `/api/v1/namespaces/${ns}`);
      expect(r.status).toBe(403);
      expect(r.json.message).toBe(`namespaces "${ns}" is forbidden: this namespace may not be deleted`);
    }
    expect((await req(s, "DELETE", "/api/v1/namespaces/kube-node-lease?dryRun=All")).status).toBe(200);
  });
});

describe("Service allocation: reserve, then commit", () => {
  it("validating admission runs outside the allocation lock: a Service waiting in admission does not block the next", async () => {
    let releaseFirst!: () => void;
    let slowReached!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    const inAdmission = new Promise<void>((r) => (slowReached = r));
    onValidate = async (a) => {
      if (a.type.resource !== "services" || a.name !== "slow") return;
      slowReached();
      await firstHeld;
    };
    const svc = (name: string) => ({ metadata: { name }, spec: { ports: [{ port: 80 }] } });
    const slow = req(s, "POST", "/api/v1/namespaces/default/services", { body: svc("slow") });
    // "slow" holds its reservation and sits in validating admission.
    await inAdmission;
    const fast = await req(s, "POST", "/api/v1/namespaces/default/services", { body: svc("fast") });
    expect(fast.status).toBe(201);
    releaseFirst();
    const slowDone = await slow;
    expect(slowDone.status).toBe(201);
    // The reservation made "fast" pick another address than the one "slow" was holding.
    expect(fast.json.spec.clusterIP).not.toBe(slowDone.json.spec.clusterIP);
  });

  it("a write rejected in validating admission releases its reservation", async () => {
    onValidate = (a) => {
      if (a.type.resource === "services" && a.name === "refused") throw new ApiError(403, "Forbidden", "no");
    };
    const ip = "10.0.0.77";
    const refused = await req(s, "POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "refused" }, spec: { clusterIP: ip, ports: [{ port: 80 }] } } });
    expect(refused.status).toBe(403);
    const taker = await req(s, "POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "taker" }, spec: { clusterIP: ip, ports: [{ port: 80 }] } } });
    expect(taker.status).toBe(201);
    expect(taker.json.spec.clusterIP).toBe(ip);
    // Positive control: the address is now taken for real.
    const again = await req(s, "POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "again" }, spec: { clusterIP: ip, ports: [{ port: 80 }] } } });
    expect(again.status).toBe(422);
  });
});

describe("subresource creates handled outside the store: serviceaccounts/token", () => {
  it("a TokenRequest passes both stages with its own kind and subresource, and a rejection stops the token", async () => {
    // The default ServiceAccount of "default" comes from its controller.
    await server.settle();
    onAdmit = (a) => {
      if (a.subresource === "token") a.object!.spec = { ...(a.object!.spec as object), expirationSeconds: 1200 };
    };
    const ok = await req(s, "POST", "/api/v1/namespaces/default/serviceaccounts/default/token", { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["a"] } } });
    expect(ok.status).toBe(201);
    expect(ok.json.spec.expirationSeconds).toBe(1200);
    const token = seen.filter((x) => x.subresource === "token");
    expect(token.map((x) => `${x.stage} ${x.operation} ${x.resource}/${x.subresource} ${x.name}`)).toEqual(["admit CREATE serviceaccounts/token default", "validate CREATE serviceaccounts/token default"]);
    expect(token[1].object).toMatchObject({ kind: "TokenRequest", spec: { audiences: ["a"], expirationSeconds: 1200 } });
    onValidate = (a) => {
      if (a.subresource === "token") throw new ApiError(403, "Forbidden", "no tokens today");
    };
    const refused = await req(s, "POST", "/api/v1/namespaces/default/serviceaccounts/default/token", { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe("no tokens today");
    expect(refused.json.status?.token).toBeUndefined();
  });
});

describe("a write that changes nothing", () => {
  it("still passes validation and validating admission (upstream finds it a no-op only in storage), then stores nothing", async () => {
    const created = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "unchanged" }, data: { k: "v" } } });
    expect(created.status).toBe(201);
    onValidate = (a) => {
      if (a.type.resource === "configmaps" && a.operation === "UPDATE") throw new ApiError(403, "Forbidden", "updates refused");
    };
    const same = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/unchanged", { body: created.json });
    expect(same.status).toBe(403);
    onValidate = () => {};
    const ok = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/unchanged", { body: created.json });
    expect(ok.status).toBe(200);
    expect(ok.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });
});

describe("field ownership and mutating admission", () => {
  it("the writer owns what it sent, not what mutating admission added (upstream records ownership first)", async () => {
    onAdmit = (a) => {
      if (a.type.resource === "configmaps" && a.object) a.object.metadata.labels = { ...a.object.metadata.labels, injected: "yes" };
    };
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps?fieldManager=writer", { body: { metadata: { name: "owned", labels: { mine: "1" } }, data: { k: "v" } } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.labels).toEqual({ mine: "1", injected: "yes" });
    const entry = r.json.metadata.managedFields.find((m: any) => m.manager === "writer");
    expect(entry.fieldsV1).toEqual({ "f:data": { ".": {}, "f:k": {} }, "f:metadata": { "f:labels": { ".": {}, "f:mine": {} } } });
    const u = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/owned?fieldManager=writer", { body: { ...r.json, data: { k: "v", k2: "w" } } });
    expect(u.status).toBe(200);
    const after = u.json.metadata.managedFields.find((m: any) => m.manager === "writer");
    expect(after.fieldsV1["f:data"]).toEqual({ ".": {}, "f:k": {}, "f:k2": {} });
  });
});
