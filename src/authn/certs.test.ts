import { X509Certificate, createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCA, createLeaf } from "./certs.js";
import { makeCert } from "./pki.testkit.js";
import { verifyClientChain } from "./x509.js";

describe("kapi's own certificates (node:crypto keys, DER built by kapi)", () => {
  it("makes a self-signed CA that can sign and a serving certificate with the SANs", async () => {
    const ca = await createCA("kapi-ca");
    const caCert = new X509Certificate(ca.certPem);
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe("CN=kapi-ca");
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(createPrivateKey(ca.keyPem).asymmetricKeyType).toBe("ec");
    const leaf = await createLeaf(ca, { commonName: "kapi-apiserver", usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1", "::1"] });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000);
  });

  it("makes a client certificate that Go's chain rules accept, naming the user and groups", async () => {
    const ca = await createCA("kapi-client-ca");
    const admin = await createLeaf(ca, { commonName: "kapi-admin", organizations: ["system:masters", "team, a"], usage: "client" });
    const cert = new X509Certificate(admin.certPem);
    expect(cert.subject).toBe("CN=kapi-admin\nO=system:masters\nO=team\\, a"); // one O per group, as written
    const checked = verifyClientChain([cert], [new X509Certificate(ca.certPem)]);
    expect("chain" in checked ? checked.chain.length : checked.error).toBe(2);
    const other = await createCA("kapi-client-ca");
    expect("error" in verifyClientChain([cert], [new X509Certificate(other.certPem)])).toBe(true);
  });

  it("issues under a CA made elsewhere (RSA key, other name encoding): the issuer is the CA's subject as encoded", async () => {
    const rsaCA = await makeCert({ commonName: "outside CA", organizations: ["o1"], rsa: true, usage: "none" });
    const leaf = await createLeaf(rsaCA, { commonName: "u", usage: "client" });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.issuer).toBe(new X509Certificate(rsaCA.certPem).subject);
    expect(cert.verify(new X509Certificate(rsaCA.certPem).publicKey)).toBe(true);
    expect("chain" in verifyClientChain([cert], [new X509Certificate(rsaCA.certPem)])).toBe(true);
  });

  it("refuses a CA key it cannot sign with", async () => {
    const ca = await createCA("x");
    const { generateKeyPairSync } = await import("node:crypto");
    const ed = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    await expect(createLeaf({ certPem: ca.certPem, keyPem: ed }, { commonName: "u", usage: "client" })).rejects.toThrow(/ed25519 CA key/);
  });
});
