// NamespaceAutoProvision and NamespaceExists (upstream plugin/pkg/admission/namespace/autoprovision,
// exists): a create in a namespace that does not exist makes the namespace first; or any write
// in a namespace that does not exist is answered 404 (NamespaceLifecycle does the latter for
// creates among other things; these two are the older, narrower plugins).
import { notFound } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionPluginContext } from "../plugins.js";
import { admissionForbidden } from "./forbidden.js";

const aboutNamespaces = (t: { group: string; resource: string }) => t.group === "" && t.resource === "namespaces";

export function namespaceAutoProvision(ctx: Pick<AdmissionPluginContext, "parts" | "namespaces">): AdmissionPlugin {
  return {
    name: "NamespaceAutoProvision",
    operations: ["CREATE"],
    async admit(a) {
      // Never on a dry run: it would make a namespace.
      if (a.dryRun || !a.namespace || aboutNamespaces(a.type)) return;
      if ((await ctx.namespaces.get(a.namespace)) !== "missing") return;
      const { stores, types } = ctx.parts();
      const nsType = types.get("", "v1", "namespaces")!;
      try {
        await stores.for(nsType).create("", { apiVersion: "v1", kind: "Namespace", metadata: { name: a.namespace } } as KObject, { dryRun: false });
      } catch (e) {
        if ((e as { reason?: string }).reason !== "AlreadyExists") throw admissionForbidden(a, (e as Error).message);
      }
    },
  };
}

export function namespaceExists(ctx: Pick<AdmissionPluginContext, "namespaces">): AdmissionPlugin {
  return {
    name: "NamespaceExists",
    operations: ["CREATE", "UPDATE", "DELETE"],
    async validate(a) {
      if (!a.namespace || aboutNamespaces(a.type)) return;
      if ((await ctx.namespaces.get(a.namespace)) === "missing") throw notFound({ group: "", resource: "namespaces" }, a.namespace);
    },
  };
}
