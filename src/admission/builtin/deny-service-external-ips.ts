// DenyServiceExternalIPs (upstream plugin/pkg/admission/network/denyserviceexternalips): no new
// spec.externalIPs on Services (the old ones of an update may stay), closing CVE-2020-8554.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";
import { isObj, type Obj } from "./pod-shape.js";

const externalIPs = (o: unknown): string[] => {
  const spec = isObj(o) && isObj((o as Obj).spec) ? ((o as Obj).spec as Obj) : {};
  return Array.isArray(spec.externalIPs) ? spec.externalIPs.map(String) : [];
};

export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: "DenyServiceExternalIPs",
    operations: ["CREATE", "UPDATE"],
    resources: [{ group: "", resource: "services" }],
    validate(a) {
      if (a.type.group !== "" || a.type.resource !== "services" || a.subresource !== "" || !a.object) return;
      const wanted = externalIPs(a.object);
      if (wanted.length === 0) return;
      const had = new Set(externalIPs(a.oldObject));
      if (a.oldObject && wanted.every((ip) => had.has(ip))) return;
      throw admissionForbidden(a, "Use of external IPs is denied by admission control");
    },
  };
}
