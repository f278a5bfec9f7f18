// AlwaysPullImages (upstream plugin/pkg/admission/alwayspullimages): every container of a new
// pod, and of an update that brings a new image, pulls its image always — so a node's cached
// image is never used by a pod that could not pull it itself.
import { formatFieldError, notSupported } from "../../apimachinery/validation.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";
import { isObj, isPods, objs, podsOnly, str, type Obj } from "./pod-shape.js";

const lists = [["initContainers", "spec.initContainers"], ["containers", "spec.containers"], ["ephemeralContainers", "spec.ephemeralContainers"]] as const;

/** An update whose every image was already in the old pod changes nothing this plugin cares for. */
function updateWithoutNewImages(a: AdmissionAttributes): boolean {
  if (a.operation !== "UPDATE" || !a.oldObject) return false;
  const images = (o: unknown) => {
    const spec = isObj(o) && isObj((o as Obj).spec) ? ((o as Obj).spec as Obj) : {};
    return lists.flatMap(([k]) => objs(spec[k]).map((c) => str(c.image)));
  };
  const old = new Set(images(a.oldObject));
  return images(a.object).every((i) => old.has(i));
}

const applies = (a: AdmissionAttributes) => isPods(a, "ephemeralcontainers") && !!a.object && !updateWithoutNewImages(a);

export function alwaysPullImages(): AdmissionPlugin {
  return {
    name: "AlwaysPullImages",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    admit(a) {
      if (!applies(a)) return;
      const spec = isObj(a.object!.spec) ? (a.object!.spec as Obj) : {};
      for (const [k] of lists) for (const c of objs(spec[k])) c.imagePullPolicy = "Always";
    },
    validate(a) {
      if (!applies(a)) return;
      const spec = isObj(a.object!.spec) ? (a.object!.spec as Obj) : {};
      for (const [k, path] of lists) {
        objs(spec[k]).forEach((c, i) => {
          if (c.imagePullPolicy !== "Always") {
            throw admissionForbidden(a, formatFieldError(notSupported(`${path}[${i}].imagePullPolicy`, str(c.imagePullPolicy), ["Always"])));
          }
        });
      }
    },
  };
}
