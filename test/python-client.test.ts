// The official Kubernetes Python client (Debian's python3-kubernetes, unmodified) against a real kapi.
// The client side lives in test/clients/python/kapi_client.py: each scenario prints one JSON object
// of what the client saw, and the assertions here are on that object.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { startControlEndpoint, type ControlEndpoint } from "../src/testing/control-endpoint.js";

// Debian's interpreter: the python3 first on PATH may be another installation without the module.
const python = "/usr/bin/python3";
const script = join(dirname(fileURLToPath(import.meta.url)), "clients", "python", "kapi_client.py");

function pythonClientVersion(): string | undefined {
  const r = spawnSync(python, ["-c", "import kubernetes; print(kubernetes.__version__)"], { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const clientVersion = pythonClientVersion();

interface ApiError {
  status: number | null;
  reason?: string;
  body?: any;
}

describe.skipIf(!clientVersion)(`python kubernetes client ${clientVersion ?? "(not installed)"}`, () => {
  let s: KapiServer;
  let dir: string;
  /** The server's control endpoint (settle() over loopback HTTP, as `kapi testenv` offers it), for the script to call. */
  let control: ControlEndpoint;

  /** Runs one scenario of kapi_client.py in its own namespace and returns its JSON result. */
  const run = (scenario: string, namespace = `py-${scenario}`): Promise<any> =>
    new Promise((resolve, reject) => {
      execFile(
        python,
        [script, s.kubeconfigPath!, scenario, namespace],
        { timeout: 60_000, maxBuffer: 16 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", KAPI_CONTROL_URL: control.url, KAPI_CONTROL_TOKEN: control.token } },
        (err, stdout, stderr) => {
          if (err) return reject(new Error(`kapi_client.py ${scenario} failed: ${err.message}\n${stderr}`));
          const last = String(stdout).trim().split("\n").pop() ?? "";
          try {
            resolve(JSON.parse(last));
          } catch {
            reject(new Error(`kapi_client.py ${scenario} printed no JSON:\n${stdout}\n${stderr}`));
          }
        },
      );
    });

  const expectStatus = (e: ApiError, code: number, reason: string) => {
    expect(e.status, JSON.stringify(e)).toBe(code);
    expect(e.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason, code });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-python-"));
    // The scenarios count and watch the ConfigMaps of their namespaces: without the root CA
    // publisher no kube-root-ca.crt joins them at a moment of its own.
    s = await startServer({ dataDir: join(dir, "data"), options: { controllers: ["*", "-root-ca-cert-publisher"] } });
    control = await startControlEndpoint({ harness: s, controls: s });
  });
  afterAll(async () => {
    await control?.close();
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("loads the kubeconfig and reads the server version", async () => {
    const r = await run("version");
    expect(r._client.kubernetes).toBe(clientVersion);
    expect(r.major).toBe("1");
    expect(r.minor).toBe("34");
    expect(r.gitVersion).toMatch(/^v1\.34\./);
  });

  it("creates, reads, lists, patches (strategic merge and JSON patch), replaces and deletes a ConfigMap", async () => {
    const r = await run("crud");
    expect(r.namespace).toEqual({ name: "py-crud", phase: "Active" });

    const c = r.created;
    expect(c).toMatchObject({ name: "app-config", namespace: "py-crud", labels: { app: "demo" }, data: { a: "1" } });
    expect(c.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.resourceVersion).toMatch(/^\d+$/);
    expect(c.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(r.read).toEqual(c);

    expect(r.list).toMatchObject({ kind: "ConfigMapList", apiVersion: "v1", names: ["app-config"] });
    expect(r.list.resourceVersion).toMatch(/^\d+$/);

    expect(r.strategicMergePatch).toMatchObject({ uid: c.uid, labels: { app: "demo", patched: "smp" }, data: { a: "1", b: "2" } });
    expect(r.strategicMergePatch.resourceVersion).not.toBe(c.resourceVersion);
    expect(r.jsonPatch).toMatchObject({ uid: c.uid, labels: { app: "demo", patched: "smp" }, data: { a: "one" } });
    expect(r.replaced).toMatchObject({ uid: c.uid, data: { replaced: "yes" }, creationTimestamp: c.creationTimestamp });
    expect(new Set([c.resourceVersion, r.strategicMergePatch.resourceVersion, r.jsonPatch.resourceVersion, r.replaced.resourceVersion]).size).toBe(4);

    expectStatus(r.staleReplace, 409, "Conflict");
    expect(r.staleReplace.reason).toBe("Conflict");
    expect(r.staleReplace.body.message).toBe(
      'Operation cannot be fulfilled on configmaps "app-config": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(r.staleReplace.body.details).toMatchObject({ name: "app-config", kind: "configmaps" });

    expect(r.deleteResponse).toEqual({ kind: "Status", status: "Success" });
    expectStatus(r.readAfterDelete, 404, "NotFound");
    expect(r.readAfterDelete.body.message).toBe('configmaps "app-config" not found');
    expect(r.listAfterDelete).toEqual([]);
  });

  it("creates a Deployment through AppsV1Api and uses its scale and status subresources", async () => {
    const r = await run("deployment");
    expect(r).toMatchObject({ createdGeneration: 1, kind: "Deployment", apiVersion: "apps/v1", generation: 1, replicas: 2 });
    expect(r.scale).toEqual({ kind: "Scale", specReplicas: 2 });
    expect(r.scaled).toBe(3);
    expect(r.replicasAfterScale).toBe(3);
    expect(r.statusKind).toBe("Deployment");
    expect(r.allNamespaces).toContain("py-deployment/web");
  });

  // The apps/v1 Deployment and PodSpec defaults kube-apiserver 1.34 fills in, seen by the Python client.
  it("reads the Deployment back with the server's defaults", async () => {
    const r = await run("deployment", "py-deployment-defaults");
    expect(r.strategy).toEqual({ type: "RollingUpdate", maxSurge: "25%", maxUnavailable: "25%" });
    expect(r.revisionHistoryLimit).toBe(10);
    expect(r.progressDeadlineSeconds).toBe(600);
    expect(r.pod).toMatchObject({ restartPolicy: "Always", dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler", terminationGracePeriodSeconds: 30 });
    expect(r.pod.securityContext).toBeTypeOf("object");
    expect(r.pod.securityContext).not.toBeNull();
    expect(r.container).toEqual({
      imagePullPolicy: "IfNotPresent",
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      portProtocol: "TCP",
    });
  });

  it("lists with label and field selectors", async () => {
    const r = await run("selectors");
    expect(r.equality).toEqual(["web-1", "web-2"]);
    expect(r.two).toEqual(["web-1"]);
    expect(r.set).toEqual(["db-1", "web-1"]);
    expect(r.exists).toEqual(["db-1", "web-1", "web-2"]);
    expect(r.notExists).toEqual(["plain"]);
    expect(r.field).toEqual(["db-1"]);
    expect(r.fieldNot).toEqual(["plain", "web-1", "web-2"]);
    expectStatus(r.invalidSelector, 400, "BadRequest");
  });

  it("pages through a list with limit and _continue", async () => {
    const r = await run("paging");
    const pages = r.pages as { names: string[]; continue: boolean; remainingItemCount: number | null; resourceVersion: string }[];
    expect(pages.map((p) => p.names)).toEqual([
      ["page-0", "page-1", "page-2"],
      ["page-3", "page-4", "page-5"],
      ["page-6"],
    ]);
    expect(pages.map((p) => p.continue)).toEqual([true, true, false]);
    expect(pages.map((p) => p.remainingItemCount)).toEqual([4, 1, null]);
    // Every page is served from the first page's snapshot.
    expect(new Set(pages.map((p) => p.resourceVersion)).size).toBe(1);
    expectStatus(r.badContinue, 400, "BadRequest");
  });

  it("watches ConfigMaps with watch.Watch().stream and sees ADDED, MODIFIED and DELETED", async () => {
    const r = await run("watch");
    expect(r.errors).toEqual([]);
    expect(r.watcherFinished).toBe(true);
    const events = r.events as { type: string; name: string; data: Record<string, string>; resourceVersion: string; rawKind: string }[];
    expect(events.map((e) => [e.type, e.name, e.data])).toEqual([
      ["ADDED", "watched", { v: "1" }],
      ["MODIFIED", "watched", { v: "2" }],
      ["DELETED", "watched", { v: "2" }],
    ]);
    expect(events.every((e) => e.rawKind === "ConfigMap")).toBe(true);
    expect(new Set([r.listResourceVersion, ...events.map((e) => e.resourceVersion)]).size).toBe(4);
    // Without a resourceVersion the stream starts with what exists, then ends at timeout_seconds.
    expect(r.initial).toEqual([{ type: "ADDED", name: "existing" }]);
    expect(r.quiet.events).toBe(0);
    expect(r.quiet.seconds).toBeGreaterThanOrEqual(0.9);
    expect(r.quiet.seconds).toBeLessThan(10);
  });

  it("raises ApiException with the Status body for 404, 409 and 422", async () => {
    const r = await run("errors");
    expectStatus(r.notFound, 404, "NotFound");
    expect(r.notFound.reason).toBe("Not Found");
    expect(r.notFound.body).toMatchObject({ message: 'configmaps "missing" not found', details: { name: "missing", kind: "configmaps" } });

    expectStatus(r.alreadyExists, 409, "AlreadyExists");
    expect(r.alreadyExists.reason).toBe("Conflict");
    expect(r.alreadyExists.body).toMatchObject({ message: 'configmaps "dup" already exists', details: { name: "dup", kind: "configmaps" } });

    expectStatus(r.invalid, 422, "Invalid");
    expect(r.invalid.body.details).toMatchObject({ name: "Not_A_Valid_Name", kind: "ConfigMap" });
    expect(r.invalid.body.details.causes).toContainEqual(expect.objectContaining({ reason: "FieldValueInvalid", field: "metadata.name" }));

    expectStatus(r.namespaceNotFound, 404, "NotFound");
    expect(r.namespaceNotFound.body).toMatchObject({ message: 'namespaces "no-such-namespace" not found', details: { name: "no-such-namespace", kind: "namespaces" } });
    expectStatus(r.deleteMissing, 404, "NotFound");
    expectStatus(r.namespaceAlreadyExists, 409, "AlreadyExists");
  });

  it("drives ConfigMaps through the dynamic client's discovery", async () => {
    const r = await run("dynamic");
    expect(r.configmapResource).toEqual({
      name: "configmaps",
      namespaced: true,
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["cm"],
    });
    expect(r.deploymentResource).toEqual({ name: "deployments", group: "apps", namespaced: true });
    expect(r.created).toBe("dyn");
    expect(r.got).toEqual({ a: "b" });
    expect(r.listKind).toBe("ConfigMapList");
    expect(r.listed).toEqual(["dyn"]);
    expect(r.patched).toEqual({ a: "b", c: "d" });
  });

  it("reads True as kube-apiserver does: orphan_dependents=True keeps the dependent, force_conflicts=True takes ownership", async () => {
    const r = await run("booleans");
    expect(r.ownerGone).toBe(true);
    expect(r.dependent.status).toBeNull();
    expect(r.dependent.ownerReferences ?? []).toEqual([]);
    expectStatus(r.conflict, 409, "Conflict");
    expect(r.conflict.body.message).toContain('conflict with "first"');
    expect(r.forced.data).toEqual({ key: "two" });
    expect(r.forced.owners).toEqual(["second"]);
  });
});
