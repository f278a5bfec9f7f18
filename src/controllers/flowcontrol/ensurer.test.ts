import { describe, expect, it } from "vitest";
import { mandatoryPriorityLevels, suggestedPriorityLevels, type PriorityLevelConfiguration } from "../../types/flowcontrol-bootstrap.js";
import { ensuredObject } from "./ensurer.js";

const annotation = "apf.kubernetes.io/autoupdate-spec";
const global = () => suggestedPriorityLevels().find((p) => p.metadata.name === "global-default")!;
const changed = (generation: number, autoUpdate?: string): PriorityLevelConfiguration => {
  const o = global();
  o.metadata.generation = generation;
  o.metadata.annotations = autoUpdate === undefined ? {} : { [annotation]: autoUpdate };
  o.spec.limited!.nominalConcurrencyShares = 7;
  return o;
};

describe("ensuredObject", () => {
  it("restores a suggested spec while its annotation says true", () => {
    const next = ensuredObject(changed(2, "true"), global(), false) as PriorityLevelConfiguration;
    expect(next.spec.limited!.nominalConcurrencyShares).toBe(20);
  });

  it("leaves a suggested object alone when its annotation says false", () => {
    expect(ensuredObject(changed(2, "false"), global(), false)).toBeUndefined();
  });

  it("without a readable annotation, updates only an object never changed (generation 1), and records the decision", () => {
    const untouched = ensuredObject(changed(1), global(), false) as PriorityLevelConfiguration;
    expect(untouched.spec.limited!.nominalConcurrencyShares).toBe(20);
    expect(untouched.metadata.annotations![annotation]).toBe("true");
    const edited = ensuredObject(changed(3, "maybe"), global(), false) as PriorityLevelConfiguration;
    expect(edited.spec.limited!.nominalConcurrencyShares).toBe(7);
    expect(edited.metadata.annotations![annotation]).toBe("false");
  });

  it("always restores a mandatory object, keeping exempt's shares and lendable percent", () => {
    const [catchAll, exempt] = mandatoryPriorityLevels();
    const c = structuredClone(catchAll!);
    c.metadata.annotations = { [annotation]: "false" };
    c.spec.limited!.nominalConcurrencyShares = 50;
    const restored = ensuredObject(c, catchAll!, true) as PriorityLevelConfiguration;
    expect([restored.spec.limited!.nominalConcurrencyShares, restored.metadata.annotations![annotation]]).toEqual([5, "true"]);
    const e = structuredClone(exempt!);
    e.spec.exempt = { nominalConcurrencyShares: 10, lendablePercent: 50 };
    expect(ensuredObject(e, exempt!, true)).toBeUndefined();
  });
});
