// The PKCS#10 request of a CertificateSigningRequest (upstream certificates.ParseCSR): spec.request
// holds PEM text (base64 in JSON); its first PEM block must be a CERTIFICATE REQUEST.
import type * as X509 from "@peculiar/x509";
import { lazyPackage } from "../../apimachinery/package-files.js";
import { pemBlocks, pemBytes } from "../../apimachinery/pem.js";

// @peculiar/x509 uses tsyringe, which needs reflect-metadata loaded first.
const x509 = lazyPackage<typeof X509>("@peculiar/x509", "reflect-metadata");

export interface CsrSubject {
  commonName: string;
  organizations: string[];
}

/** Throws an Error with upstream's text when the request is not a parseable CSR. */
export function parseCsrSubject(request: unknown): CsrSubject {
  const text = typeof request === "string" ? Buffer.from(request, "base64").toString("latin1") : "";
  const block = pemBlocks(text)[0];
  if (!block || block.type !== "CERTIFICATE REQUEST") throw new Error("PEM block type must be CERTIFICATE REQUEST");
  const der = pemBytes(block);
  let csr: X509.Pkcs10CertificateRequest;
  try {
    csr = new (x509().Pkcs10CertificateRequest)(der);
  } catch {
    // Go's encoding/asn1 wording for a DER body that ends early, the common way a request is bad.
    throw new Error("asn1: syntax error: sequence truncated");
  }
  const name = csr.subjectName;
  return { commonName: name.getField("CN")[0] ?? "", organizations: name.getField("O") };
}
