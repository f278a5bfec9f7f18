// The Node authorizer against a real server started with --authorization-mode=Node: kubelets
// identified by client certificates (CN system:node:<name>, O system:nodes), checked with kubectl.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeaf } from "../src/authn/certs.js";
import { req, startTestServer, type Credentials, type EmbeddedTestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33) ?? kubectlBinary(32);

const pod = (name: string, nodeName: string, secret: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns" },
  spec: {
    nodeName,
    serviceAccountName: "default",
    containers: [{ name: "c", image: "busybox", envFrom: [{ configMapRef: { name: `${name}-env` } }] }],
    volumes: [{ name: "s", secret: { secretName: secret } }],
  },
});

describe.skipIf(!bin)("Node authorizer (--authorization-mode=Node), kubectl as two kubelets", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  const creds: Record<string, Credentials> = {};
  const kubeconfig: Record<string, string> = {};
  const run = (who: string, args: string[]) => kubectl(bin!, kubeconfig[who], args);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-node-authz-"));
    s = await startTestServer({ dataDir: join(dir, "data"), options: { authorizationMode: ["Node"] } });
    const pki = join(dir, "data", "pki");
    const ca = { certPem: readFileSync(join(pki, "client-ca.crt"), "utf8"), keyPem: readFileSync(join(pki, "client-ca.key"), "utf8") };
    for (const n of ["a", "b"]) {
      const leaf = await createLeaf(ca, { commonName: `system:node:${n}`, organizations: ["system:nodes"], usage: "client" });
      creds[n] = { ca: s.admin.ca, cert: leaf.certPem, key: leaf.keyPem };
      const b64 = (x: string) => Buffer.from(x).toString("base64");
      kubeconfig[n] = join(dir, `node-${n}.kubeconfig`);
      writeFileSync(
        kubeconfig[n],
        stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "kapi", cluster: { server: s.url, "certificate-authority-data": b64(s.admin.ca) } }],
          users: [{ name: n, user: { "client-certificate-data": b64(leaf.certPem), "client-key-data": b64(leaf.keyPem) } }],
          contexts: [{ name: n, context: { cluster: "kapi", user: n } }],
          "current-context": n,
        }),
      );
    }
    const create = async (path: string, body: unknown) => {
      const r = await req(s, "POST", path, { body });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
    };
    await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } });
    for (const name of ["secret-a", "secret-b"]) await create("/api/v1/namespaces/ns/secrets", { apiVersion: "v1", kind: "Secret", metadata: { name }, stringData: { k: name } });
    for (const name of ["pod-a-env", "pod-b-env"]) await create("/api/v1/namespaces/ns/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });
    await create("/api/v1/namespaces/ns/pods", pod("pod-a", "a", "secret-a"));
    await create("/api/v1/namespaces/ns/pods", pod("pod-b", "b", "secret-b"));
  }, 60_000);
  afterAll(async () => s?.stop());

  // Node alone denies discovery (upstream: RBAC's system:discovery grants it), so kubectl goes
  // straight to the paths with --raw, as a kubelet's client does.
  it("node a reads its pod's Secret and ConfigMap; node b is refused with upstream's message", async () => {
    await whenSettled(s, "node a reads secret-a", async () => (await run("a", ["get", "--raw", "/api/v1/namespaces/ns/secrets/secret-a"])).code === 0 || undefined);
    const ok = await run("a", ["get", "--raw", "/api/v1/namespaces/ns/secrets/secret-a"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(Buffer.from(JSON.parse(ok.stdout).data.k, "base64").toString()).toBe("secret-a");
    expect(JSON.parse((await run("a", ["get", "--raw", "/api/v1/namespaces/ns/configmaps/pod-a-env"])).stdout).data).toEqual({ k: "pod-a-env" });

    const no = await run("b", ["get", "--raw", "/api/v1/namespaces/ns/secrets/secret-a"]);
    expect(no.code).not.toBe(0);
    expect(no.stderr.trim()).toBe(
      `Error from server (Forbidden): secrets "secret-a" is forbidden: User "system:node:b" cannot get resource "secrets" in API group "" in the namespace "ns": no relationship found between node 'b' and this object`,
    );
    expect((await run("b", ["get", "--raw", "/api/v1/namespaces/ns/secrets/secret-b"])).code).toBe(0);
    // Discovery is not the Node authorizer's to grant.
    const disc = await run("a", ["get", "--raw", "/api"]);
    expect(disc.stderr).toContain(`User "system:node:a" cannot get path "/api"`);
  });

  it("403 Status over HTTP for an unrelated secret and for listing secrets", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/ns/secrets/secret-b", { creds: creds.a });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      details: { name: "secret-b", kind: "secrets" },
      message: `secrets "secret-b" is forbidden: User "system:node:a" cannot get resource "secrets" in API group "" in the namespace "ns": no relationship found between node 'a' and this object`,
    });
    const list = await req(s, "GET", "/api/v1/namespaces/ns/secrets", { creds: creds.a });
    expect(list.status).toBe(403);
    expect(list.json.message).toBe(`secrets is forbidden: User "system:node:a" cannot list resource "secrets" in API group "" in the namespace "ns": No Object name found`);
  });

  it("nodes: only its own Node object; services readable; the rest refused", async () => {
    const all = await run("a", ["get", "--raw", "/api/v1/nodes"]);
    expect(all.stderr.trim()).toBe(`Error from server (Forbidden): nodes is forbidden: User "system:node:a" cannot list resource "nodes" in API group "" at the cluster scope: node 'a' cannot read all nodes, only its own Node object`);
    const other = await run("a", ["get", "--raw", "/api/v1/nodes/b"]);
    expect(other.stderr.trim()).toBe(`Error from server (Forbidden): nodes "b" is forbidden: User "system:node:a" cannot get resource "nodes" in API group "" at the cluster scope: node 'a' cannot read 'b', only its own Node object`);
    const own = await run("a", ["get", "--raw", "/api/v1/nodes/a"]);
    expect(own.stderr).toContain(`nodes "a" not found`); // allowed: it is simply not registered yet
    expect((await run("a", ["get", "--raw", "/api/v1/services"])).code).toBe(0);
    const ns = await run("a", ["get", "--raw", "/api/v1/namespaces"]);
    expect(ns.stderr.trim()).toBe(`Error from server (Forbidden): namespaces is forbidden: User "system:node:a" cannot list resource "namespaces" in API group "" at the cluster scope`);
  });

  it("pods: get of its own only; listing every pod refused", async () => {
    expect(JSON.parse((await run("a", ["get", "--raw", "/api/v1/namespaces/ns/pods/pod-a"])).stdout).metadata.name).toBe("pod-a");
    const other = await run("a", ["get", "--raw", "/api/v1/namespaces/ns/pods/pod-b"]);
    expect(other.stderr).toContain(`User "system:node:a" cannot get resource "pods" in API group "" in the namespace "ns": no relationship found between node 'a' and this object`);
    const all = await run("a", ["get", "--raw", "/api/v1/pods"]);
    expect(all.stderr).toContain("can only list/watch pods with spec.nodeName field selector");
  });

  it("lists and watches pods with fieldSelector spec.nodeName=<its name>, as a kubelet does", async () => {
    const own = await req(s, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Da", { creds: creds.a });
    expect(own.status).toBe(200);
    expect(own.json.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(["pod-a"]);
    const watch = await req(s, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Da&watch=1&timeoutSeconds=1", { creds: creds.a });
    expect(watch.status).toBe(200);
    const other = await req(s, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Db", { creds: creds.a });
    expect(other.status).toBe(403);
    // One Secret watched by name, as the kubelet's reflectors do: allowed for its pod's Secret only.
    expect((await req(s, "GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dsecret-a", { creds: creds.a })).status).toBe(200);
    expect((await req(s, "GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dsecret-b", { creds: creds.a })).status).toBe(403);
  });

  it("SubjectAccessReviews about a node, asked by the admin", async () => {
    const sar = async (attrs: Record<string, unknown>) => {
      const r = await req(s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { user: "system:node:a", groups: ["system:nodes"], resourceAttributes: attrs } },
      });
      expect(r.status).toBe(201);
      return r.json.status;
    };
    expect(await sar({ verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease", name: "a" })).toMatchObject({ allowed: true });
    expect(await sar({ verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease", name: "b" })).toMatchObject({
      allowed: false,
      reason: "can only access node lease with the same name as the requesting node",
    });
    expect(await sar({ verb: "create", group: "certificates.k8s.io", resource: "certificatesigningrequests" })).toMatchObject({ allowed: true });
    expect(await sar({ verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "ns", name: "default" })).toMatchObject({ allowed: true });
    expect(await sar({ verb: "get", resource: "secrets", namespace: "ns", name: "secret-b" })).toMatchObject({ allowed: false, reason: "no relationship found between node 'a' and this object" });
    expect(await sar({ verb: "delete", resource: "nodes", name: "a" })).toMatchObject({ allowed: false });
    expect(await sar({ verb: "create", group: "authentication.k8s.io", resource: "tokenreviews" })).toMatchObject({ allowed: true });
    // The review's selectors reach the authorizer (AuthorizeWithSelectors), raw or as requirements.
    expect(await sar({ verb: "list", resource: "pods", fieldSelector: { rawSelector: "spec.nodeName=a" } })).toMatchObject({ allowed: true });
    expect(await sar({ verb: "list", resource: "pods", fieldSelector: { requirements: [{ key: "spec.nodeName", operator: "In", values: ["a"] }] } })).toMatchObject({ allowed: true });
    expect(await sar({ verb: "list", resource: "pods", fieldSelector: { rawSelector: "spec.nodeName=b" } })).toMatchObject({ allowed: false });
    expect(await sar({ verb: "list", resource: "pods" })).toMatchObject({ allowed: false });
  });

  it("deleting the pod takes node a's access away; the pod recreated on b moves it to b", async () => {
    const del = await req(s, "DELETE", "/api/v1/namespaces/ns/pods/pod-a?gracePeriodSeconds=0", {});
    expect(del.status).toBeLessThan(300);
    await whenSettled(s, "node a gets 403 for secret-a", async () => (await req(s, "GET", "/api/v1/namespaces/ns/secrets/secret-a", { creds: creds.a })).status === 403 || undefined);
    expect((await req(s, "GET", "/api/v1/namespaces/ns/secrets/secret-a", { creds: creds.b })).status).toBe(403);
    const r = await req(s, "POST", "/api/v1/namespaces/ns/pods", { body: pod("pod-a", "b", "secret-a") });
    expect(r.status).toBe(201);
    await whenSettled(s, "node b gets 200 for secret-a", async () => (await req(s, "GET", "/api/v1/namespaces/ns/secrets/secret-a", { creds: creds.b })).status === 200 || undefined);
    expect((await req(s, "GET", "/api/v1/namespaces/ns/secrets/secret-a", { creds: creds.a })).status).toBe(403);
  });
});
