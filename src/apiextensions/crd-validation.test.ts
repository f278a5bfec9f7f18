import { describe, expect, it } from "vitest";
import { formatFieldError } from "../apimachinery/validation.js";
import { validateCRD } from "./crd-validation.js";
import { defaultCRD } from "./crd-strategy.js";
import { calculateNames } from "../controllers/crd/index.js";

const schema = { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { replicas: { type: "integer" }, name: { type: "string" } } }, status: { type: "object", properties: { replicas: { type: "integer" } } } } } };

function crd(mut: (c: any) => void = () => {}): any {
  const c: any = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [{ name: "v1", served: true, storage: true, schema: structuredClone(schema) }],
    },
    status: { storedVersions: ["v1"] },
  };
  mut(c);
  defaultCRD(c);
  return c;
}

const texts = (c: any, old?: any) => validateCRD(c, old).map(formatFieldError);

describe("validateCRD", () => {
  it("accepts a valid CRD", () => {
    expect(texts(crd())).toEqual([]);
  });

  const table: [string, (c: any) => void, string[]][] = [
    ["name must be plural.group", (c) => (c.metadata.name = "foo.example.com"), [`metadata.name: Invalid value: "foo.example.com": must be spec.names.plural+"."+spec.group`]],
    ["group required", (c) => { c.spec.group = ""; c.metadata.name = "widgets."; }, ["spec.group: Required value"]],
    ["group needs a dot", (c) => { c.spec.group = "example"; c.metadata.name = "widgets.example"; }, [`spec.group: Invalid value: "example": should be a domain with at least one dot`]],
    ["scope required", (c) => delete c.spec.scope, ["spec.scope: Required value"]],
    ["scope supported", (c) => (c.spec.scope = "Global"), [`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`]],
    ["no storage version", (c) => { c.spec.versions[0].storage = false; c.status.storedVersions = []; }, [
      expect.stringContaining("spec.versions: Invalid value: ") as any,
      "status.storedVersions: Invalid value: null: must have at least one stored version",
    ]],
    ["schema required", (c) => delete c.spec.versions[0].schema, ["spec.versions[0].schema.openAPIV3Schema: Required value"]],
    ["kind mixed case", (c) => (c.spec.names.kind = "Wid_get"), [expect.stringContaining(`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-'`) as any]],
    ["kind equals listKind", (c) => (c.spec.names.listKind = "Widget"), [`spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same`]],
    ["shortName label", (c) => (c.spec.names.shortNames = ["W"]), [expect.stringContaining(`spec.names.shortNames[0]: Invalid value: "W": a DNS-1035 label must consist of lower case alphanumeric characters`) as any]],
    ["preserveUnknownFields refused", (c) => (c.spec.preserveUnknownFields = true), ["spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"]],
    ["structural: type required", (c) => delete c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name.type, ["spec.validation.openAPIV3Schema.properties[spec].properties[name].type: Required value: must not be empty for specified object fields"]],
    ["uniqueItems forbidden", (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.uniqueItems = true), ["spec.validation.openAPIV3Schema.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"]],
    ["list-type on object", (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec["x-kubernetes-list-type"] = "set"), [`spec.validation.openAPIV3Schema.properties[spec].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`]],
    ["preserve-unknown-fields false", (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec["x-kubernetes-preserve-unknown-fields"] = false), ["spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"]],
    ["default in metadata", (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: "object", default: {} }), ["spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata"]],
    ["scale paths", (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: "spec.replicas", statusReplicasPath: ".spec.replicas" } }), [
      `spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .`,
      `spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`,
    ]],
    ["printer column", (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: "", type: "float", format: "x", jsonPath: "" }]), [
      "spec.additionalPrinterColumns[0].name: Required value",
      `spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
      `spec.additionalPrinterColumns[0].format: Invalid value: "x": must be one of byte,date,date-time,double,float,int32,int64,password`,
      "spec.additionalPrinterColumns[0].JSONPath: Required value",
    ]],
    ["selectable fields", (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: ".spec.nope" }, { jsonPath: ".spec" }, { jsonPath: ".spec.name" }, { jsonPath: ".spec.name" }]), [
      `spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
      `spec.selectableFields[1].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
      `spec.selectableFields[3].jsonPath: Duplicate value: ".spec.name"`,
    ]],
    ["webhook conversion without config", (c) => (c.spec.conversion = { strategy: "Webhook" }), [
      "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
      "spec.conversion.conversionReviewVersions: Required value",
    ]],
    ["webhook url and review versions", (c) => (c.spec.conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v2"], clientConfig: { url: "http://h/p?q=1" } } }), [
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      `spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`,
      `spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`,
    ]],
    ["webhook service", (c) => (c.spec.conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { service: { name: "", namespace: "ns", path: "x" } } } }), [
      "spec.conversion.webhookClientConfig.service.name: Required value: service name is required",
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "x": must start with a '/'`,
    ]],
    ["CEL rule not compiling", (c) => (c.spec.versions[0].schema.openAPIV3Schema["x-kubernetes-validations"] = [{ rule: "self.nope ==" }]), [
      expect.stringMatching(/^spec\.validation\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/) as any,
    ]],
    ["protected group needs approval", (c) => { c.spec.group = "x.k8s.io"; c.metadata.name = "widgets.x.k8s.io"; }, [
      `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
    ]],
  ];
  for (const [name, mut, want] of table) {
    it(name, () => {
      expect(texts(crd(mut))).toEqual(want);
    });
  }

  it("per-version schemas keep per-version paths", () => {
    const c = crd((c) => {
      c.spec.versions.push({ name: "v2", served: true, storage: false, schema: { openAPIV3Schema: { type: "object", properties: { a: {} } } } });
    });
    expect(texts(c)).toEqual(["spec.versions[1].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields"]);
  });

  it("update rules: immutable group/plural, scope and kind once established, storedVersions kept", () => {
    const old = crd((c) => (c.status.conditions = [{ type: "Established", status: "True" }]));
    const next = crd((c) => {
      c.spec.scope = "Cluster";
      c.spec.names.kind = "Gadget";
      c.spec.names.listKind = "GadgetList";
      c.spec.versions[0].name = "v2";
      c.status.storedVersions = ["v1", "v2"];
    });
    expect(texts(next, old)).toEqual([
      `spec.scope: Invalid value: "Cluster": field is immutable`,
      `spec.names.kind: Invalid value: "Gadget": field is immutable`,
      `status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions`,
    ]);
  });
});

describe("naming", () => {
  const named = (name: string, plural: string, kind: string, accepted = true) => {
    const c = crd((c) => {
      c.metadata.name = `${plural}.example.com`;
      c.spec.names = { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List`, shortNames: ["w"] };
    });
    c.metadata.name = name;
    if (accepted) c.status.acceptedNames = structuredClone(c.spec.names);
    return c;
  };
  it("accepts fresh names and reports conflicts", () => {
    const a = named("a", "widgets", "Widget");
    const b = named("b", "gadgets", "Widget", false);
    expect(calculateNames(named("x", "things", "Thing", false), [a]).namesAccepted).toMatchObject({ status: "False", reason: "ShortNamesConflict", message: `"w" is already in use` });
    const r = calculateNames(b, [a]);
    expect(r.namesAccepted).toMatchObject({ status: "False", reason: "ListKindConflict", message: `"WidgetList" is already in use` }); // the last conflict found wins, as upstream
    expect(r.established).toMatchObject({ status: "False", reason: "NotAccepted" });
    const ok = calculateNames(named("y", "things", "Thing", false), []);
    expect(ok.namesAccepted).toMatchObject({ status: "True", reason: "NoConflicts", message: "no conflicts found" });
    expect(ok.established).toMatchObject({ status: "False", reason: "Installing" });
    expect(ok.names).toEqual({ plural: "things", singular: "thing", kind: "Thing", listKind: "ThingList", shortNames: ["w"] });
  });
});
