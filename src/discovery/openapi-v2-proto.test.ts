import { describe, expect, it } from "vitest";
import { encodeOpenAPIV2Proto } from "./openapi-v2-proto.js";

const tag = (field: number, wire: number) => (field * 8 + wire < 128 ? [field * 8 + wire] : [((field * 8 + wire) & 0x7f) | 0x80, (field * 8 + wire) >> 7]);
const len = (field: number, body: number[]) => [...tag(field, 2), body.length, ...body];
const str = (field: number, s: string) => len(field, [...Buffer.from(s)]);

describe("gnostic openapi.v2.Document encoding", () => {
  it("writes definitions as NamedSchema, types as TypeItem and vendor extensions as YAML Any", () => {
    const bytes = encodeOpenAPIV2Proto({ swagger: "2.0", definitions: { A: { type: "object", required: ["x"], "x-kubernetes-map-type": "atomic" } } });
    const ext = [...str(1, "x-kubernetes-map-type"), ...len(2, str(2, '"atomic"'))];
    const schemaBytes = [...str(19, "x"), ...len(22, str(1, "object")), ...len(31, ext)];
    const named = [...str(1, "A"), ...len(2, schemaBytes)];
    expect([...bytes]).toEqual([...str(1, "2.0"), ...len(9, len(1, named))]);
  });

  it("keeps a oneof member that is false (additionalProperties: false) and skips proto3 defaults", () => {
    const bytes = encodeOpenAPIV2Proto({ definitions: { B: { additionalProperties: false, minimum: 0, uniqueItems: false } } });
    const named = [...str(1, "B"), ...len(2, len(21, [...tag(2, 0), 0]))];
    expect([...bytes]).toEqual(len(9, len(1, named)));
  });
});
