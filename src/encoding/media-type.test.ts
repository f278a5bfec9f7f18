import { describe, expect, it } from "vitest";
import { parseAccept } from "./media-type.js";

describe("parseAccept", () => {
  it("orders ranges by q, keeps equal ones in their order, drops q=0, and reads an empty header as any", () => {
    expect(parseAccept("application/yaml;q=0.5, application/json, text/plain;q=0, application/vnd.kubernetes.protobuf").map((m) => `${m.type}/${m.subtype}`)).toEqual(["application/json", "application/vnd.kubernetes.protobuf", "application/yaml"]);
    expect(parseAccept(undefined)).toEqual([{ type: "*", subtype: "*", params: {}, q: 1 }]);
    expect(parseAccept("  ")).toEqual([{ type: "*", subtype: "*", params: {}, q: 1 }]);
    expect(parseAccept("application/json;as=Table;v=v1;g=meta.k8s.io")[0]!.params).toEqual({ as: "Table", v: "v1", g: "meta.k8s.io" });
  });
  it("parses a header text once, and still parses every new text after many different ones", () => {
    const h = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    expect(parseAccept(h)).toBe(parseAccept(h));
    for (let i = 0; i < 1000; i++) expect(parseAccept(`application/x-${i}, application/json;q=0.${(i % 9) + 1}`).map((m) => m.subtype)).toEqual([`x-${i}`, "json"]);
    expect(parseAccept(h).map((m) => m.params["as"])).toEqual(["APIGroupDiscoveryList", undefined]);
  });
});
