// An issuer's signing keys: OpenID discovery (`{url}/.well-known/openid-configuration`, or the
// configured discoveryURL as is), then its `jwks_uri`, over TLS verified by the configured CA
// (or the system roots). Keys are refetched when a token's signature verifies with none of
// them (a rotated or unknown `kid`), at most once per `minRefreshMs`, one fetch at a time. The
// fetched document is read and searched by jose (../jwt/jwks.ts); fetching stays here, to give
// go-oidc's messages for each way discovery and the fetch fail.
import { request as httpsRequest } from "node:https";
import { goQuote } from "../../apimachinery/go-quote.js";
import { emptyKeySet, keySetFromJwks, type KeySet } from "../jwt/jwks.js";

export interface KeySetOptions {
  issuerURL: string;
  discoveryURL?: string;
  /** PEM CA certificates for the issuer's TLS; system roots when absent. */
  caPem?: string;
  /** Smallest interval between two fetches of the key set triggered by tokens (default 5 s). */
  minRefreshMs?: number;
  /** Per-request timeout (default 30 s, as upstream's client). */
  timeoutMs?: number;
}

const maxBody = 1 << 20;

function httpsGetText(url: string, ca: string | undefined, timeoutMs: number): Promise<{ status: number; statusText: string; body: string }> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      reject(new Error(`parse ${goQuote(url)}: invalid URL`));
      return;
    }
    if (u.protocol !== "https:") {
      reject(new Error(`Get ${goQuote(url)}: unsupported protocol scheme ${goQuote(u.protocol.replace(/:$/, ""))}`));
      return;
    }
    const req = httpsRequest(u, { method: "GET", ca, timeout: timeoutMs, headers: { accept: "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxBody) {
          req.destroy(new Error(`Get ${goQuote(url)}: response body too large`));
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, statusText: `${res.statusCode} ${res.statusMessage ?? ""}`.trim(), body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`Get ${goQuote(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on("error", (e) => reject(e.message.startsWith("Get ") ? e : new Error(`Get ${goQuote(url)}: ${e.message}`)));
    req.end();
  });
}

export class RemoteKeySet {
  private keys: KeySet = emptyKeySet;
  private jwksURI?: string;
  private lastFetch = 0;
  private inflight?: Promise<KeySet>;
  /** How many times the key set was fetched (tests observe refreshes). */
  fetches = 0;

  constructor(private readonly o: KeySetOptions) {}

  private get timeout(): number {
    return this.o.timeoutMs ?? 30_000;
  }

  /** Discovery: the provider document must name this issuer and a jwks_uri. Then the first key fetch. */
  async init(): Promise<void> {
    const wellKnown = this.o.discoveryURL ?? `${this.o.issuerURL.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const res = await httpsGetText(wellKnown, this.o.caPem, this.timeout);
    if (res.status !== 200) throw new Error(`${res.statusText}: ${res.body}`);
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = JSON.parse(res.body);
    } catch (e) {
      throw new Error(`oidc: failed to decode provider discovery object: ${(e as Error).message}`);
    }
    if (doc?.issuer !== this.o.issuerURL) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${goQuote(this.o.issuerURL)} got ${JSON.stringify(doc?.issuer ?? "")}`);
    }
    if (typeof doc.jwks_uri !== "string" || !doc.jwks_uri) throw new Error("oidc: provider discovery document has no jwks_uri");
    this.jwksURI = doc.jwks_uri;
    await this.refresh(true);
  }

  current(): KeySet {
    return this.keys;
  }

  /**
   * Fetches the key set again unless one was fetched within minRefreshMs (then resolves to the
   * keys in hand). Concurrent callers share one fetch.
   */
  refresh(force = false): Promise<KeySet> {
    if (this.inflight) return this.inflight;
    if (!force && Date.now() - this.lastFetch < (this.o.minRefreshMs ?? 5_000)) return Promise.resolve(this.keys);
    const uri = this.jwksURI;
    if (!uri) return Promise.resolve(this.keys);
    this.inflight = (async () => {
      try {
        this.lastFetch = Date.now();
        this.fetches++;
        const res = await httpsGetText(uri, this.o.caPem, this.timeout);
        if (res.status !== 200) throw new Error(`oidc: get keys failed: ${res.statusText} ${res.body}`);
        let doc: unknown;
        try {
          doc = JSON.parse(res.body);
        } catch (e) {
          throw new Error(`oidc: failed to decode keys: ${(e as Error).message} ${res.body}`);
        }
        try {
          this.keys = keySetFromJwks(doc);
        } catch (e) {
          throw new Error(`oidc: failed to decode keys: ${(e as Error).message} ${res.body}`);
        }
        return this.keys;
      } finally {
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }
}
