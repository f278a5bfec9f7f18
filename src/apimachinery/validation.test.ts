import { describe, expect, it } from "vitest";
import { causeReason, formatFieldError, fieldErrorBody, invalid, invalidCauses, invalidMessage, isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName, notSupported, required, tooLong, tooMany, validateAnnotations, validateLabels, validateObjectMetaName, type FieldError } from "./validation.js";
import { goQuote } from "./go-quote.js";

const a = (n: number) => "a".repeat(n);

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("isDNS1123Label (upstream cases)", () => {
  it.each(["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", a(63)])(
    "accepts %j",
    (v) => expect(isDNS1123Label(v)).toEqual([]),
  );
  it.each([
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1",
    "1_2", ".", "a.", ".a", "1.", ".1", " ", "a ", " a", "a b", "1 ", " 1", "1 2",
  ])("rejects %j", (v) => expect(isDNS1123Label(v)).toEqual([LABEL_MSG]));
  it("reports dots and length specially", () => {
    expect(isDNS1123Label("a.b")).toEqual(["must not contain dots"]);
    expect(isDNS1123Label("1.2")).toEqual(["must not contain dots"]);
    expect(isDNS1123Label(a(64))).toEqual(["must be no more than 63 characters"]);
    expect(isDNS1123Label(a(64) + "-")).toEqual(["must be no more than 63 characters", LABEL_MSG]);
  });
});

describe("isDNS1123Subdomain (upstream cases)", () => {
  it.each([
    "a", "ab", "a--1--2--b", "0", "1--a--b--2", "a.a", "a-1.a", "a.1", "0.a", "1-a.a", "0.1", "1--a--b--2.1",
    "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55", a(253),
  ])("accepts %j", (v) => expect(isDNS1123Subdomain(v)).toEqual([]));
  it.each([
    "", "A", "aBc", "1-A", "-", "a-", "-a", "_", "a_b", ".", "a.", ".a", "a..b", "1..2", " ", "a b", "A.a", "ab.A",
    "0.A", "A.B.C.D.E", "a.B.c.d.e", "a@b", "a,b", "a;b", "a:b", "a%b", "a?b", "a$b",
  ])("rejects %j", (v) => expect(isDNS1123Subdomain(v)).toEqual([SUBDOMAIN_MSG]));
  it("length", () => {
    expect(isDNS1123Subdomain(a(254))).toEqual(["must be no more than 253 characters"]);
  });
});

describe("isDNS1035Label (upstream cases)", () => {
  it.each(["a", "ab", "abc", "a1", "a-1", "a--1--2--b", a(63)])("accepts %j", (v) =>
    expect(isDNS1035Label(v)).toEqual([]),
  );
  it.each(["0", "01", "1a", "1-a", "", "A", "aBc", "-", "a-", "-a", "_", "a_b", ".", "a.b", " ", "a b"])(
    "rejects %j",
    (v) => expect(isDNS1035Label(v)).toEqual([DNS1035_MSG]),
  );
  it("length", () => expect(isDNS1035Label(a(64))).toEqual(["must be no more than 63 characters"]));
});

describe("isQualifiedName (upstream cases)", () => {
  it.each([
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
    "now.with.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123", "requests.storage-foo", a(63), a(253) + "/" + "b".repeat(63),
  ])("accepts %j", (v) => expect(isQualifiedName(v)).toEqual([]));

  it.each<[string, string[]]>([
    ["nospecialchars%^=@", [NAME_PART_MSG]],
    ["cantendwithadash-", [NAME_PART_MSG]],
    ["-cantstartwithadash-", [NAME_PART_MSG]],
    [
      "only/one/slash",
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    ["Example.com/abc", ["prefix part " + SUBDOMAIN_MSG]],
    ["example_com/abc", ["prefix part " + SUBDOMAIN_MSG]],
    ["example.com/", ["name part must be non-empty", NAME_PART_MSG]],
    ["/simple", ["prefix part must be non-empty"]],
    ["", ["name part must be non-empty", NAME_PART_MSG]],
    [a(64), ["name part must be no more than 63 characters"]],
    [a(254) + "/abc", ["prefix part must be no more than 253 characters"]],
  ])("rejects %j", (v, msgs) => expect(isQualifiedName(v)).toEqual(msgs));
});

describe("isValidLabelValue (upstream cases)", () => {
  it.each(["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", a(63), ""])(
    "accepts %j",
    (v) => expect(isValidLabelValue(v)).toEqual([]),
  );
  it.each([
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
  ])("rejects %j", (v) => expect(isValidLabelValue(v)).toEqual([VALUE_MSG]));
  it("length counts UTF-8 bytes", () => {
    expect(isValidLabelValue(a(64))).toEqual(["must be no more than 63 characters"]);
    expect(isValidLabelValue("ā".repeat(32))).toEqual(["must be no more than 63 characters", VALUE_MSG]);
  });
});

describe("isValidPathSegmentName", () => {
  it.each<[string, string[]]>([
    ["foo", []],
    ["Foo_Bar:1", []],
    ["..foo", []],
    [".", ["may not be '.'"]],
    ["..", ["may not be '..'"]],
    ["a/b", ["may not contain '/'"]],
    ["a%b", ["may not contain '%'"]],
    ["a/%b", ["may not contain '/'", "may not contain '%'"]],
  ])("%j", (v, msgs) => expect(isValidPathSegmentName(v)).toEqual(msgs));
});

describe("validateObjectMetaName", () => {
  const fmt = (errs: FieldError[]) => errs.map(formatFieldError);

  it("the example messages", () => {
    expect(fmt(validateObjectMetaName("Foo", undefined, "subdomain"))).toEqual([
      `metadata.name: Invalid value: "Foo": ${SUBDOMAIN_MSG}`,
    ]);
    expect(fmt(validateObjectMetaName("", "", "subdomain"))).toEqual([
      "metadata.name: Required value: name or generateName is required",
    ]);
  });

  it("per rule", () => {
    expect(validateObjectMetaName("a.b", undefined, "subdomain")).toEqual([]);
    expect(fmt(validateObjectMetaName("a.b", undefined, "label"))).toEqual([
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
    expect(fmt(validateObjectMetaName("1abc", undefined, "dns1035"))).toEqual([
      `metadata.name: Invalid value: "1abc": ${DNS1035_MSG}`,
    ]);
    expect(validateObjectMetaName("system:admin", undefined, "path-segment")).toEqual([]);
    expect(fmt(validateObjectMetaName("..", undefined, "path-segment"))).toEqual([
      `metadata.name: Invalid value: "..": may not be '..'`,
    ]);
    expect(fmt(validateObjectMetaName(a(254), undefined, "subdomain"))).toEqual([
      `metadata.name: Invalid value: "${a(254)}": must be no more than 253 characters`,
    ]);
  });

  it("generateName: trailing dash allowed, errors come first", () => {
    expect(validateObjectMetaName("foo-abcde", "foo-", "subdomain")).toEqual([]);
    expect(validateObjectMetaName("foo-abcde", "foo-", "label")).toEqual([]);
    expect(validateObjectMetaName("x", ".", "path-segment")).toEqual([]);
    expect(fmt(validateObjectMetaName("", "Foo-", "subdomain"))).toEqual([
      `metadata.generateName: Invalid value: "Foo-": ${SUBDOMAIN_MSG}`,
      "metadata.name: Required value: name or generateName is required",
    ]);
    expect(fmt(validateObjectMetaName("-", "-", "label"))).toEqual([
      `metadata.generateName: Invalid value: "-": ${LABEL_MSG}`,
      `metadata.name: Invalid value: "-": ${LABEL_MSG}`,
    ]);
    expect(fmt(validateObjectMetaName("n", "a/", "path-segment", "field"))).toEqual([
      `field.generateName: Invalid value: "a/": may not contain '/'`,
    ]);
  });
});

describe("validateLabels / validateAnnotations", () => {
  it("labels", () => {
    expect(validateLabels({ app: "web", "example.com/tier": "" }, "metadata.labels")).toEqual([]);
    expect(validateLabels(undefined, "metadata.labels")).toEqual([]);
    expect(validateLabels({ "bad key": "bad value", ok: "-x" }, "metadata.labels").map(formatFieldError)).toEqual([
      `metadata.labels: Invalid value: "bad key": ${NAME_PART_MSG}`,
      `metadata.labels: Invalid value: "bad value": ${VALUE_MSG}`,
      `metadata.labels: Invalid value: "-x": ${VALUE_MSG}`,
    ]);
  });

  it("annotation keys are checked lower-cased, values unrestricted", () => {
    expect(validateAnnotations({ "Example.COM/Key": "any value at all\n", simple: "" }, "metadata.annotations")).toEqual(
      [],
    );
    expect(validateAnnotations({ "a b": "x" }, "metadata.annotations").map(formatFieldError)).toEqual([
      `metadata.annotations: Invalid value: "a b": ${NAME_PART_MSG}`,
    ]);
    expect(validateAnnotations({ "Bad_/x": "x" }, "metadata.annotations").map(formatFieldError)).toEqual([
      `metadata.annotations: Invalid value: "Bad_/x": prefix part ${SUBDOMAIN_MSG}`,
    ]);
  });

  it("annotation total size limit is 256 KiB", () => {
    expect(validateAnnotations({ k: "x".repeat(262144 - 1) }, "metadata.annotations")).toEqual([]);
    const errs = validateAnnotations({ k: "x".repeat(262144) }, "metadata.annotations");
    expect(errs.map(formatFieldError)).toEqual([
      "metadata.annotations: Too long: may not be more than 262144 bytes",
    ]);
    expect(invalidCauses(errs)).toEqual([
      { reason: "FieldValueTooLong", message: "Too long: may not be more than 262144 bytes", field: "metadata.annotations" },
    ]);
    // bytes, not characters
    expect(validateAnnotations({ k: "ā".repeat(131072) }, "metadata.annotations")).toHaveLength(1);
  });
});

describe("field error formatting", () => {
  it.each<[FieldError, string]>([
    [required("metadata.name", "name or generateName is required"), "metadata.name: Required value: name or generateName is required"],
    [required("metadata.namespace"), "metadata.namespace: Required value"],
    [invalid("spec.replicas", -1, "must be greater than or equal to 0"), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    [invalid("spec.x", true, "bad"), "spec.x: Invalid value: true: bad"],
    [invalid("spec.x", ["a", "<b>"], "bad"), 'spec.x: Invalid value: ["a","\\u003cb\\u003e"]: bad'],
    [invalid("spec.x", { b: 1, a: "x" }, "bad"), 'spec.x: Invalid value: {"a":"x","b":1}: bad'],
    [invalid("spec.x", null, "bad"), "spec.x: Invalid value: null: bad"],
    [invalid("spec.x", 'q"\\\n\u0001é', "bad"), 'spec.x: Invalid value: "q\\"\\\\\\n\\x01é": bad'],
    [invalid("spec.x", undefined, "bad"), "spec.x: Invalid value: bad"],
    [
      notSupported("spec.policy", "Foo", ["Always", "Never"]),
      'spec.policy: Unsupported value: "Foo": supported values: "Always", "Never"',
    ],
    [{ type: "FieldValueDuplicate", field: "spec.ports[1]", message: "", badValue: "http" }, 'spec.ports[1]: Duplicate value: "http"'],
    [{ type: "FieldValueForbidden", field: "metadata.namespace", message: "not allowed on this type" }, "metadata.namespace: Forbidden: not allowed on this type"],
    [tooLong("data", 1), "data: Too long: may not be more than 1 byte"],
    [tooMany("items", 5, 3), "items: Too many: 5: must have at most 3 items"],
    [tooMany("items", -1, 1), "items: Too many: must have at most 1 item"],
  ])("%#", (e, text) => {
    expect(formatFieldError(e)).toBe(text);
  });

  it("body has no field prefix", () => {
    expect(fieldErrorBody(invalid("metadata.name", "Foo", "x"))).toBe('Invalid value: "Foo": x');
  });

  it("goQuote", () => {
    expect(goQuote("plain")).toBe('"plain"');
    expect(goQuote("tab\there")).toBe('"tab\\there"');
    expect(goQuote("\u007f\u200b")).toBe('"\\x7f\\u200b"');
    expect(goQuote("日本")).toBe('"日本"');
  });
});

describe("Invalid status (apierrors.NewInvalid)", () => {
  const e1 = invalid("metadata.name", "Foo", SUBDOMAIN_MSG);
  const e2 = required("spec.containers", "");

  it("one error", () => {
    expect(invalidMessage("ConfigMap", "Foo", [e1])).toBe(
      `ConfigMap "Foo" is invalid: metadata.name: Invalid value: "Foo": ${SUBDOMAIN_MSG}`,
    );
  });

  it("two errors", () => {
    expect(invalidMessage({ group: "", kind: "Pod" }, "Foo", [e1, e2])).toBe(
      `Pod "Foo" is invalid: [metadata.name: Invalid value: "Foo": ${SUBDOMAIN_MSG}, spec.containers: Required value]`,
    );
  });

  it("group-qualified kind, duplicates collapsed, no errors", () => {
    expect(invalidMessage({ group: "apps", kind: "Deployment" }, "d", [e2, e2])).toBe(
      'Deployment.apps "d" is invalid: spec.containers: Required value',
    );
    expect(invalidMessage("Pod", "", [])).toBe('Pod "" is invalid');
  });

  it("causes: one per error, body without field prefix", () => {
    expect(invalidCauses([e1, e2, e2])).toEqual([
      { reason: "FieldValueInvalid", message: `Invalid value: "Foo": ${SUBDOMAIN_MSG}`, field: "metadata.name" },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.containers" },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.containers" },
    ]);
    expect(causeReason("FieldValueInvalid")).toBe("FieldValueInvalid");
  });
});
