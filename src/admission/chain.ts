// The admission chain: mutating plugins run in order, each seeing the previous one's result;
// validating plugins run in order after the type's own validation. The first rejection wins.
// When a reinvocable plugin asks for it, the reinvocable plugins run once more after the whole
// mutating pass (upstream: the reinvoker around the chain).
import type { Admission, AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";

const handles = (p: AdmissionPlugin, a: AdmissionAttributes) => !p.operations || p.operations.includes(a.operation);

export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const mutating = plugins.filter((p) => p.admit);
  const reinvocable = mutating.filter((p) => p.reinvocable);
  const validating = plugins.filter((p) => p.validate);
  return {
    async admit(a) {
      for (const p of mutating) if (handles(p, a)) await p.admit!(a);
      if (!a.reinvocation.shouldReinvoke) return;
      a.reinvocation.isReinvoke = true;
      a.reinvocation.shouldReinvoke = false;
      for (const p of reinvocable) if (handles(p, a)) await p.admit!(a);
    },
    async validate(a) {
      for (const p of validating) if (handles(p, a)) await p.validate!(a);
    },
  };
}

/** No plugins: what a store built without admission (unit tests, tools) runs. */
export const noAdmission: Admission = admissionChain([]);
