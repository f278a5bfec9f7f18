import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { defaultStorageClassPlugin } from "./default-storage-class.js";
import { fakeParts, fakeWorld, typeFor } from "./parts.testkit.js";

const pvcs = typeFor("", "persistentvolumeclaims");
const sc = (name: string, created: string, extra: Record<string, unknown> = {}, isDefault = "true"): KObject => ({
  metadata: { name, creationTimestamp: created, annotations: { "storageclass.kubernetes.io/is-default-class": isDefault } },
  provisioner: "p",
  ...extra,
});
const claim = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KObject => ({ metadata: { name: "c" }, spec: { resources: { requests: { storage: "1Gi" } }, ...spec }, ...(status ? { status } : {}) });
const attrs = (object: KObject, a: Partial<AdmissionAttributes> = {}) => admissionAttributes({ operation: "CREATE", type: pvcs, namespace: "ns", name: "c", subresource: "", dryRun: false, object, ...a });

describe("DefaultStorageClass", () => {
  const plugin = (classes: KObject[]) => defaultStorageClassPlugin(fakeParts(fakeWorld({ "storage.k8s.io/storageclasses": classes })));
  it("names the newest default class (then the first by name) in a claim without a class", async () => {
    const classes = [sc("old", "2026-01-01T00:00:00Z"), sc("b-new", "2026-02-01T00:00:00Z"), sc("a-new", "2026-02-01T00:00:00Z"), sc("newest-not-default", "2026-03-01T00:00:00Z", {}, "false")];
    const c = claim();
    await plugin(classes).admit!(attrs(c));
    expect((c.spec as any).storageClassName).toBe("a-new");
  });
  it("leaves claims with a class (even empty, or the beta annotation) alone", async () => {
    const p = plugin([sc("d", "2026-01-01T00:00:00Z")]);
    const empty = claim({ storageClassName: "" });
    await p.admit!(attrs(empty));
    expect((empty.spec as any).storageClassName).toBe("");
    const annotated = claim();
    annotated.metadata.annotations = { "volume.beta.kubernetes.io/storage-class": "x" };
    await p.admit!(attrs(annotated));
    expect((annotated.spec as any).storageClassName).toBeUndefined();
    const none = claim();
    await plugin([]).admit!(attrs(none));
    expect((none.spec as any).storageClassName).toBeUndefined();
  });
});
