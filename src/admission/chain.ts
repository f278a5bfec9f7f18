// The admission chain: mutating plugins run in order, each seeing the previous one's result;
// validating plugins run in order after the type's own validation. The first rejection wins.
// When a reinvocable plugin asks for it, the reinvocable plugins run once more after the whole
// mutating pass (upstream: the reinvoker around the chain). A plugin that names the resources it
// looks at is left out of the chain of every other resource (each resource's chain is worked out
// on its first write).
import type { Admission, AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";

const handles = (p: AdmissionPlugin, a: AdmissionAttributes) => !p.operations || p.operations.includes(a.operation);

interface Stages {
  mutating: AdmissionPlugin[];
  reinvocable: AdmissionPlugin[];
  validating: AdmissionPlugin[];
}

function stagesOf(plugins: readonly AdmissionPlugin[]): Stages {
  const mutating = plugins.filter((p) => p.admit);
  return { mutating, reinvocable: mutating.filter((p) => p.reinvocable), validating: plugins.filter((p) => p.validate) };
}

export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const byResource = new Map<string, Stages>();
  const stages = ({ type }: AdmissionAttributes): Stages => {
    const key = `${type.group}/${type.resource}`;
    let s = byResource.get(key);
    if (!s) byResource.set(key, (s = stagesOf(plugins.filter((p) => !p.resources || p.resources.some((r) => r.group === type.group && r.resource === type.resource)))));
    return s;
  };
  return {
    async admit(a) {
      const { mutating, reinvocable } = stages(a);
      for (const p of mutating) if (handles(p, a)) await p.admit!(a);
      if (!a.reinvocation.shouldReinvoke) return;
      a.reinvocation.isReinvoke = true;
      a.reinvocation.shouldReinvoke = false;
      for (const p of reinvocable) if (handles(p, a)) await p.admit!(a);
    },
    async validate(a) {
      for (const p of stages(a).validating) if (handles(p, a)) await p.validate!(a);
    },
  };
}

/** No plugins: what a store built without admission (unit tests, tools) runs. */
export const noAdmission: Admission = admissionChain([]);
