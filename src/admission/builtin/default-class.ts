// The default class of a class-per-object API (StorageClass, IngressClass): those annotated as
// default, the newest first and, at the same creation time, the first by name.
import type { KObject } from "../../apimachinery/object.js";

export function newestDefault(classes: readonly KObject[], isDefault: (c: KObject) => boolean): KObject | undefined {
  const created = (c: KObject) => Date.parse(c.metadata.creationTimestamp ?? "") || 0;
  const defaults = classes.filter(isDefault);
  defaults.sort((x, y) => created(y) - created(x) || (x.metadata.name! < y.metadata.name! ? -1 : x.metadata.name! > y.metadata.name! ? 1 : 0));
  return defaults[0];
}
