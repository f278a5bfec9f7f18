import { describe, expect, it } from "vitest";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { ownerReferencesPermissionEnforcement } from "./owner-references-permission-enforcement.js";
import { typeFor } from "./parts.testkit.js";

const asked: Attributes[] = [];
let allow: (a: Attributes) => boolean = () => true;
const authorizer: Authorizer = { authorize: (a) => (asked.push(a), { decision: allow(a) ? "allow" : "no-opinion", reason: "" }) };
const types = { all: () => [{ ...typeFor("apps", "deployments"), version: "v1", kind: "Deployment" }] } as unknown as TypeRegistry;
const plugin = ownerReferencesPermissionEnforcement(() => authorizer, () => types);
const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u1" };
const cm = (refs: unknown[]): KObject => ({ metadata: { name: "cm", ownerReferences: refs as KObject["metadata"]["ownerReferences"] } });
const check = (object: KObject, oldObject?: KObject) =>
  plugin.validate!(admissionAttributes({ operation: oldObject ? "UPDATE" : "CREATE", type: typeFor("", "configmaps"), namespace: "ns", name: "cm", subresource: "", dryRun: false, object, oldObject, user: { name: "alice", groups: [] } as any }));

describe("OwnerReferencesPermissionEnforcement", () => {
  it("needs delete on the object to set owner references, with upstream's message", async () => {
    allow = (a) => a.verb !== "delete";
    await expect(check(cm([ref]))).rejects.toMatchObject({ code: 403, message: "configmaps \"cm\" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>" });
    await expect(check(cm([ref]), cm([ref]))).resolves.toBeUndefined(); // unchanged references are not looked at
  });
  it("needs update on the owner's finalizers to block its deletion", async () => {
    allow = (a) => a.subresource !== "finalizers";
    await expect(check(cm([{ ...ref, blockOwnerDeletion: true }]))).rejects.toMatchObject({
      message: "configmaps \"cm\" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>",
    });
    expect(asked.at(-1)).toMatchObject({ verb: "update", apiGroup: "apps", resource: "deployments", subresource: "finalizers", name: "web", namespace: "ns" });
    allow = () => true;
    await expect(check(cm([{ ...ref, blockOwnerDeletion: true }]))).resolves.toBeUndefined();
  });
});
