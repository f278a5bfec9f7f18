// NamespaceLifecycle (upstream's admission plugin of that name): nothing is created in a
// namespace that does not exist or is being terminated, and the system namespaces cannot be
// deleted. Namespace states come from a watched view, with a live read on a miss.
import { forbidden, notFound } from "../apimachinery/errors.js";
import type { AdmissionPlugin } from "../registry/admission.js";

export type NamespaceState = "active" | "terminating" | "missing";

/** The namespaces upstream never lets anyone delete. */
export const immortalNamespaces: ReadonlySet<string> = new Set(["default", "kube-system", "kube-public"]);

const isNamespaceType = (group: string, resource: string) => group === "" && resource === "namespaces";

export function namespaceLifecycle(stateOf: (namespace: string) => Promise<NamespaceState>): AdmissionPlugin {
  return {
    name: "NamespaceLifecycle",
    operations: ["CREATE", "DELETE"],
    // Upstream runs it in the mutating stage (first of all plugins): it rejects before any validation.
    async admit(a) {
      const { group, resource } = a.type;
      if (a.operation === "DELETE") {
        if (isNamespaceType(group, resource) && !a.subresource && immortalNamespaces.has(a.name)) {
          throw forbidden(a.type.gr, a.name, "this namespace may not be deleted");
        }
        return;
      }
      if (a.operation !== "CREATE") return; // content of a terminating namespace may still change and go
      if (!a.type.namespaced || !a.namespace || isNamespaceType(group, resource)) return;
      const state = await stateOf(a.namespace);
      if (state === "missing") throw notFound({ group: "", resource: "namespaces" }, a.namespace);
      if (state === "terminating") {
        const name = a.name || a.object?.metadata.generateName || "";
        const e = forbidden(a.type.gr, name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
        e.details!.causes = [{ reason: "NamespaceTerminating", message: `namespace ${a.namespace} is being terminated`, field: "metadata.namespace" }];
        throw e;
      }
    },
  };
}
