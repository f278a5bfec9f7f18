// AlwaysAdmit and AlwaysDeny (upstream plugin/pkg/admission/admit, deny): deprecated test
// plugins that let every write through, or refuse every write.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";

export const alwaysAdmit = (): AdmissionPlugin => ({ name: "AlwaysAdmit", admit() {}, validate() {} });

export function alwaysDeny(): AdmissionPlugin {
  const deny = (a: Parameters<NonNullable<AdmissionPlugin["admit"]>>[0]) => {
    throw admissionForbidden(a, "admission control is denying all modifications");
  };
  return { name: "AlwaysDeny", admit: deny, validate: deny };
}
