// APIService validation (upstream: kube-aggregator's apiregistration validation). The name is a
// path segment that must equal `spec.version + "." + spec.group` — which is why the core group's
// `v1.` (empty group, trailing dot) is a valid name although it is no DNS subdomain.
import { invalid, isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, notSupported, required, type FieldError } from "../../apimachinery/validation.js";
import { isObj, type Obj } from "./helpers.js";

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number => (typeof v === "number" ? v : 0);

/**
 * The part of the name rule past the path-segment check (which the store's generic metadata
 * check makes, nameRule "path-segment"): the name names the group version.
 */
function nameMismatch(name: string, spec: Obj): string[] {
  if (!name || isValidPathSegmentName(name).length > 0) return [];
  const requiredName = `${str(spec.version)}.${str(spec.group)}`;
  return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: "${requiredName}"`];
}

export function validateAPIService(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  const name = str((o.metadata as Obj | undefined)?.name);
  for (const m of nameMismatch(name, spec)) errs.push(invalid("metadata.name", name, m));
  const group = str(spec.group);
  const version = str(spec.version);
  if (!group && version !== "v1") errs.push(required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(invalid("spec.group", group, m));
  for (const m of isDNS1035Label(version)) errs.push(invalid("spec.version", version, m));
  const gpm = num(spec.groupPriorityMinimum);
  if (gpm <= 0 || gpm > 20000) errs.push(invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"));
  const vp = num(spec.versionPriority);
  if (vp <= 0 || vp > 1000) errs.push(invalid("spec.versionPriority", vp, "must be positive and less than 1000"));
  const caBundle = str(spec.caBundle);
  // caBundle is base64 on the wire; upstream counts the decoded bytes.
  const caBytes = Buffer.from(caBundle, "base64").length;
  const skip = spec.insecureSkipTLSVerify === true;
  if (!isObj(spec.service)) {
    if (caBytes !== 0) errs.push(invalid("spec.caBundle", `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    if (skip) errs.push(invalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"));
    return errs;
  }
  if (!str(spec.service.namespace)) errs.push(required("spec.service.namespace"));
  if (!str(spec.service.name)) errs.push(required("spec.service.name"));
  if (skip && caBytes > 0) errs.push(invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  return errs;
}

const conditionStatuses = ["True", "False", "Unknown"] as const;

export function validateAPIServiceStatus(o: Obj): FieldError[] {
  const conditions = isObj(o.status) && Array.isArray(o.status.conditions) ? o.status.conditions : [];
  const errs: FieldError[] = [];
  conditions.forEach((c, i) => {
    const s = isObj(c) ? str(c.status) : "";
    if (!(conditionStatuses as readonly string[]).includes(s)) errs.push(notSupported(`status.conditions[${i}].status`, s, conditionStatuses));
  });
  return errs;
}
