// CertificateSigningRequest's strategy hooks (upstream pkg/registry/certificates/certificates):
// who asked is the server's to record, and a request's spec never changes once made.
import type { UserInfo } from "../apimachinery/user.js";
import type { StrategyContext } from "../registry/strategy.js";
import type { Obj } from "./validation/helpers.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { forbidden, type FieldError } from "../apimachinery/validation.js";

/** The CSR spec fields that name the requester, as Go writes them (each omitted when empty). */
export function requesterFields(user: UserInfo | undefined): Obj {
  if (!user) return {};
  const out: Obj = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

const requesterKeys = ["username", "uid", "groups", "extra"] as const;

/**
 * Approvers and signers trust spec.username, groups and extra to say who asked, so whatever the
 * body claims is dropped and the authenticated (or impersonated) user written in its place.
 */
export function prepareCsrCreate(obj: Obj, ctx: StrategyContext): void {
  const spec: Obj = { ...((obj.spec as Obj | undefined) ?? {}) };
  for (const k of requesterKeys) delete spec[k];
  obj.spec = { ...spec, ...requesterFields(ctx.user) };
  // A request is never created approved, denied or issued.
  obj.status = {};
}

/**
 * The spec is fixed at creation: an update of the object itself keeps the stored one. The
 * approval subresource changes status.conditions only (upstream csrApprovalStrategy);
 * conditions written through approval or status get a lastTransitionTime (and lastUpdateTime)
 * when they come without one (upstream populateConditionTimestamps).
 */
export function prepareCsrUpdate(obj: Obj, old: Obj, ctx: StrategyContext): void {
  if (ctx.subresource === "") {
    if (old.spec === undefined) delete obj.spec;
    else obj.spec = old.spec;
    return;
  }
  if (ctx.subresource !== "approval" && ctx.subresource !== "status") return;
  const conditions = (obj.status as { conditions?: Obj[] } | undefined)?.conditions;
  if (ctx.subresource === "approval") obj.status = { ...((old.status as Obj | undefined) ?? {}), ...(conditions ? { conditions } : {}) };
  if (ctx.subresource === "approval" && !conditions) delete (obj.status as Obj).conditions;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const before = new Map(((old.status as { conditions?: Obj[] } | undefined)?.conditions ?? []).map((c) => [`${c.type}`, c]));
  for (const c of (obj.status as { conditions?: Obj[] } | undefined)?.conditions ?? []) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const prior = before.get(`${c.type}`);
      c.lastTransitionTime = prior && prior.status === c.status && prior.lastTransitionTime ? prior.lastTransitionTime : now;
    }
  }
}

const approvalTypes = ["Approved", "Denied"] as const;
const permanentTypes = [...approvalTypes, "Failed"] as const;

function conditionsOfType(o: Obj, type: string): Obj[] {
  const conditions = (o.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions.filter((c: Obj) => c?.type === type) : [];
}

/**
 * A decision stays made: no update removes an Approved, Denied or Failed condition, and only the
 * approval subresource (whose writers admission checks for the signer's approve verb) may add
 * or change Approved and Denied. Without this, whoever may write /status could approve.
 * (upstream validateCertificateSigningRequestUpdate with allowSettingApprovalConditions)
 */
export function validateCsrUpdate(obj: Obj, old: Obj, ctx: StrategyContext): FieldError[] {
  const errs: FieldError[] = [];
  for (const type of permanentTypes) {
    if (conditionsOfType(obj, type).length < conditionsOfType(old, type).length) {
      errs.push(forbidden("status.conditions", `updates may not remove a condition of type "${type}"`));
    }
  }
  if (ctx.subresource === "approval") return errs;
  for (const type of approvalTypes) {
    const before = conditionsOfType(old, type);
    const after = conditionsOfType(obj, type);
    if (after.length > before.length) errs.push(forbidden("status.conditions", `updates may not add a condition of type "${type}"`));
    else if (after.length === before.length && !deepEqual(after, before)) {
      errs.push(forbidden("status.conditions", `updates may not modify a condition of type "${type}"`));
    }
  }
  return errs;
}
