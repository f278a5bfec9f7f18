// The one conformance suite every admission plugin runs (built-in plugins, webhooks, policies,
// quota), as authenticators, authorizers, storage backends and codecs have theirs. Whatever a
// plugin decides, it keeps the admission contract the chain and the store rely on:
// - it has a stage (admit and/or validate), and only a mutating plugin may be reinvocable;
// - a refusal is an ApiError (a Status with a 4xx/5xx code), never a bare exception;
// - validate never changes the object, and neither stage ever changes the stored old object;
// - admitting an object it has already admitted changes nothing more (the chain may run a
//   mutating stage again: reinvocation, and the store's retry on a lost race);
// - a dry run gets the same answer and the same object as the real write.
// Cases may also state the outcome they expect (admitted unchanged, admitted, or refused with a code).
import { describe, expect, it } from "vitest";
import { ApiError } from "../apimachinery/errors.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";

export type ExpectedOutcome = "unchanged" | "admitted" | { readonly refused: number };

export interface AdmissionConformanceCase {
  readonly title: string;
  /** Fresh attributes for one run (the suite runs each case several times). */
  attributes(): AdmissionAttributes;
  /** When set, the plugin's outcome must be this one. */
  readonly expect?: ExpectedOutcome;
}

export interface AdmissionConformanceSuite {
  /** The plugin's name: the built plugin must carry it. */
  readonly name: string;
  make(): AdmissionPlugin | Promise<AdmissionPlugin>;
  readonly cases: readonly AdmissionConformanceCase[];
  /** After each test (stop the plugin's informers, close stores). */
  cleanup?(): void | Promise<void>;
}

type Outcome = { refused: ApiError } | { object: unknown };

/** One write through the plugin's stages, as the chain runs them: admit, then validate. */
async function run(p: AdmissionPlugin, a: AdmissionAttributes): Promise<Outcome> {
  const old = structuredClone(a.oldObject);
  const handles = !p.operations || p.operations.includes(a.operation);
  try {
    if (handles && p.admit) await p.admit(a);
    if (handles && p.validate) {
      const admitted = structuredClone(a.object);
      await p.validate(a);
      expect(a.object, `${p.name}: validate changed the object`).toEqual(admitted);
    }
  } catch (e) {
    if (!(e instanceof ApiError)) throw new Error(`${p.name}: refused with ${(e as Error)?.name}: ${(e as Error)?.message} instead of an ApiError`);
    expect(e.code, `${p.name}: a refusal's code`).toBeGreaterThanOrEqual(400);
    expect(typeof e.message === "string" && e.message.length > 0, `${p.name}: a refusal has a message`).toBe(true);
    return { refused: e };
  } finally {
    expect(a.oldObject, `${p.name}: the stored old object was changed`).toEqual(old);
  }
  return { object: a.object };
}

const describeOutcome = (o: Outcome) => ("refused" in o ? { refused: o.refused.code, message: o.refused.message } : { object: o.object });

export function admissionPluginConformance(suite: AdmissionConformanceSuite): void {
  describe(`${suite.name}: admission plugin conformance`, () => {
    it("is named, has a stage, and is reinvocable only if it mutates", async () => {
      const p = await suite.make();
      try {
        expect(p.name).toBe(suite.name);
        expect(Boolean(p.admit || p.validate)).toBe(true);
        if (p.reinvocable) expect(typeof p.admit).toBe("function");
      } finally {
        p.stop?.();
        await suite.cleanup?.();
      }
    });

    for (const c of suite.cases) {
      it(`${c.title}: keeps the admission contract`, async () => {
        const p = await suite.make();
        try {
          const given = c.attributes();
          const first = await run(p, given);
          if (c.expect === "unchanged") expect(first).toEqual({ object: c.attributes().object });
          else if (c.expect === "admitted") expect("object" in first, JSON.stringify(describeOutcome(first))).toBe(true);
          else if (c.expect) expect("refused" in first ? first.refused.code : describeOutcome(first)).toBe(c.expect.refused);

          // Admitting what it admitted changes nothing more.
          if ("object" in first && p.admit) {
            const again = { ...c.attributes(), object: structuredClone(first.object) as AdmissionAttributes["object"] };
            expect(describeOutcome(await run(p, again)), "admitting again").toEqual(describeOutcome(first));
          }

          // A dry run gets the same answer and the same object.
          const dry = c.attributes();
          const dryRun = await run(p, { ...dry, dryRun: true, options: { ...dry.options, dryRun: ["All"] } as AdmissionAttributes["options"] });
          expect(describeOutcome(dryRun), "dry run").toEqual(describeOutcome(first));
        } finally {
          p.stop?.();
          await suite.cleanup?.();
        }
      });
    }
  });
}
