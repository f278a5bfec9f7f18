import { X509Certificate } from "node:crypto";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createCA, createLeaf, type KeyPairPem } from "../authn/certs.js";
import { clientCertificate } from "./client-certificate.js";

// What Node's getPeerCertificate(true) gives: the leaf, each issuer linked, a self-signed root
// pointing at itself.
function detailed(leafPem: string, subject: Record<string, unknown>, issuers: string[]): DetailedPeerCertificate {
  const node = (pem: string, subj: Record<string, unknown>) => ({ subject: subj, raw: new X509Certificate(pem).raw }) as unknown as DetailedPeerCertificate;
  const leaf = node(leafPem, subject);
  let last = leaf;
  for (const pem of issuers) {
    const issuer = node(pem, {});
    last.issuerCertificate = issuer;
    last = issuer;
  }
  last.issuerCertificate = last;
  return leaf;
}

function socket(authorized: boolean, peer: DetailedPeerCertificate | Record<string, never>) {
  return { authorized, getPeerCertificate: vi.fn(() => peer) } as unknown as TLSSocket & { getPeerCertificate: ReturnType<typeof vi.fn> };
}

describe("clientCertificate", () => {
  let ca: KeyPairPem;
  let jane: KeyPairPem;
  beforeAll(async () => {
    ca = await createCA("front-proxy-ca");
    jane = await createLeaf(ca, { commonName: "jane", organizations: ["team-a", "team-b"], usage: "client" });
  });

  it("gives the subject and the presented chain, leaf then issuer", () => {
    const s = socket(true, detailed(jane.certPem, { CN: "jane", O: ["team-a", "team-b"] }, [ca.certPem]));
    const cert = clientCertificate(s)!;
    expect(cert.commonName).toBe("jane");
    expect(cert.organizations).toEqual(["team-a", "team-b"]);
    expect(cert.chain.map((c) => c.subject)).toEqual(["CN=jane\nO=team-a\nO=team-b", "CN=front-proxy-ca"]);
    expect(cert.chain[1]!.fingerprint256).toBe(new X509Certificate(ca.certPem).fingerprint256);
    expect(s.getPeerCertificate).toHaveBeenCalledWith(true);
  });

  it("reads a socket's certificate once", () => {
    const s = socket(true, detailed(jane.certPem, { CN: "jane", O: "team-a" }, [ca.certPem]));
    const first = clientCertificate(s);
    expect(clientCertificate(s)).toBe(first);
    expect(first!.organizations).toEqual(["team-a"]);
    expect(s.getPeerCertificate).toHaveBeenCalledTimes(1);
  });

  it("keeps a certificate the TLS layer did not verify (the authenticators verify it, and refuse it with 401)", async () => {
    const impostor = await createCA("front-proxy-ca"); // same name, other key
    const cert = clientCertificate(socket(false, detailed(jane.certPem, { CN: "jane" }, [impostor.certPem])))!;
    expect(cert.commonName).toBe("jane");
    expect(cert.chain.map((c) => c.fingerprint256)).toEqual([new X509Certificate(jane.certPem).fingerprint256, new X509Certificate(impostor.certPem).fingerprint256]);
  });

  it("has nothing for a connection that sent no certificate", () => {
    expect(clientCertificate(socket(false, {}))).toBeUndefined();
    expect(clientCertificate(socket(true, {}))).toBeUndefined();
    expect(clientCertificate(undefined)).toBeUndefined();
  });
});
