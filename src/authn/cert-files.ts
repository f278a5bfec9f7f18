// Reading, writing and checking PEM certificate files; generating them is ./certs.ts.
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tryParseAddr } from "../apimachinery/ip-address.js";

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export function readPair(dir: string, base: string): KeyPairPem | undefined {
  const c = join(dir, `${base}.crt`);
  const k = join(dir, `${base}.key`);
  if (!existsSync(c) || !existsSync(k)) return undefined;
  return { certPem: readFileSync(c, "utf8"), keyPem: readFileSync(k, "utf8") };
}

export function writePair(dir: string, base: string, pair: KeyPairPem): void {
  writeFileSync(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
  writeFileSync(join(dir, `${base}.key`), pair.keyPem, { mode: 0o600 });
}

/** Reuse `<dir>/<base>.{crt,key}` or create it with `make`. */
export async function loadOrCreate(dir: string, base: string, make: () => Promise<KeyPairPem>): Promise<KeyPairPem> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existing = readPair(dir, base);
  if (existing) return existing;
  const pair = await make();
  writePair(dir, base, pair);
  return pair;
}

// node:net's isIP compiles its IPv6 expression on first use (~4 ms of a start); the address
// parser reads the same forms (zones too) without it.
const isIP = (h: string) => tryParseAddr(h) !== undefined;

/** Does the existing serving certificate cover every wanted host? */
export function coversHosts(certPem: string, hosts: string[]): boolean {
  const cert = new X509Certificate(certPem);
  const san = cert.subjectAltName ?? "";
  return hosts.every((h) => (isIP(h) ? san.includes(`IP Address:${h === "::1" ? "0:0:0:0:0:0:0:1" : h}`) || san.includes(`IP Address:${h}`) : san.includes(`DNS:${h}`)));
}

export function splitHosts(hosts: string[]): { dnsNames: string[]; ips: string[] } {
  const dnsNames: string[] = [];
  const ips: string[] = [];
  for (const h of new Set(hosts)) {
    if (!h || h === "0.0.0.0" || h === "::") continue;
    (isIP(h) ? ips : dnsNames).push(h);
  }
  return { dnsNames, ips };
}
