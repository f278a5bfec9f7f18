import { describe, expect, it } from "vitest";
import { builtinResources } from "../../types/builtin-resources.js";
import {
  customJsonShape,
  definitionForProtoMessage,
  getProtoMessage,
  isProtoScalarType,
  jsonNameOf,
  protoFieldByName,
  protoFieldByNumber,
  protoJsonNameOverrides,
  protoMessageForDefinition,
  protoMessageForGVK,
  protoMessageNames,
} from "./protobuf-facts.js";

function numbers(message: string): Record<string, number> {
  const m = getProtoMessage(message);
  if (!m) throw new Error(`missing ${message}`);
  return Object.fromEntries(m.fields.map((f) => [f.name, f.number]));
}

describe("protobuf facts", () => {
  it("parses every generated.proto", () => {
    expect(protoMessageNames().length).toBe(1230);
    for (const name of protoMessageNames()) {
      const m = getProtoMessage(name)!;
      const nums = m.fields.map((f) => f.number);
      expect([...nums].sort((a, b) => a - b), name).toEqual(nums);
      expect(new Set(nums).size, name).toBe(nums.length);
      for (const f of m.fields) {
        if (!isProtoScalarType(f.type)) expect(getProtoMessage(f.type), `${name}.${f.name}: ${f.type}`).toBeDefined();
      }
    }
  });

  it("knows field numbers of well-known messages", () => {
    expect(numbers("k8s.io.api.core.v1.Pod")).toEqual({ metadata: 1, spec: 2, status: 3 });
    expect(numbers("k8s.io.api.core.v1.Container")).toMatchObject({ name: 1, image: 2, command: 3, args: 4, workingDir: 5, ports: 6 });
    expect(numbers("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta")).toMatchObject({
      name: 1,
      generateName: 2,
      namespace: 3,
      selfLink: 4,
      uid: 5,
      resourceVersion: 6,
      generation: 7,
      creationTimestamp: 8,
      deletionTimestamp: 9,
      deletionGracePeriodSeconds: 10,
      labels: 11,
      annotations: 12,
      ownerReferences: 13,
      finalizers: 14,
      managedFields: 17,
    });
    expect(numbers("k8s.io.api.apps.v1.DeploymentSpec")).toMatchObject({
      replicas: 1,
      selector: 2,
      template: 3,
      strategy: 4,
      minReadySeconds: 5,
      revisionHistoryLimit: 6,
      paused: 7,
      progressDeadlineSeconds: 9,
    });
    expect(protoFieldByName("k8s.io.api.apps.v1.DeploymentSpec", "strategy")).toEqual({
      name: "strategy",
      number: 4,
      type: "k8s.io.api.apps.v1.DeploymentStrategy",
      label: "optional",
    });
    expect(protoFieldByNumber("k8s.io.api.core.v1.PodSpec", 2)).toMatchObject({ name: "containers", label: "repeated", type: "k8s.io.api.core.v1.Container" });
    expect(protoFieldByName("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "labels")).toEqual({
      name: "labels",
      number: 11,
      type: "string",
      label: "map",
      mapKey: "string",
      mapValue: "string",
    });
    expect(numbers("k8s.io.apimachinery.pkg.runtime.Unknown")).toEqual({ typeMeta: 1, raw: 2, contentEncoding: 3, contentType: 4 });
    expect(numbers("k8s.io.apimachinery.pkg.apis.meta.v1.Time")).toEqual({ seconds: 1, nanos: 2 });
    expect(protoFieldByName("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "seconds")!.type).toBe("int64");
  });

  it("maps OpenAPI definitions to messages", () => {
    expect(protoMessageForDefinition("io.k8s.api.core.v1.Pod")).toBe("k8s.io.api.core.v1.Pod");
    expect(protoMessageForDefinition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")).toBe("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(protoMessageForDefinition("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition")).toBe(
      "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    );
    expect(protoMessageForDefinition("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService")).toBe(
      "k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService",
    );
    expect(definitionForProtoMessage("k8s.io.api.apps.v1.Deployment")).toBe("io.k8s.api.apps.v1.Deployment");
    expect(protoMessageForGVK("apps", "v1", "Deployment")).toBe("k8s.io.api.apps.v1.Deployment");
    for (const r of builtinResources) {
      expect(protoMessageForGVK(r.group, r.version, r.kind), `${r.group}/${r.version}/${r.kind}`).toBeDefined();
      if (r.listKind) expect(protoMessageForGVK(r.group, r.version, r.listKind), `${r.group}/${r.version}/${r.listKind}`).toBeDefined();
    }
  });

  it("records JSON names that differ from proto names, inline fields and custom JSON forms", () => {
    const crd = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
    expect(jsonNameOf(protoFieldByName(crd, "ref")!)).toBe("$ref");
    expect(jsonNameOf(protoFieldByName(crd, "schema")!)).toBe("$schema");
    expect(jsonNameOf(protoFieldByName(crd, "xKubernetesPreserveUnknownFields")!)).toBe("x-kubernetes-preserve-unknown-fields");
    expect(protoJsonNameOverrides()["k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration"]).toEqual({ Webhooks: "webhooks" });
    expect(jsonNameOf(protoFieldByName("k8s.io.api.core.v1.Pod", "spec")!)).toBe("spec");
    expect(protoFieldByName("k8s.io.api.core.v1.Volume", "volumeSource")!.inline).toBe(true);
    expect(protoFieldByName("k8s.io.api.core.v1.Probe", "handler")!.inline).toBe(true);
    expect(protoFieldByName("k8s.io.api.core.v1.Volume", "name")!.inline).toBeUndefined();
    expect(customJsonShape("k8s.io.apimachinery.pkg.apis.meta.v1.Time")).toEqual({ type: "string", format: "date-time" });
    expect(customJsonShape("k8s.io.apimachinery.pkg.api.resource.Quantity")).toEqual({ type: "string" });
    expect(customJsonShape("k8s.io.apimachinery.pkg.util.intstr.IntOrString")).toEqual({ type: "string", format: "int-or-string" });
    expect(customJsonShape("k8s.io.api.authentication.v1.ExtraValue")).toEqual({ type: "array", items: "string" });
    expect(customJsonShape("k8s.io.api.core.v1.Pod")).toBeUndefined();
  });
});
