// NodeRestriction (--enable-admission-plugins=NodeRestriction) with --authorization-mode=Node,RBAC
// on a real server: two kubelets identified by client certificates (CN system:node:<name>,
// O system:nodes). The Node authorizer lets a kubelet update any Node and delete any pod;
// NodeRestriction narrows that to its own, with upstream's messages, through kubectl and HTTP.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrRequest } from "../src/admission/certificates/csr.testkit.js";
import { certUser, type CertUser } from "./support/cert-user.js";
import { req, startTestServer, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33) ?? kubectlBinary(32);

describe.skipIf(!bin)("NodeRestriction with the Node authorizer, kubectl as two kubelets", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  const nodes: Record<string, CertUser> = {};
  const nodeUid: Record<string, string> = {};
  const as = (who: string, args: string[], stdin?: string) => kubectl(bin!, nodes[who]!.kubeconfig, args, stdin);
  const admin = async (method: string, path: string, body?: unknown) => {
    const r = await req(s, method, path, { body });
    expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
    return r.json;
  };
  const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", ...extra },
    spec: { nodeName, containers: [{ name: "c", image: "busybox" }] },
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-noderestriction-"));
    const dataDir = join(dir, "data");
    s = await startTestServer({ dataDir, options: { authorizationMode: ["Node", "RBAC"], enableAdmissionPlugins: ["NodeRestriction"] } });
    for (const n of ["a", "b"]) {
      nodes[n] = await certUser(s, dataDir, dir, `system:node:${n}`, ["system:nodes"]);
      const created = await admin("POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: n, labels: { "kubernetes.io/hostname": n } } });
      nodeUid[n] = created.metadata.uid;
    }
    // Pods need their namespace's default ServiceAccount (the ServiceAccount admission plugin
    // refuses them before the controller made it): settled, it is made, unless the controller is off.
    const saPath = "/api/v1/namespaces/default/serviceaccounts/default";
    await s.settle();
    if ((await req(s, "GET", saPath)).status === 404) {
      await admin("POST", "/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } });
    }
    await admin("POST", "/api/v1/namespaces/default/pods", pod("on-a", "a"));
    await admin("POST", "/api/v1/namespaces/default/pods", pod("on-b", "b"));
  }, 60_000);
  afterAll(async () => s?.stop());

  it("a kubelet patching another node's labels: 403 from NodeRestriction; its own: allowed", async () => {
    // kubectl patch/label would read node b first, which the Node authorizer already refuses; a
    // raw PUT reaches admission, as a kubelet's own client would.
    const b = await admin("GET", "/api/v1/nodes/b");
    b.metadata.labels["example.com/x"] = "y";
    const other = await as("a", ["replace", "--raw", "/api/v1/nodes/b", "-f", "-"], JSON.stringify(b));
    expect(other.code).not.toBe(0);
    expect(other.stderr.trim()).toBe('Error from server (Forbidden): nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    const own = await as("a", ["label", "node", "a", "example.com/x=y", "topology.kubernetes.io/zone=z1"]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout.trim()).toBe("node/a labeled");
    expect((await admin("GET", "/api/v1/nodes/a")).metadata.labels).toMatchObject({ "example.com/x": "y", "topology.kubernetes.io/zone": "z1" });
  });

  it("a kubelet may not give itself node-restriction or other kubernetes.io labels, nor change its taints", async () => {
    const label = await as("a", ["label", "node", "a", "node-restriction.kubernetes.io/trusted=yes", "node-role.kubernetes.io/control-plane="]);
    expect(label.code).not.toBe(0);
    expect(label.stderr.trim()).toBe(
      'Error from server (Forbidden): nodes "a" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/trusted, node-role.kubernetes.io/control-plane',
    );
    const taint = await as("a", ["taint", "node", "a", "dedicated=x:NoSchedule"]);
    expect(taint.code).not.toBe(0);
    expect(taint.stderr.trim()).toBe('Error from server (Forbidden): nodes "a" is forbidden: node "a" is not allowed to modify taints');
    // The cluster admin is no kubelet: NodeRestriction leaves it alone.
    expect((await req(s, "PATCH", "/api/v1/nodes/a", { body: { metadata: { labels: { "node-restriction.kubernetes.io/trusted": "yes" } } }, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
  });

  it("pods: deleting another node's pod and updating its status are refused; its own are allowed", async () => {
    const del = await as("a", ["delete", "pod", "on-b", "--wait=false"]);
    expect(del.code).not.toBe(0);
    expect(del.stderr.trim()).toBe('Error from server (Forbidden): pods "on-b" is forbidden: node "a" can only delete pods with spec.nodeName set to itself');
    const onB = await admin("GET", "/api/v1/namespaces/default/pods/on-b");
    const status = await req(s, "PUT", "/api/v1/namespaces/default/pods/on-b/status", { body: { ...onB, status: { phase: "Running" } }, creds: nodes.a!.creds });
    expect(status.status).toBe(403);
    expect(status.json).toMatchObject({
      reason: "Forbidden",
      details: { name: "on-b", kind: "pods" },
      message: 'pods "on-b" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself',
    });
    const onA = await admin("GET", "/api/v1/namespaces/default/pods/on-a");
    const own = await req(s, "PUT", "/api/v1/namespaces/default/pods/on-a/status", { body: { ...onA, status: { phase: "Running" } }, creds: nodes.a!.creds });
    expect(own.status, JSON.stringify(own.json)).toBe(200);
    const ok = await as("a", ["delete", "pod", "on-a", "--wait=false"]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("evictions: a kubelet evicts its own pods only", async () => {
    await admin("POST", "/api/v1/namespaces/default/pods", pod("evict-a", "a"));
    await admin("POST", "/api/v1/namespaces/default/pods", pod("evict-b", "b"));
    const evict = (name: string) =>
      req(s, "POST", `/api/v1/namespaces/default/pods/${name}/eviction`, {
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: "default" } },
        creds: nodes.a!.creds,
      });
    const other = await evict("evict-b");
    expect(other.status).toBe(403);
    expect(other.json.message).toBe('pods "evict-b" is forbidden: node a can only evict pods with spec.nodeName set to itself');
    const own = await evict("evict-a");
    expect(own.status, JSON.stringify(own.json)).toBe(201);
  });

  it("pods: a kubelet creates mirror pods of its own only", async () => {
    const plain = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: pod("plain", "a"), creds: nodes.a!.creds });
    expect(plain.status).toBe(403);
    expect(plain.json.message).toBe('pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods');
    const mirror = (name: string, nodeName: string, ownerUid: string) =>
      pod(name, nodeName, {
        annotations: { "kubernetes.io/config.mirror": "hash", "kubernetes.io/config.source": "file" },
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: ownerUid, controller: true }],
      });
    const elsewhere = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: mirror("static-b", "b", nodeUid.b!), creds: nodes.a!.creds });
    expect(elsewhere.json.message).toBe('pods "static-b" is forbidden: node "a" can only create pods with spec.nodeName set to itself');
    const ok = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: mirror("static-a", "a", nodeUid.a!), creds: nodes.a!.creds });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
  });

  it("leases: only its own in kube-node-lease", async () => {
    const lease = (name: string) => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace: "kube-node-lease" }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
    const other = await req(s, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { body: lease("b"), creds: nodes.a!.creds });
    expect(other.status).toBe(403);
    expect(other.json.message).toBe('leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    const own = await req(s, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { body: lease("a"), creds: nodes.a!.creds });
    expect(own.status, JSON.stringify(own.json)).toBe(201);
  });

  it("service account tokens: bound to its own pods only, for audiences the pod uses", async () => {
    const tokenPod = (name: string, nodeName: string) => ({
      ...pod(name, nodeName),
      spec: {
        nodeName,
        serviceAccountName: "default",
        containers: [{ name: "c", image: "busybox" }],
        volumes: [{ name: "vault-token", projected: { sources: [{ serviceAccountToken: { path: "token", audience: "vault" } }] } }],
      },
    });
    const tokA = await admin("POST", "/api/v1/namespaces/default/pods", tokenPod("tok-a", "a"));
    const tokB = await admin("POST", "/api/v1/namespaces/default/pods", tokenPod("tok-b", "b"));
    const token = (podName: string, uid: string, audience: string) =>
      as("a", ["create", "token", "default", "--bound-object-kind=Pod", `--bound-object-name=${podName}`, `--bound-object-uid=${uid}`, `--audience=${audience}`]);
    const other = await token("tok-b", tokB.metadata.uid, "vault");
    expect(other.code).not.toBe(0);
    expect(other.stderr.trim()).toBe('error: failed to create token: serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    const wrongAudience = await token("tok-a", tokA.metadata.uid, "elsewhere");
    expect(wrongAudience.stderr.trim()).toBe(
      'error: failed to create token: serviceaccounts "default" is forbidden: audience "elsewhere" not found in pod spec volume, system:node:a is not authorized to request tokens for this audience',
    );
    const ok = await token("tok-a", tokA.metadata.uid, "vault");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split(".")).toHaveLength(3); // a JWT
  });

  it("CSRs: a kubelet asks for a client certificate in its own name only", async () => {
    const csr = async (name: string, cn: string) => ({
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: { signerName: "kubernetes.io/kube-apiserver-client-kubelet", request: (await csrRequest(cn, ["system:nodes"])).request, usages: ["client auth"] },
    });
    const other = await req(s, "POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests", { body: await csr("node-csr-b", "system:node:b"), creds: nodes.a!.creds });
    expect(other.status).toBe(403);
    expect(other.json.message).toBe('certificatesigningrequests.certificates.k8s.io "node-csr-b" is forbidden: can only create a node CSR with CN=system:node:a');
    const own = await req(s, "POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests", { body: await csr("node-csr-a", "system:node:a"), creds: nodes.a!.creds });
    expect(own.status, JSON.stringify(own.json)).toBe(201);
  });
});
