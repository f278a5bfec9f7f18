// DefaultIngressClass (upstream plugin/pkg/admission/network/defaultingressclass): an Ingress
// created without spec.ingressClassName nor the kubernetes.io/ingress.class annotation gets the
// default IngressClass's name, when one is marked default.
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { newestDefault } from "./default-class.js";
import { objectLookup } from "./lookup.js";
import { isObj, type Obj } from "./pod-shape.js";

export const ingressClassAnnotation = "kubernetes.io/ingress.class";
export const defaultIngressClassAnnotation = "ingressclass.kubernetes.io/is-default-class";

export function defaultIngressClassPlugin(parts: () => AdmissionParts): AdmissionPlugin {
  const classes = objectLookup(parts, "networking.k8s.io", "ingressclasses");
  return {
    name: "DefaultIngressClass",
    operations: ["CREATE"],
    resources: [{ group: "networking.k8s.io", resource: "ingresses" }],
    async admit(a) {
      if (a.type.group !== "networking.k8s.io" || a.type.resource !== "ingresses" || a.subresource !== "" || !a.object) return;
      const spec = isObj(a.object.spec) ? (a.object.spec as Obj) : undefined;
      if (spec && typeof spec.ingressClassName === "string") return;
      if (a.object.metadata.annotations && ingressClassAnnotation in a.object.metadata.annotations) return;
      const def = newestDefault(await classes.list(), (c: KObject) => c.metadata.annotations?.[defaultIngressClassAnnotation] === "true");
      if (!def) return;
      if (!isObj(a.object.spec)) a.object.spec = {};
      (a.object.spec as Obj).ingressClassName = def.metadata.name;
    },
  };
}
