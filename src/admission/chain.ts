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
  // A plugin that answers at once (most do) is not awaited: an await is a turn of the
  // microtask queue, and a write passes some forty plugin calls.
  const chain: Admission = {
    async admit(a) {
      const { mutating, reinvocable } = stages(a);
      for (const p of mutating) {
        if (!handles(p, a)) continue;
        const pending = admitOne(p, a);
        if (isThenable(pending)) await pending;
      }
      if (!a.reinvocation.shouldReinvoke) return;
      a.reinvocation.isReinvoke = true;
      a.reinvocation.shouldReinvoke = false;
      for (const p of reinvocable) {
        if (!handles(p, a)) continue;
        const pending = admitOne(p, a);
        if (isThenable(pending)) await pending;
      }
    },
    async validate(a) {
      for (const p of stages(a).validating) {
        if (!handles(p, a)) continue;
        const pending = validateOne(p, a);
        if (isThenable(pending)) await pending;
      }
    },
  };
  if (!metrics) return chain;
  const step = (type: AdmissionStepType, run: (a: AdmissionAttributes) => Promise<void>) => timed((_: undefined, a: AdmissionAttributes) => run(a), (_, a, rejected, s) => metrics.observeStep(type, a.operation, rejected, s));
  const admit = step("admit", (a) => chain.admit(a));
  const validate = step("validate", (a) => chain.validate(a));
  // The passes are async functions: timing one gives a promise.
  return { admit: (a) => admit(undefined, a) as Promise<void>, validate: (a) => validate(undefined, a) as Promise<void> };
}

/** `call`, reporting how long it took and whether it threw (rejected); a promise only when `call` gave one. */
function timed<P>(call: (p: P, a: AdmissionAttributes) => void | Promise<void>, report: (p: P, a: AdmissionAttributes, rejected: boolean, seconds: number) => void) {
  return (p: P, a: AdmissionAttributes): void | Promise<void> => {
    const started = performance.now();
    const done = (rejected: boolean) => report(p, a, rejected, (performance.now() - started) / 1000);
    let pending: void | Promise<void>;
    try {
      pending = call(p, a);
    } catch (e) {
      done(true);
      throw e;
    }
    // A function typed to return nothing may still return a value (TypeScript allows it): only a promise is waited for.
    if (!isThenable(pending)) return done(false);
    return pending.then(
      () => done(false),
      (e: unknown) => {
        done(true);
        throw e;
      },
    );
  };
}

function isThenable(v: unknown): v is PromiseLike<void> {
  return typeof (v as PromiseLike<void> | undefined)?.then === "function";
}

/** No plugins: what a store built without admission (unit tests, tools) runs. */
export const noAdmission: Admission = admissionChain([]);
