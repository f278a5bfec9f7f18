import { describe, expect, it } from "vitest";
import { CelOptional, type CelValue } from "../value.js";
import { callOverload, findOverload, functionOf } from "./overloads.testkit.js";
import { formatLibrary, NamedFormat, namedFormats } from "./format.js";

const call = (id: string, ...args: CelValue[]) => callOverload(formatLibrary, id, ...args);
const fmt = (name: string) => call(`format.${name}`) as unknown as NamedFormat;
const validate = (name: string, s: string) => call("format-validate", fmt(name) as never, s) as CelOptional;

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe("format", () => {
  it("declares format.<name>() as functions named with the dot", () => {
    expect(functionOf(formatLibrary, "format.dns1123Label")).toBe("format.dns1123Label");
    expect(findOverload(formatLibrary, "format.uuid").params).toEqual([]);
    expect([...namedFormats.keys()]).toHaveLength(13);
  });

  it.each([
    ["dns1123Label", "my-label-name"],
    ["dns1123Subdomain", "apiextensions.k8s.io"],
    ["dns1035Label", "my-label-name"],
    ["qualifiedName", "apiextensions.k8s.io/v1beta1"],
    ["dns1123LabelPrefix", "my-label-prefix-"],
    ["dns1123SubdomainPrefix", "mysubdomain.prefix.-"],
    ["dns1035LabelPrefix", "my-label-prefix-"],
    ["labelValue", "my-cool-label-Value"],
    ["uri", "http://example.com"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000"],
    ["byte", "aGVsbG8="],
    ["date", "2021-01-01"],
    ["datetime", "2021-01-01T00:00:00Z"],
  ])("format.%s().validate(%j) is none", (name, s) => {
    expect(validate(name, s)).toBe(CelOptional.none);
  });

  it.each([
    ["dns1123Label", "contains a space", [LABEL_MSG]],
    ["dns1123Label", "a.b", ["must not contain dots"]],
    ["dns1123Subdomain", "contains a space", [SUBDOMAIN_MSG]],
    ["dns1035Label", "contains a space", [DNS1035_MSG]],
    ["dns1123LabelPrefix", "contains a space-", [LABEL_MSG]],
    ["dns1123SubdomainPrefix", "contains a space-", [SUBDOMAIN_MSG]],
    ["dns1035LabelPrefix", "contains a space-", [DNS1035_MSG]],
    [
      "qualifiedName",
      "contains a space",
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      "labelValue",
      "my-cool-label-Value!!\n\n!!!",
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    ["uri", "../relative", ['parse "../relative": invalid URI for request']],
    ["uuid", "123e4567-e89b-12d3-a456", ["does not match the UUID format"]],
    ["byte", "aGVsbG8", ["invalid base64"]],
    ["date", "2020-01-32", ["invalid date"]],
    ["date", "2021-02-29", ["invalid date"]],
    ["datetime", "2020-01-32T00:00:00Z", ["invalid datetime"]],
    ["datetime", "2020-01-01T24:00:00Z", ["invalid datetime"]],
  ])("format.%s().validate(%j) lists upstream's messages", (name, s, errs) => {
    const r = validate(name, s);
    expect(r.hasValue).toBe(true);
    expect(r.value).toEqual(errs);
  });

  it("format.named and equality by name", () => {
    for (const name of namedFormats.keys()) {
      const o = call("format-named", name) as CelOptional;
      expect(o.hasValue).toBe(true);
      expect((o.value as unknown as NamedFormat).equals(fmt(name))).toBe(true);
    }
    expect(call("format-named", "unknown")).toBe(CelOptional.none);
    expect(fmt("dns1123Label").equals(fmt("dns1123LabelPrefix"))).toBe(false);
    expect(fmt("date").celType.name).toBe("kubernetes.NamedFormat");
  });

  it("validate costs as upstream", () => {
    const c = findOverload(formatLibrary, "format-validate").cost!;
    // dns1123Label: ceil((1+12)*0.1)=2 × ceil(30*0.25)=8
    expect(c.actual!([fmt("dns1123Label") as never, "my-label-nam"], null)).toBe(16);
    expect(c.estimate!([{ type: { kind: "dyn" }, size: { min: 1, max: 1 } }, { type: { kind: "string" }, size: { min: 0, max: 63 } }]).cost).toEqual({ min: 0, max: 224 });
    expect(findOverload(formatLibrary, "format-named").cost!.actual!([], null)).toBe(1);
  });
});
