// What a client is answered when a stored object cannot be read back — a value no configured key
// decrypts, or bytes that do not decode — in kube-apiserver 1.34's words. With the
// AllowUnsafeMalformedObjectDeletion gate on, upstream marks such errors "corrupt object" (so the
// unsafe delete can find them) and lists name every unreadable key; with it off, a read answers
// the underlying error as an internal error.
import { ApiError, internalError, qualifiedResource, type GroupResource } from "../apimachinery/errors.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { CorruptValue } from "../storage/interface.js";

/** One unreadable object: a value no provider reads (`untransformable`), or bytes that do not decode. */
export interface CorruptObject extends CorruptValue {
  undecodable?: boolean;
}

/** At most this many keys are named in a list's error; a last cause says the list was cut. */
const maxListedCorruptObjects = 100;

/** Upstream storage.NewCorruptObjError(key, err).Error(). */
function corruptObjectText(c: CorruptObject): string {
  const what = c.undecodable ? `object not decodable revision=${c.modRevision}` : "data from the storage is not transformable revision=0";
  return `StorageError: corrupt object, Code: 7, Key: ${c.key}, ResourceVersion: 0, AdditionalErrorMsg: ${what}: ${c.message}`;
}

/** The answer to a GET (or the read of a write) of an object that cannot be read. */
export function corruptObjectError(c: CorruptObject, gateOn: boolean): ApiError {
  return internalError(gateOn ? corruptObjectText(c) : c.message);
}

/** The answer to a LIST that met objects that cannot be read. */
export function corruptListError(gr: GroupResource, objects: readonly CorruptObject[], gateOn: boolean): ApiError {
  if (!gateOn) {
    const first = objects[0]!;
    return internalError(first.undecodable ? first.message : `unable to transform key ${goQuote(first.key)}: ${first.message}`);
  }
  const causes: { reason: string; message: string; field?: string }[] = objects
    .slice(0, maxListedCorruptObjects)
    .map((c) => ({ reason: "UnexpectedServerResponse", message: corruptObjectText(c), field: c.key }));
  if (objects.length > maxListedCorruptObjects) causes.push({ reason: "TooMany", message: "too many errors, the list is truncated" });
  return new ApiError(500, "StorageReadError", `failed to read one or more ${qualifiedResource(gr)} from the storage`, {
    group: gr.group || undefined,
    kind: gr.resource,
    name: "list",
    causes,
  });
}
