// Who a write is recorded as in managedFields: ?fieldManager=, else the User-Agent's product
// (as upstream), validated as upstream does.
import { managerName, validateFieldManager } from "../apply/index.js";
import { ApiError } from "../apimachinery/errors.js";
import type { ResourceRequest } from "./context.js";

export function resolveFieldManager(r: ResourceRequest, optionsKind: string): string {
  const given = r.ex.query.get("fieldManager") ?? undefined;
  if (given !== undefined) {
    const errs = validateFieldManager(given);
    if (errs.length > 0) {
      const text = errs.map((e) => `${e.field}: ${e.detail}`);
      throw new ApiError(422, "Invalid", `${optionsKind}.meta.k8s.io "" is invalid: ${text.length === 1 ? text[0] : `[${text.join(", ")}]`}`, {
        group: "meta.k8s.io",
        kind: optionsKind,
        causes: errs.map((e) => ({ reason: e.type, message: e.detail, field: e.field })),
      });
    }
  }
  const ua = r.ex.headers["user-agent"];
  return managerName(given, Array.isArray(ua) ? ua[0] : ua);
}
