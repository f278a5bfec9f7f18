import { describe, expect, it } from "vitest";
import type { UserInfo } from "../../apimachinery/user.js";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { csrRequest } from "./csr.testkit.js";
import { certificateApproval, certificateSigning, certificateSubjectRestriction, clusterTrustBundleAttest } from "./index.js";

const type = (group: string, resource: string) => ({ group, resource, namespaced: false, gr: { group, resource } }) as ResourceType;
const csrs = type("certificates.k8s.io", "certificatesigningrequests");
const ctbs = type("certificates.k8s.io", "clustertrustbundles");
const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };

/** An authorizer granting `verb` on the named signers only, recording what it was asked. */
function signerAuthorizer(grants: Record<string, string[]>): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize(a) {
      asked.push(a);
      const ok = a.apiGroup === "certificates.k8s.io" && a.resource === "signers" && (grants[a.verb] ?? []).includes(a.name);
      return { decision: ok ? "allow" : "no-opinion", reason: "" };
    },
  };
}

const csr = (signerName: string, status: Record<string, unknown> = {}): KObject => ({ metadata: { name: "req" }, spec: { signerName, request: "" }, status }) as KObject;
const approved = { conditions: [{ type: "Approved", status: "True", reason: "Ok" }] };

const attrs = (a: Partial<AdmissionAttributes>) =>
  admissionAttributes({ operation: "UPDATE", type: csrs, namespace: "", name: "req", subresource: "", dryRun: false, user: alice, ...a });

describe("CertificateApproval", () => {
  it("refuses approving for a signer the user may not approve, with upstream's message", async () => {
    const authz = signerAuthorizer({});
    const p = certificateApproval(() => authz);
    const e = await Promise.resolve(p.validate!(attrs({ subresource: "approval", object: csr("example.com/a", approved), oldObject: csr("example.com/a") }))).catch((x) => x);
    expect(e).toMatchObject({
      code: 403,
      message: 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"',
    });
    // The signer itself, then the domain wildcard, on the synthetic signers resource.
    expect(authz.asked.map((a) => [a.verb, a.resource, a.name, a.apiVersion])).toEqual([
      ["approve", "signers", "example.com/a", "*"],
      ["approve", "signers", "example.com/*", "*"],
    ]);
  });

  it("allows with approve on the signer or on its domain wildcard", async () => {
    for (const name of ["example.com/a", "example.com/*"]) {
      const p = certificateApproval(() => signerAuthorizer({ approve: [name] }));
      await expect(p.validate!(attrs({ subresource: "approval", object: csr("example.com/a", approved), oldObject: csr("example.com/a") }))).resolves.toBeUndefined();
    }
  });

  it("judges by the stored signer, not one the request tries to set", async () => {
    const p = certificateApproval(() => signerAuthorizer({ approve: ["example.com/mine"] }));
    const e = await Promise.resolve(p.validate!(attrs({ subresource: "approval", object: csr("example.com/mine", approved), oldObject: csr("example.com/theirs") }))).catch((x) => x);
    expect(e.message).toContain('signerName "example.com/theirs"');
  });

  it("ignores other subresources and other resources", async () => {
    const p = certificateApproval(() => signerAuthorizer({}));
    await expect(p.validate!(attrs({ subresource: "", object: csr("x/y"), oldObject: csr("x/y") }))).resolves.toBeUndefined();
    await expect(p.validate!(attrs({ type: ctbs, subresource: "approval", object: csr("x/y"), oldObject: csr("x/y") }))).resolves.toBeUndefined();
  });
});

describe("CertificateSigning", () => {
  const cert = { certificate: "LS0tLS1CRUdJTg==" };
  it("refuses writing a certificate without sign on the signer", async () => {
    const p = certificateSigning(() => signerAuthorizer({ approve: ["example.com/a"] }));
    const e = await Promise.resolve(p.validate!(attrs({ subresource: "status", object: csr("example.com/a", cert), oldObject: csr("example.com/a") }))).catch((x) => x);
    expect(e).toMatchObject({ code: 403, message: 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "example.com/a"' });
  });

  it("refuses changing conditions through status too, and allows with sign", async () => {
    const denied = certificateSigning(() => signerAuthorizer({}));
    const failed = { conditions: [{ type: "Failed", status: "True" }] };
    await expect(denied.validate!(attrs({ subresource: "status", object: csr("example.com/a", failed), oldObject: csr("example.com/a") }))).rejects.toMatchObject({ code: 403 });
    const ok = certificateSigning(() => signerAuthorizer({ sign: ["example.com/*"] }));
    await expect(ok.validate!(attrs({ subresource: "status", object: csr("example.com/a", cert), oldObject: csr("example.com/a") }))).resolves.toBeUndefined();
  });

  it("lets a status write that changes neither certificate nor conditions through", async () => {
    const p = certificateSigning(() => signerAuthorizer({}));
    await expect(p.validate!(attrs({ subresource: "status", object: csr("example.com/a", { ...cert, conditions: [] }), oldObject: csr("example.com/a", cert) }))).resolves.toBeUndefined();
  });
});

describe("CertificateSubjectRestriction", () => {
  const p = certificateSubjectRestriction();
  const create = async (signerName: string, request: string) =>
    p.validate!(attrs({ operation: "CREATE", name: "req", object: { metadata: { name: "req" }, spec: { signerName, request } } as KObject }));

  it("refuses system:masters from the kube-apiserver-client signer", async () => {
    const { request } = await csrRequest("mallory", ["dev", "system:masters"]);
    await expect(create("kubernetes.io/kube-apiserver-client", request)).rejects.toMatchObject({
      code: 403,
      message: 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    });
  });

  it("allows other groups, and system:masters from other signers", async () => {
    await expect(create("kubernetes.io/kube-apiserver-client", (await csrRequest("bob", ["dev"])).request)).resolves.toBeUndefined();
    await expect(create("example.com/any", (await csrRequest("bob", ["system:masters"])).request)).resolves.toBeUndefined();
  });

  it("refuses a request that is no CSR", async () => {
    await expect(create("kubernetes.io/kube-apiserver-client", Buffer.from("not pem").toString("base64"))).rejects.toMatchObject({
      message: 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST',
    });
  });
});

describe("ClusterTrustBundleAttest", () => {
  const bundle = (signerName: string, extra: Record<string, unknown> = {}): KObject =>
    ({ metadata: { name: "example.com:a:one", resourceVersion: "5", ...extra }, spec: { signerName, trustBundle: "PEM" } }) as KObject;
  const run = (p: ReturnType<typeof clusterTrustBundleAttest>, a: Partial<AdmissionAttributes>) =>
    p.validate!(attrs({ type: ctbs, operation: "CREATE", name: "example.com:a:one", object: bundle("example.com/a"), ...a }));

  it("refuses a bundle for a signer the user may not attest for", async () => {
    const p = clusterTrustBundleAttest(() => signerAuthorizer({}), true);
    await expect(run(p, {})).rejects.toMatchObject({
      code: 403,
      message: 'clustertrustbundles.certificates.k8s.io "example.com:a:one" is forbidden: user not permitted to attest for signerName "example.com/a"',
    });
  });

  it("allows with attest, without a signer, with the gate off, and for GC-only updates", async () => {
    await expect(run(clusterTrustBundleAttest(() => signerAuthorizer({ attest: ["example.com/a"] }), true), {})).resolves.toBeUndefined();
    const none = clusterTrustBundleAttest(() => signerAuthorizer({}), true);
    await expect(run(none, { object: bundle("") })).resolves.toBeUndefined();
    await expect(run(clusterTrustBundleAttest(() => signerAuthorizer({}), false), {})).resolves.toBeUndefined();
    const gcOnly = { operation: "UPDATE" as const, object: bundle("example.com/a", { finalizers: ["x"], ownerReferences: [{ name: "o" }] }), oldObject: bundle("example.com/a") };
    await expect(run(none, gcOnly)).resolves.toBeUndefined();
    const real = { operation: "UPDATE" as const, object: bundle("example.com/a", { labels: { a: "b" } }), oldObject: bundle("example.com/a") };
    await expect(run(none, real)).rejects.toMatchObject({ code: 403 });
  });
});
