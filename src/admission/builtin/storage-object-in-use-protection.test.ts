import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { typeFor } from "./parts.testkit.js";
import { storageObjectInUseProtection } from "./storage-object-in-use-protection.js";

const pvcs = typeFor("", "persistentvolumeclaims");
const sc = (name: string, created: string, extra: Record<string, unknown> = {}, isDefault = "true"): KObject => ({
  metadata: { name, creationTimestamp: created, annotations: { "storageclass.kubernetes.io/is-default-class": isDefault } },
  provisioner: "p",
  ...extra,
});
const claim = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KObject => ({ metadata: { name: "c" }, spec: { resources: { requests: { storage: "1Gi" } }, ...spec }, ...(status ? { status } : {}) });
const attrs = (object: KObject, a: Partial<AdmissionAttributes> = {}) => admissionAttributes({ operation: "CREATE", type: pvcs, namespace: "ns", name: "c", subresource: "", dryRun: false, object, ...a });

describe("StorageObjectInUseProtection", () => {
  it("adds the protection finalizer to new claims and volumes, once", () => {
    const c = claim();
    storageObjectInUseProtection().admit!(attrs(c));
    expect(c.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    storageObjectInUseProtection().admit!(attrs(c));
    expect(c.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    const pv: KObject = { metadata: { name: "pv", finalizers: ["x"] } };
    storageObjectInUseProtection().admit!(attrs(pv, { type: typeFor("", "persistentvolumes", false), namespace: "" }));
    expect(pv.metadata.finalizers).toEqual(["x", "kubernetes.io/pv-protection"]);
  });
});
