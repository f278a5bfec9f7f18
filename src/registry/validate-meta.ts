// ObjectMeta validation every type shares (upstream ValidateObjectMeta / ValidateObjectMetaUpdate).
import {
  invalid,
  validateAnnotations,
  validateLabels,
  validateObjectMetaName,
  type FieldError,
} from "../apimachinery/validation.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";

export function validateObjectMeta(obj: KObject, t: ResourceType): FieldError[] {
  const m = obj.metadata;
  const errs = validateObjectMetaName(m.name, m.generateName, t.strategy.nameRule);
  errs.push(...validateLabels(m.labels, "metadata.labels"));
  errs.push(...validateAnnotations(m.annotations, "metadata.annotations"));
  const fin = m.finalizers ?? [];
  const seen = new Set<string>();
  fin.forEach((f, i) => {
    if (typeof f !== "string" || f === "") errs.push(invalid(`metadata.finalizers[${i}]`, f, "name part must be non-empty"));
    if (seen.has(f)) errs.push({ type: "FieldValueDuplicate", field: `metadata.finalizers[${i}]`, message: "", badValue: f });
    seen.add(f);
  });
  return errs;
}

export function validateObjectMetaUpdate(obj: KObject, old: KObject, t: ResourceType): FieldError[] {
  const errs = validateObjectMeta(obj, t);
  const m = obj.metadata;
  const o = old.metadata;
  if (m.name !== o.name) errs.push(invalid("metadata.name", m.name, "field is immutable"));
  return errs;
}
