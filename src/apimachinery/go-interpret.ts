// What kube-apiserver's JSON serializer says of a text it cannot find a kind in: before decoding
// anything it reads apiVersion and kind into a small anonymous struct (SimpleMetaFactory.Interpret),
// so a text that is not JSON, not an object, or holds those members as anything but strings fails
// there, as "couldn't get version/kind; json parse error: " and encoding/json's words. Bodies,
// stored values, webhook answers and policy files are all read through it upstream.
import { goUnmarshalStruct, type GoStruct } from "./go-json-struct.js";

const findKind: GoStruct = {
  type: 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
  name: "",
  fields: [
    { json: "apiVersion", type: "string" },
    { json: "kind", type: "string" },
  ],
};

/** Interpret's error for the JSON `text`, or undefined when it finds apiVersion and kind (empty ones included). */
export function interpretError(text: string): string | undefined {
  const why = goUnmarshalStruct(text, findKind).error;
  return why === undefined ? undefined : `couldn't get version/kind; json parse error: ${why}`;
}
