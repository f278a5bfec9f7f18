// The admission chain: mutating plugins run in order, each seeing the previous one's result;
// validating plugins run in order after the type's own validation. The first rejection wins.
// When a reinvocable plugin asks for it, the reinvocable plugins run once more after the whole
// mutating pass (upstream: the reinvoker around the chain). A plugin that names the resources it
// looks at is left out of the chain of every other resource (each resource's chain is worked out
// on its first write).
// With metrics, each pass and each plugin call is timed as upstream's WithStepMetrics and
// WithControllerMetrics time them.
import type { AdmissionMetrics, AdmissionStepType } from "../observability/admission-metrics.js";
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

type Call = (p: AdmissionPlugin, a: AdmissionAttributes) => void | Promise<void>;

export function admissionChain(plugins: readonly AdmissionPlugin[], metrics?: AdmissionMetrics): Admission {
  const byResource = new Map<string, Stages>();
  const stages = ({ type }: AdmissionAttributes): Stages => {
    const key = `${type.group}/${type.resource}`;
    let s = byResource.get(key);
    if (!s) byResource.set(key, (s = stagesOf(plugins.filter((p) => !p.resources || p.resources.some((r) => r.group === type.group && r.resource === type.resource)))));
    return s;
  };
  let admitOne: Call = (p, a) => p.admit!(a);
  let validateOne: Call = (p, a) => p.validate!(a);
  if (metrics) {
    admitOne = timed(admitOne, (p, a, rejected, s) => metrics.observeController(p.name, "admit", a.operation, rejected, s));
    validateOne = timed(validateOne, (p, a, rejected, s) => metrics.observeController(p.name, "validate", a.operation, rejected, s));
  }
  const chain: Admission = {
    async admit(a) {
      const { mutating, reinvocable } = stages(a);
      for (const p of mutating) if (handles(p, a)) await admitOne(p, a);
      if (!a.reinvocation.shouldReinvoke) return;
      a.reinvocation.isReinvoke = true;
      a.reinvocation.shouldReinvoke = false;
      for (const p of reinvocable) if (handles(p, a)) await admitOne(p, a);
    },
    async validate(a) {
      for (const p of stages(a).validating) if (handles(p, a)) await validateOne(p, a);
    },
  };
  if (!metrics) return chain;
  const step = (type: AdmissionStepType, run: (a: AdmissionAttributes) => Promise<void>) => timed((_: undefined, a: AdmissionAttributes) => run(a), (_, a, rejected, s) => metrics.observeStep(type, a.operation, rejected, s));
  const admit = step("admit", (a) => chain.admit(a));
  const validate = step("validate", (a) => chain.validate(a));
  return { admit: (a) => admit(undefined, a), validate: (a) => validate(undefined, a) };
}

/** `call`, reporting how long it took and whether it threw (rejected). */
function timed<P>(call: (p: P, a: AdmissionAttributes) => void | Promise<void>, report: (p: P, a: AdmissionAttributes, rejected: boolean, seconds: number) => void) {
  return async (p: P, a: AdmissionAttributes): Promise<void> => {
    const started = performance.now();
    let rejected = true;
    try {
      await call(p, a);
      rejected = false;
    } finally {
      report(p, a, rejected, (performance.now() - started) / 1000);
    }
  };
}

/** No plugins: what a store built without admission (unit tests, tools) runs. */
export const noAdmission: Admission = admissionChain([]);
