// The one conformance suite every authorizer runs (AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC,
// Node, …): each case gives exactly the expected decision; reasons are strings; evaluation errors
// surface in `error` (a string) and never throw; and, through the union, an allow or a deny ends
// the chain while a no-opinion falls through to the next authorizer (all no-opinion → deny, the
// reasons joined by "\n" as upstream's union does).
import { describe, expect, it } from "vitest";
import type { Attributes, Authorizer, AuthzResult, Decision } from "./authorizer.js";
import { unionAuthorizer } from "./union.js";
import type { UserInfo } from "../apimachinery/user.js";

export interface AuthorizerConformanceCase {
  readonly title: string;
  /** The request; missing fields are filled from `attributes()` below. */
  readonly attributes: Partial<Attributes> & { user: UserInfo };
  readonly decision: Decision;
  /** The reason must match (string: contained; RegExp: tested). */
  readonly reasonMatches?: string | RegExp;
  /** true: an evaluation error must be reported; string/RegExp: and it must match; false: none. */
  readonly error?: boolean | string | RegExp;
}

export interface AuthorizerConformanceSuite {
  /** The mode's name in test titles. */
  readonly name: string;
  /** Builds the authorizer under test (with whatever files, servers or informers it needs). */
  make(): Authorizer | Promise<Authorizer>;
  readonly cases: readonly AuthorizerConformanceCase[];
  /** After each test (stop servers, close stores). */
  cleanup?(): void | Promise<void>;
}

/** Attributes with every field present: a resource request by default. */
export function attributes(a: Partial<Attributes> & { user: UserInfo }): Attributes {
  const isResourceRequest = a.isResourceRequest ?? (a.resource !== undefined || a.path === undefined);
  return {
    verb: "get",
    isResourceRequest,
    path: "",
    namespace: "",
    apiGroup: "",
    apiVersion: isResourceRequest ? "v1" : "",
    resource: "",
    subresource: "",
    name: "",
    ...a,
  };
}

const matches = (value: string, m: string | RegExp) => (typeof m === "string" ? value.includes(m) : m.test(value));

function checkShape(r: AuthzResult) {
  expect(["allow", "deny", "no-opinion"]).toContain(r.decision);
  expect(typeof r.reason).toBe("string");
  if (r.error !== undefined) expect(typeof r.error).toBe("string");
}

/** A marker authorizer placed after the one under test: records that it was asked. */
function marker(decision: Decision, reason: string) {
  const asked: Attributes[] = [];
  const z: Authorizer = {
    authorize(a) {
      asked.push(a);
      return { decision, reason };
    },
  };
  return { z, asked };
}

export function authorizerConformance(suite: AuthorizerConformanceSuite): void {
  describe(`${suite.name}: authorizer conformance`, () => {
    for (const c of suite.cases) {
      it(`${c.decision}: ${c.title}`, async () => {
        const z = await suite.make();
        try {
          const a = attributes(c.attributes);
          let r: AuthzResult;
          try {
            r = await z.authorize(a);
          } catch (e) {
            throw new Error(`authorize threw instead of reporting an error: ${String(e)}`);
          }
          checkShape(r);
          expect({ decision: r.decision, reason: r.reason }).toMatchObject({ decision: c.decision });
          if (c.reasonMatches !== undefined) expect(matches(r.reason, c.reasonMatches), `reason ${JSON.stringify(r.reason)} ~ ${String(c.reasonMatches)}`).toBe(true);
          if (c.error === true) expect(r.error && r.error.length > 0, "an evaluation error is reported").toBe(true);
          else if (c.error === false) expect(r.error ?? "").toBe("");
          else if (c.error !== undefined) expect(matches(r.error ?? "", c.error), `error ${JSON.stringify(r.error)} ~ ${String(c.error)}`).toBe(true);

          // Through the union, in front of a marker authorizer (system:masters never reaches the chain).
          if (a.user.groups.includes("system:masters")) return;
          const next = marker("allow", "next allowed");
          const u = await unionAuthorizer([z, next.z]).authorize(a);
          if (c.decision === "no-opinion") {
            expect(next.asked.length, "a no-opinion falls through to the next authorizer").toBe(1);
            expect(u.decision).toBe("allow");
            // Alone in the chain (with another no-opinion after it): the union denies, reasons joined.
            const last = marker("no-opinion", "last has no opinion");
            const alone = await unionAuthorizer([z, last.z]).authorize(a);
            expect(alone.decision).toBe("deny");
            expect(alone.reason).toBe([r.reason, "last has no opinion"].filter((s) => s !== "").join("\n"));
            if (r.error) expect(alone.error ?? "").toContain(r.error);
          } else {
            expect(next.asked.length, `a${c.decision === "allow" ? "n allow" : " deny"} ends the chain`).toBe(0);
            expect(u.decision).toBe(c.decision);
            expect(u.reason).toBe(r.reason);
          }
        } finally {
          await suite.cleanup?.();
        }
      });
    }
  });
}
