// A CertificateSigningRequest records who asked from the request's authenticated (or
// impersonated) user, never from the body: a token user who claims to be a node is shown as
// themselves to approvers (kubectl get csr REQUESTOR), and an update cannot rewrite the spec.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrRequest } from "../src/admission/certificates/csr.testkit.js";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33) ?? kubectlBinary(32);
const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

/** A CSR body that claims to come from a kubelet. */
async function spoofedCsr(name: string) {
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: {
      signerName: "example.com/widgets",
      request: (await csrRequest(name)).request,
      usages: ["client auth"],
      username: "system:node:worker-1",
      uid: "node-uid",
      groups: ["system:nodes", "system:authenticated"],
      extra: { "authentication.kubernetes.io/node-name": ["worker-1"] },
    },
    status: { conditions: [{ type: "Approved", status: "True", reason: "Self", message: "self-approved" }] },
  };
}

describe.skipIf(!bin)("CertificateSigningRequest requester fields", () => {
  let s: TestServer;
  let dir: string;
  let malloryKubeconfig: string;
  let adminKubeconfig: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-csr-requester-"));
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, 'tok-mallory,mallory,uid-mallory,"csr-makers"\n');
    s = await startTestServer({ dataDir: join(dir, "data"), options: { tokenAuthFile: tokens, authorizationMode: ["RBAC"] } });
    adminKubeconfig = join(dir, "admin.kubeconfig");
    writeFileSync(adminKubeconfig, s.kubeconfig);
    malloryKubeconfig = join(dir, "mallory.kubeconfig");
    writeFileSync(
      malloryKubeconfig,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: s.url, "certificate-authority-data": Buffer.from(s.admin.ca).toString("base64") } }],
        users: [{ name: "mallory", user: { token: "tok-mallory" } }],
        contexts: [{ name: "c", context: { cluster: "c", user: "mallory" } }],
        "current-context": "c",
      }),
    );
    const ok = (r: { status: number; json: unknown }) => expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
    ok(
      await req(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
        body: { metadata: { name: "csr-maker" }, rules: [{ apiGroups: ["certificates.k8s.io"], resources: ["certificatesigningrequests", "certificatesigningrequests/status"], verbs: ["create", "get", "update"] }] },
      }),
    );
    ok(
      await req(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        body: {
          metadata: { name: "csr-makers" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "csr-maker" },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "csr-makers" }],
        },
      }),
    );
  }, 60_000);
  afterAll(async () => s?.stop());

  it("a token user who claims to be a node is recorded, and shown by kubectl get csr, as themselves", async () => {
    const created = await kubectl(bin!, malloryKubeconfig, ["create", "-f", "-", "-o", "json"], JSON.stringify(await spoofedCsr("spoofed")));
    expect(created.stderr).toBe("");
    const csr = JSON.parse(created.stdout);
    expect(csr.spec.username).toBe("mallory");
    expect(csr.spec.uid).toBe("uid-mallory");
    expect(csr.spec.groups).toEqual(["csr-makers", "system:authenticated"]);
    expect(csr.spec).not.toHaveProperty("extra");
    // Nor is a request created approved.
    expect(csr.status).toEqual({});

    const listed = await kubectl(bin!, adminKubeconfig, ["get", "csr", "spoofed"]);
    expect(listed.stderr).toBe("");
    const [header, row] = listed.stdout.trim().split("\n");
    expect(header!.split(/\s{2,}/)).toEqual(["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]);
    expect(row!.split(/\s{2,}/)[3]).toBe("mallory");
    expect(row!.split(/\s{2,}/)[5]).toBe("Pending");
  });

  it("an update cannot rewrite the requester (the spec is fixed at creation)", async () => {
    await kubectl(bin!, malloryKubeconfig, ["create", "-f", "-"], JSON.stringify(await spoofedCsr("rewritten")));
    const stored = (await req(s, "GET", `${csrPath}/rewritten`)).json;
    const changed = { ...stored, metadata: { ...stored.metadata, labels: { touched: "yes" } }, spec: { ...stored.spec, username: "system:node:worker-1", groups: ["system:nodes"] } };
    const put = await req(s, "PUT", `${csrPath}/rewritten`, { body: changed, creds: s.as("tok-mallory") });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.metadata.labels).toEqual({ touched: "yes" });
    expect(put.json.spec).toEqual(stored.spec);
    expect((await req(s, "GET", `${csrPath}/rewritten`)).json.spec.username).toBe("mallory");
  });

  it("an impersonated user's uid and extra are recorded as the request's", async () => {
    const r = await req(s, "POST", csrPath, {
      body: await spoofedCsr("impersonated"),
      headers: { "Impersonate-User": "carol", "Impersonate-Uid": "uid-carol", "Impersonate-Group": "system:masters", "Impersonate-Extra-Scopes": "view" },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.spec).toMatchObject({ username: "carol", uid: "uid-carol", groups: ["system:masters", "system:authenticated"], extra: { scopes: ["view"] } });
  });

  it("a writer of /status cannot approve, and nobody can take a decision back", async () => {
    await kubectl(bin!, malloryKubeconfig, ["create", "-f", "-"], JSON.stringify(await spoofedCsr("self-approved")));
    const stored = (await req(s, "GET", `${csrPath}/self-approved`)).json;
    const approved = { type: "Approved", status: "True", reason: "Self", message: "self-approved" };
    const viaStatus = await req(s, "PUT", `${csrPath}/self-approved/status`, { body: { ...stored, status: { conditions: [approved] } }, creds: s.as("tok-mallory") });
    expect(viaStatus.status, JSON.stringify(viaStatus.json)).toBe(422);
    expect(viaStatus.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "status.conditions", message: 'Forbidden: updates may not add a condition of type "Approved"' }]);
    expect((await req(s, "GET", `${csrPath}/self-approved`)).json.status).toEqual({});

    // The approver's way in (kubectl certificate approve writes /approval) still works ...
    const ok = await kubectl(bin!, adminKubeconfig, ["certificate", "approve", "self-approved"]);
    expect(ok.stderr).toBe("");
    const decided = (await req(s, "GET", `${csrPath}/self-approved`)).json;
    expect(decided.status.conditions.map((c: { type: string }) => c.type)).toEqual(["Approved"]);
    // ... and the decision stays, on /status and on /approval alike.
    for (const sub of ["status", "approval"]) {
      const undo = await req(s, "PUT", `${csrPath}/self-approved/${sub}`, { body: { ...decided, status: { conditions: [] } } });
      expect(undo.status, JSON.stringify(undo.json)).toBe(422);
      expect(undo.json.details.causes[0].message).toBe('Forbidden: updates may not remove a condition of type "Approved"');
    }
  });
});
