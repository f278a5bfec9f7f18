// The audit stage: after authentication, so an event names who asked; before impersonation and
// authorization, so requests refused there are recorded too (upstream's order). Audit policy
// and backends are their own issue: until then this stage records nothing and hands on, but it
// is where they plug in — it gets the context (ctx.audit is the event's slot) and calls next.
import type { Filter } from "./filter.js";

export function auditFilter(): Filter {
  return (_ctx, next) => next();
}
