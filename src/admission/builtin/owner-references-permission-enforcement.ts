// OwnerReferencesPermissionEnforcement (upstream plugin/pkg/admission/gc): changing an object's
// ownerReferences needs permission to delete the object, and a new blockOwnerDeletion needs
// permission to update the finalizers subresource of the owner — else anyone could hold up the
// deletion of objects they cannot touch. Pod status updates are exempt.
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import type { KObject, OwnerReference } from "../../apimachinery/object.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";

const refsOf = (o: KObject | undefined): OwnerReference[] => (Array.isArray(o?.metadata.ownerReferences) ? o!.metadata.ownerReferences! : []);
const sameRef = (a: OwnerReference, b: OwnerReference) =>
  a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid && !!a.controller === !!b.controller && !!a.blockOwnerDeletion === !!b.blockOwnerDeletion;

function changesOwnerReferences(next: KObject | undefined, old: KObject | undefined): boolean {
  const n = refsOf(next);
  if (!old) return n.length > 0;
  const o = refsOf(old);
  return n.length !== o.length || n.some((r, i) => !sameRef(r, o[i]!));
}

/** References that block their owner's deletion now and did not before (by uid). */
function newBlockingRefs(next: KObject | undefined, old: KObject | undefined): OwnerReference[] {
  const blockingBefore = new Set(refsOf(old).filter((r) => r.blockOwnerDeletion).map((r) => r.uid));
  return refsOf(next).filter((r) => r.blockOwnerDeletion && !blockingBefore.has(r.uid));
}

const decisionText = (reason: string, error?: string) => `${reason}, ${error ?? "<nil>"}`;

export function ownerReferencesPermissionEnforcement(authorizer: () => Authorizer, types: () => TypeRegistry): AdmissionPlugin {
  async function allowed(attrs: Attributes): Promise<{ ok: boolean; text: string }> {
    const r = await authorizer().authorize(attrs);
    return { ok: r.decision === "allow", text: decisionText(r.reason, r.error) };
  }

  async function validate(a: AdmissionAttributes): Promise<void> {
    if (a.type.group === "" && a.type.resource === "pods" && a.subresource === "status") return; // whitelisted
    if (!a.user || !changesOwnerReferences(a.object, a.oldObject)) return;
    const base = { user: a.user, isResourceRequest: true, path: "" };
    const del = await allowed({ ...base, verb: "delete", namespace: a.namespace, apiGroup: a.type.group, apiVersion: a.type.version, resource: a.type.resource, subresource: a.subresource, name: a.name });
    if (!del.ok) throw admissionForbidden(a, `cannot set an ownerRef on a resource you can't delete: ${del.text}`);
    for (const ref of newBlockingRefs(a.object, a.oldObject)) {
      const [group, version] = ref.apiVersion.includes("/") ? ref.apiVersion.split("/") : ["", ref.apiVersion];
      const owners = types().all().filter((t) => t.group === group && t.version === version && t.kind === ref.kind);
      if (owners.length === 0) {
        throw admissionForbidden(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
      }
      for (const t of owners) {
        const upd = await allowed({
          ...base,
          verb: "update",
          namespace: t.namespaced ? a.namespace : "",
          apiGroup: t.group,
          apiVersion: t.version,
          resource: t.resource,
          subresource: "finalizers",
          name: ref.name,
        });
        if (!upd.ok) throw admissionForbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${upd.text}`);
      }
    }
  }

  return { name: "OwnerReferencesPermissionEnforcement", operations: ["CREATE", "UPDATE"], validate };
}
