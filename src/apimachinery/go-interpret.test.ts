import { describe, expect, it } from "vitest";
import { interpretError } from "./go-interpret.js";

const prefix = "couldn't get version/kind; json parse error: ";
const findKind = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

describe("interpretError (the JSON serializer's SimpleMetaFactory.Interpret)", () => {
  it("finds apiVersion and kind in an object (absent ones included) and in null", () => {
    expect(interpretError('{"apiVersion":"v1","kind":"Pod","spec":[1,{"x":"]"}]}')).toBeUndefined();
    expect(interpretError("{}")).toBeUndefined();
    expect(interpretError("null")).toBeUndefined();
  });

  it("answers text that is not JSON in the words of Go's scanner", () => {
    expect(interpretError("{not json")).toBe(`${prefix}invalid character 'n' looking for beginning of object key string`);
    expect(interpretError("")).toBe(`${prefix}unexpected end of JSON input`);
  });

  it("answers another kind of value, or apiVersion and kind that are not strings, as encoding/json does", () => {
    expect(interpretError("[]")).toBe(`${prefix}json: cannot unmarshal array into Go value of type ${findKind}`);
    expect(interpretError('"x"')).toBe(`${prefix}json: cannot unmarshal string into Go value of type ${findKind}`);
    // An anonymous struct: its field errors name no struct before the dot.
    expect(interpretError('{"kind":5}')).toBe(`${prefix}json: cannot unmarshal number into Go struct field .kind of type string`);
    expect(interpretError('{"APIVERSION":true}')).toBe(`${prefix}json: cannot unmarshal bool into Go struct field .apiVersion of type string`);
  });
});
