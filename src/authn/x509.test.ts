import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuthnRequest, ClientCertificate } from "./authenticator.js";
import { authenticatorConformance } from "./conformance.testkit.js";
import { daysFromNow, makeCert, type TestCert } from "./pki.testkit.js";
import { certificateIdentifier, verifyClientChain, x509Authenticator } from "./x509.js";

const x = (c: TestCert) => new X509Certificate(c.certPem);

function presented(leaf: TestCert, ...rest: TestCert[]): ClientCertificate {
  const cn = leaf.cert.subjectName.getField("CN")[0] ?? "";
  return { commonName: cn, organizations: leaf.cert.subjectName.getField("O"), chain: [x(leaf), ...rest.map(x)] };
}

const request = (cert?: ClientCertificate, headers: AuthnRequest["headers"] = {}): AuthnRequest => ({ path: "/api", headers, peerCertificate: cert });

let caA: TestCert, caB: TestCert, foreign: TestCert, sameNameForeign: TestCert, inter: TestCert;
let jane: TestCert, bob: TestCert, viaInter: TestCert, expired: TestCert, notYet: TestCert, serverUsage: TestCert, noUsage: TestCert, foreignLeaf: TestCert, impostor: TestCert, noCN: TestCert, rsaLeaf: TestCert, expiredInter: TestCert, leafOfExpiredInter: TestCert;

beforeAll(async () => {
  caA = await makeCert({ commonName: "ca-a" });
  caB = await makeCert({ commonName: "ca-b", rsa: true });
  foreign = await makeCert({ commonName: "foreign-ca" });
  sameNameForeign = await makeCert({ commonName: "ca-a" });
  inter = await makeCert({ commonName: "intermediate", issuer: caA, ca: true });
  expiredInter = await makeCert({ commonName: "old-intermediate", issuer: caA, ca: true, notBefore: daysFromNow(-20), notAfter: daysFromNow(-1) });
  jane = await makeCert({ commonName: "jane", organizations: ["team-a", "team-b"], issuer: caA });
  bob = await makeCert({ commonName: "bob", issuer: caB });
  viaInter = await makeCert({ commonName: "ivy", organizations: ["i"], issuer: inter });
  expired = await makeCert({ commonName: "old", issuer: caA, notBefore: daysFromNow(-10), notAfter: daysFromNow(-1) });
  notYet = await makeCert({ commonName: "early", issuer: caA, notBefore: daysFromNow(1), notAfter: daysFromNow(10) });
  serverUsage = await makeCert({ commonName: "server", issuer: caA, usage: "server" });
  noUsage = await makeCert({ commonName: "any", issuer: caA, usage: "none" });
  foreignLeaf = await makeCert({ commonName: "mallory", organizations: ["system:masters"], issuer: foreign });
  impostor = await makeCert({ commonName: "mallory", issuer: sameNameForeign });
  noCN = await makeCert({ commonName: "", organizations: ["o"], issuer: caA });
  rsaLeaf = await makeCert({ commonName: "rosa", issuer: caB, rsa: true });
  leafOfExpiredInter = await makeCert({ commonName: "late", issuer: expiredInter });
}, 60_000);

const bundle = () => caA.certPem + caB.certPem;

authenticatorConformance({
  method: "x509",
  make: () => x509Authenticator(bundle()),
  valid: [
    { title: "CN → name, each O → a group", request: () => request(presented(jane)), user: { name: "jane", groups: ["team-a", "team-b"] } },
    { title: "second CA of the bundle", request: () => request(presented(bob)), user: { name: "bob", groups: [] } },
    { title: "RSA leaf of an RSA CA", request: () => request(presented(rsaLeaf)), user: { name: "rosa", groups: [] } },
    { title: "through an intermediate the client sent", request: () => request(presented(viaInter, inter)), user: { name: "ivy", groups: ["i"] } },
    { title: "no extended key usage (any usage)", request: () => request(presented(noUsage)), user: { name: "any", groups: [] } },
  ],
  invalid: [
    { title: "foreign CA", request: () => request(presented(foreignLeaf, foreign)) },
    { title: "same-named foreign CA", request: () => request(presented(impostor)) },
    { title: "expired", request: () => request(presented(expired)) },
    { title: "not yet valid", request: () => request(presented(notYet)) },
    { title: "server usage only", request: () => request(presented(serverUsage)) },
    { title: "intermediate missing", request: () => request(presented(viaInter)) },
    { title: "expired intermediate", request: () => request(presented(leafOfExpiredInter, expiredInter)) },
  ],
  absent: [
    { title: "no certificate", request: request(undefined, { authorization: "Bearer x" }) },
  ],
});

describe("x509 verification (Go's crypto/x509 rules and texts)", () => {
  const roots = () => [x(caA), x(caB)];
  it("names the failure as upstream", () => {
    expect(verifyClientChain([x(foreignLeaf), x(foreign)], roots())).toEqual({ error: "x509: certificate signed by unknown authority" });
    expect(verifyClientChain([x(impostor)], roots())).toEqual({
      error: 'x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "ca-a")',
    });
    expect((verifyClientChain([x(expired)], roots()) as { error: string }).error).toMatch(/^x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((verifyClientChain([x(notYet)], roots()) as { error: string }).error).toMatch(/is before/);
    expect(verifyClientChain([x(serverUsage)], roots())).toEqual({ error: "x509: certificate specifies an incompatible key usage" });
  });

  it("builds the chain through intermediates, leaf to root", () => {
    const r = verifyClientChain([x(viaInter), x(inter)], roots());
    expect("chain" in r && r.chain.map((c) => c.subject)).toEqual(["CN=ivy\nO=i", "CN=intermediate", "CN=ca-a"]);
  });

  it("refuses a leaf used as an issuer", async () => {
    const child = await makeCert({ commonName: "child", issuer: jane });
    expect(verifyClientChain([x(child), x(jane)], roots())).toEqual({ error: "x509: certificate is not authorized to sign other certificates" });
  });

  it("wraps the error with the certificate's serial, SKID and AKID, as kube-apiserver logs it", async () => {
    const a = x509Authenticator(bundle());
    const r = (await a.authenticate(request(presented(foreignLeaf)))) as { error: string };
    const c = x(foreignLeaf);
    expect(r.error).toBe(`verifying certificate ${certificateIdentifier(c)} failed: x509: certificate signed by unknown authority`);
    expect(certificateIdentifier(c)).toMatch(/^SN=\d+, SKID=([0-9A-F]{2}:)+[0-9A-F]{2}, AKID=([0-9A-F]{2}:)+[0-9A-F]{2}$/);
    expect(BigInt(certificateIdentifier(c).slice(3).split(",")[0]!).toString(16)).toBe(c.serialNumber.toLowerCase().replace(/^0+/, ""));
  });

  it("answers every request of a connection with the one user its certificate names, and another connection with its own", async () => {
    const a = x509Authenticator(bundle());
    const connection = presented(jane);
    const first = (await a.authenticate(request(connection))) as { user: unknown; reused?: true };
    expect(first).toEqual({ user: { name: "jane", groups: ["team-a", "team-b"] }, reused: true });
    expect(((await a.authenticate(request(connection))) as { user: unknown }).user).toBe(first.user);
    const other = (await a.authenticate(request(presented(jane)))) as { user: unknown };
    expect(other.user).not.toBe(first.user);
    expect(other.user).toEqual(first.user);
  });

  it("leaves a verified certificate without a CN to the next method, and does nothing without a CA bundle", async () => {
    expect(await x509Authenticator(bundle()).authenticate(request(presented(noCN)))).toBeUndefined();
    expect(await x509Authenticator("").authenticate(request(presented(jane)))).toBeUndefined();
  });
});
