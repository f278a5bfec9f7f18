// Serving and client certificates: given files, or generated into the cert dir on first start.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { joinPemBundles } from "../apimachinery/pem.js";
import { coversHosts, loadOrCreate, readPair, splitHosts, writePair, type KeyPairPem } from "../authn/cert-files.js";
import { createCA, createLeaf } from "../authn/certs.js";
import type { ServerOptions } from "./options.js";

export interface TlsSetup {
  serving: { cert: string; key: string };
  /** CA bundle clients verify the server with (kubeconfig). */
  servingCA: string;
  /** CAs whose client certificates authenticate. */
  clientCA: string;
  /** The admin client credential, signed by our generated client CA. */
  admin: KeyPairPem;
}

/**
 * Generated material of servers that keep no cert dir (library servers in a test process), per
 * bind address: generating a CA, a serving certificate, a client CA and the admin certificate
 * costs a few milliseconds of a warm start. Such servers share it within the process: each
 * server's admin kubeconfig then also authenticates to the others, which hold no secret from one
 * another anyway (one process, one user).
 */
const generatedInMemory = new Map<string, Promise<TlsSetup>>();

export async function setupTls(o: ServerOptions, certDir: string | undefined): Promise<TlsSetup> {
  if (certDir || (o.tlsCertFile && o.tlsPrivateKeyFile)) return loadOrGenerateTls(o, certDir);
  let shared = generatedInMemory.get(o.bindAddress);
  if (!shared) {
    shared = loadOrGenerateTls({ ...o, clientCAFile: undefined }, undefined);
    generatedInMemory.set(o.bindAddress, shared);
    shared.catch(() => generatedInMemory.delete(o.bindAddress));
  }
  const tls = await shared;
  const extraCA = o.clientCAFile ? readFileSync(o.clientCAFile, "utf8") : "";
  return extraCA ? { ...tls, clientCA: joinPemBundles(extraCA, tls.clientCA) } : tls;
}

async function loadOrGenerateTls(o: ServerOptions, certDir: string | undefined): Promise<TlsSetup> {
  const hosts = ["localhost", "127.0.0.1", "::1", o.bindAddress];
  const persist = async (base: string, make: () => Promise<KeyPairPem>) => (certDir ? loadOrCreate(certDir, base, make) : make());
  let serving: { cert: string; key: string };
  let servingCA: string;
  const placed = certDir ? placedServingPair(certDir) : undefined;
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    serving = { cert: readFileSync(o.tlsCertFile, "utf8"), key: readFileSync(o.tlsPrivateKeyFile, "utf8") };
    servingCA = serving.cert;
  } else if (placed) {
    serving = { cert: placed.certPem, key: placed.keyPem };
    servingCA = placed.certPem;
  } else {
    const ca = await persist("ca", () => createCA("kapi-ca"));
    const names = splitHosts(hosts);
    const makeLeaf = () => createLeaf(ca, { commonName: "kapi-apiserver", usage: "server", ...names });
    let leaf = await persist("apiserver", makeLeaf);
    if (!coversHosts(leaf.certPem, [...names.dnsNames, ...names.ips])) {
      // The bind address changed since the certificate was made: issue one that covers it.
      leaf = await makeLeaf();
      if (certDir) writePair(certDir, "apiserver", leaf);
    }
    serving = { cert: leaf.certPem, key: leaf.keyPem };
    servingCA = ca.certPem;
  }
  const clientCA = await persist("client-ca", () => createCA("kapi-client-ca"));
  const admin = await persist("admin", () => createLeaf(clientCA, { commonName: "kapi-admin", organizations: ["system:masters"], usage: "client" }));
  const extraCA = o.clientCAFile ? readFileSync(o.clientCAFile, "utf8") : "";
  return { serving, servingCA, clientCA: joinPemBundles(extraCA, clientCA.certPem), admin };
}

/**
 * A serving pair someone else put in the cert dir (kube-apiserver serves `<cert-dir>/apiserver.crt`
 * and `.key` when they exist; envtest writes them there, signed by the CA its clients trust). kapi
 * tells its own pair by the CA it keeps beside it, which it may reissue; a placed one is served as is.
 */
function placedServingPair(certDir: string): KeyPairPem | undefined {
  return existsSync(join(certDir, "ca.crt")) ? undefined : readPair(certDir, "apiserver");
}
