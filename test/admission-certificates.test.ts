// The certificates.k8s.io admission plugins (on by default) against a real server with
// --authorization-mode=Node,RBAC: users identified by client certificates approve, sign and
// request certificates through kubectl and over HTTP; permission on the synthetic "signers"
// resource decides, with upstream's messages.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrRequest } from "../src/admission/certificates/csr.testkit.js";
import { certUser, type CertUser } from "./support/cert-user.js";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33) ?? kubectlBinary(32);
const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

describe.skipIf(!bin)("certificate admission (CertificateApproval, CertificateSigning, CertificateSubjectRestriction, ClusterTrustBundleAttest)", () => {
  let s: TestServer;
  let dir: string;
  let dataDir: string;
  let adminKubeconfig: string;
  const users: Record<string, CertUser> = {};
  const as = (who: string, args: string[], stdin?: string) => kubectl(bin!, users[who]!.kubeconfig, args, stdin);
  const admin = async (method: string, path: string, body?: unknown) => {
    const r = await req(s, method, path, { body });
    expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
    return r.json;
  };

  const role = (name: string, rules: unknown[]) => admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules });
  const bind = (name: string, role: string, user: string) =>
    admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
    });
  const csr = async (name: string, signerName: string, organizations: string[] = []) =>
    admin("POST", csrPath, {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: { signerName, request: (await csrRequest(name, organizations)).request, usages: ["client auth"] },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-cert-admission-"));
    dataDir = join(dir, "data");
    s = await startTestServer({
      dataDir,
      options: { authorizationMode: ["Node", "RBAC"], runtimeConfig: "certificates.k8s.io/v1beta1=true", featureGates: "ClusterTrustBundle=true" },
    });
    adminKubeconfig = join(dir, "admin.kubeconfig");
    writeFileSync(adminKubeconfig, s.kubeconfig);
    // Everyone here may read and write CSRs, their approval and status; signer permissions differ.
    await role("csr-editor", [
      { apiGroups: ["certificates.k8s.io"], resources: ["certificatesigningrequests"], verbs: ["get", "list", "watch", "create"] },
      { apiGroups: ["certificates.k8s.io"], resources: ["certificatesigningrequests/approval", "certificatesigningrequests/status"], verbs: ["update", "patch"] },
      { apiGroups: ["certificates.k8s.io"], resources: ["clustertrustbundles"], verbs: ["create", "update", "get"] },
    ]);
    await role("widget-approver", [{ apiGroups: ["certificates.k8s.io"], resources: ["signers"], resourceNames: ["example.com/widgets"], verbs: ["approve"] }]);
    await role("example-signer", [{ apiGroups: ["certificates.k8s.io"], resources: ["signers"], resourceNames: ["example.com/*"], verbs: ["sign", "attest"] }]);
    for (const name of ["alice", "carol", "sam"]) {
      users[name] = await certUser(s, dataDir, dir, name);
      await bind(`${name}-csr-editor`, "csr-editor", name);
    }
    await bind("carol-approves-widgets", "widget-approver", "carol");
    await bind("sam-signs-example", "example-signer", "sam");
  }, 60_000);
  afterAll(async () => s?.stop());

  it("kubectl certificate approve without approve on the signer: upstream's 403; with it: approved", async () => {
    await csr("widget-1", "example.com/widgets");
    const no = await as("alice", ["certificate", "approve", "widget-1"]);
    expect(no.code).not.toBe(0);
    expect(no.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "widget-1" is forbidden: user not permitted to approve requests with signerName "example.com/widgets"',
    );
    const ok = await as("carol", ["certificate", "approve", "widget-1"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe("certificatesigningrequest.certificates.k8s.io/widget-1 approved");
    const stored = await admin("GET", `${csrPath}/widget-1`);
    expect(stored.status.conditions).toMatchObject([{ type: "Approved", status: "True", reason: "KubectlApprove" }]);
    expect(stored.status.conditions[0].lastTransitionTime).toBeTruthy();
    // The approval subresource changes conditions only.
    expect(stored.spec.signerName).toBe("example.com/widgets");
  });

  it("a merge patch of approval is judged by the stored signer and changes nothing but conditions", async () => {
    await csr("widget-3", "example.com/widgets");
    const patch = { spec: { signerName: "example.com/gadgets" }, status: { conditions: [{ type: "Approved", status: "True", reason: "Patched", message: "by patch" }] } };
    const r = await req(s, "PATCH", `${csrPath}/widget-3/approval`, { body: patch, headers: { "content-type": "application/merge-patch+json" }, creds: users.carol!.creds });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.spec.signerName).toBe("example.com/widgets");
    expect(r.json.status.conditions).toMatchObject([{ type: "Approved", reason: "Patched" }]);
    // On an undecided request (taking widget-3's decision back is refused by validation first).
    await csr("widget-4", "example.com/widgets");
    const deny = { status: { conditions: [{ type: "Denied", status: "True", reason: "Mine" }] } };
    const no = await req(s, "PATCH", `${csrPath}/widget-4/approval`, { body: deny, headers: { "content-type": "application/merge-patch+json" }, creds: users.alice!.creds });
    expect(no.status).toBe(403);
  });

  it("approve on the signer does not cover another signer of the same domain; deny needs approve too", async () => {
    await csr("gadget-1", "example.com/gadgets");
    const no = await as("carol", ["certificate", "deny", "gadget-1"]);
    expect(no.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "gadget-1" is forbidden: user not permitted to approve requests with signerName "example.com/gadgets"',
    );
    // The admin (system:masters) may approve anything.
    const ok = await kubectl(bin!, adminKubeconfig, ["certificate", "deny", "gadget-1"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe("certificatesigningrequest.certificates.k8s.io/gadget-1 denied");
  });

  it("writing status.certificate needs sign on the signer (or its domain wildcard)", async () => {
    await csr("widget-2", "example.com/widgets");
    const current = await admin("GET", `${csrPath}/widget-2`);
    const withCert = { ...current, status: { certificate: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64") } };
    const no = await req(s, "PUT", `${csrPath}/widget-2/status`, { body: withCert, creds: users.carol!.creds });
    expect(no.status).toBe(403);
    expect(no.json).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      details: { name: "widget-2", group: "certificates.k8s.io", kind: "certificatesigningrequests" },
      message: 'certificatesigningrequests.certificates.k8s.io "widget-2" is forbidden: user not permitted to sign requests with signerName "example.com/widgets"',
    });
    const ok = await req(s, "PUT", `${csrPath}/widget-2/status`, { body: withCert, creds: users.sam!.creds });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.status.certificate).toBe(withCert.status.certificate);
  });

  it("a kube-apiserver-client CSR for system:masters is refused through kubectl create", async () => {
    const manifest = async (name: string, orgs: string[]) =>
      stringify({
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name },
        spec: { signerName: "kubernetes.io/kube-apiserver-client", request: (await csrRequest(name, orgs)).request, usages: ["client auth"] },
      });
    const no = await as("alice", ["create", "-f", "-"], await manifest("root-please", ["system:masters"]));
    expect(no.code).not.toBe(0);
    expect(no.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "root-please" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    const ok = await as("alice", ["create", "-f", "-"], await manifest("dev-please", ["developers"]));
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("a ClusterTrustBundle naming a signer needs attest on it", async () => {
    const bundle = (name: string, signerName: string) => ({
      apiVersion: "certificates.k8s.io/v1beta1",
      kind: "ClusterTrustBundle",
      metadata: { name },
      spec: { signerName, trustBundle: s.admin.ca }, // the server's own CA certificate
    });
    const no = await req(s, "POST", "/apis/certificates.k8s.io/v1beta1/clustertrustbundles", { body: bundle("example.com:widgets:a", "example.com/widgets"), creds: users.alice!.creds });
    expect(no.status, JSON.stringify(no.json)).toBe(403);
    expect(no.json.message).toBe('clustertrustbundles.certificates.k8s.io "example.com:widgets:a" is forbidden: user not permitted to attest for signerName "example.com/widgets"');
    const ok = await req(s, "POST", "/apis/certificates.k8s.io/v1beta1/clustertrustbundles", { body: bundle("example.com:widgets:a", "example.com/widgets"), creds: users.sam!.creds });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    // Validation (before the validating plugins) wants the signer's name as the bundle's prefix.
    const misnamed = await req(s, "POST", "/apis/certificates.k8s.io/v1beta1/clustertrustbundles", { body: bundle("widgets", "example.com/widgets"), creds: users.sam!.creds });
    expect(misnamed.status).toBe(422);
    expect(misnamed.json.message).toBe(
      'ClusterTrustBundle.certificates.k8s.io "widgets" is invalid: metadata.name: Invalid value: "widgets": ClusterTrustBundle for signerName example.com/widgets must be named with prefix example.com:widgets:',
    );
  });
});
