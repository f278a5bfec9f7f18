// The one conformance suite every authentication method runs (x509, static tokens, bootstrap
// tokens, service accounts, OIDC/JWT, token webhook, request headers, anonymous): a valid
// credential gives exactly the expected user (name, uid, groups, extra); an invalid one is an
// error (401) that never falls back to a later method or to anonymous; a request without this
// method's credential is left to the next method.
import { describe, expect, it } from "vitest";
import type { Authenticator, AuthnRequest } from "./authenticator.js";
import { anonymousAuthenticator } from "./anonymous.js";
import { unionAuthenticator } from "./union.js";
import { authenticatedGroup, type UserInfo } from "../apimachinery/user.js";

export interface AuthenticatorConformanceCase {
  /** The method's name in test titles. */
  readonly method: string;
  /** Builds the authenticator under test (with whatever store, keys or servers it needs). */
  make(): Authenticator | Promise<Authenticator>;
  /** Requests carrying a valid credential, each with the user it must give. */
  readonly valid: readonly { readonly title: string; readonly request: AuthnRequest | (() => AuthnRequest | Promise<AuthnRequest>); readonly user: UserInfo }[];
  /** Requests carrying this method's credential in an invalid form (wrong key, expired, revoked, …). */
  readonly invalid: readonly { readonly title: string; readonly request: AuthnRequest | (() => AuthnRequest | Promise<AuthnRequest>) }[];
  /** Requests without this method's credential (another method's, or none). */
  readonly absent: readonly { readonly title: string; readonly request: AuthnRequest }[];
  /** After each test (stop servers, close stores). */
  cleanup?(): void | Promise<void>;
}

const resolve = async (r: AuthnRequest | (() => AuthnRequest | Promise<AuthnRequest>)) => (typeof r === "function" ? r() : r);

export function authenticatorConformance(c: AuthenticatorConformanceCase): void {
  describe(`${c.method}: authenticator conformance`, () => {
    for (const v of c.valid) {
      it(`valid credential → the user: ${v.title}`, async () => {
        const a = await c.make();
        try {
          const r = await a.authenticate(await resolve(v.request));
          expect(r).toBeDefined();
          expect(r && "error" in r ? r.error : undefined).toBeUndefined();
          const user = (r as { user: UserInfo }).user;
          expect({ name: user.name, uid: user.uid ?? "", groups: user.groups, extra: user.extra ?? {} }).toEqual({
            name: v.user.name,
            uid: v.user.uid ?? "",
            groups: v.user.groups,
            extra: v.user.extra ?? {},
          });
          // Through the union, the user is also in system:authenticated (once).
          const union = unionAuthenticator([a], anonymousAuthenticator({ enabled: true }));
          const u = await union(await resolve(v.request));
          expect("user" in u && u.user.groups.filter((g) => g === authenticatedGroup)).toEqual([authenticatedGroup]);
        } finally {
          await c.cleanup?.();
        }
      });
    }
    for (const v of c.invalid) {
      it(`invalid credential → 401, never anonymous: ${v.title}`, async () => {
        const a = await c.make();
        try {
          const request = await resolve(v.request);
          const r = await a.authenticate(request);
          expect(r && "error" in r && typeof r.error === "string" && r.error.length > 0).toBe(true);
          const union = unionAuthenticator([a], anonymousAuthenticator({ enabled: true }));
          expect("error" in (await union(request))).toBe(true);
        } finally {
          await c.cleanup?.();
        }
      });
    }
    for (const v of c.absent) {
      it(`no credential of this method → next method: ${v.title}`, async () => {
        const a = await c.make();
        try {
          expect(await a.authenticate(v.request)).toBeUndefined();
        } finally {
          await c.cleanup?.();
        }
      });
    }
  });
}
