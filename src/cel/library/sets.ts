// cel-go's set library (ext.Sets, `cel.lib.ext.sets`), enabled by Kubernetes from 1.29:
// sets.contains(list, sublist), sets.equivalent(a, b), sets.intersects(a, b). Membership is CEL's
// heterogeneous equality (`in` on lists), so `sets.contains([1], [1.0])` is true. Costs as
// cel-go's estimators and trackers: size(a) × size(b) × factor + 1 (factor 2 for equivalent).
import type { ArgEstimate, CelLibrary, OverloadCost } from "../library.js";
import { overload } from "../library.js";
import { BoolType, listOf, typeParam } from "../types.js";
import type { CelValue } from "../value.js";
import { listContains } from "./compare.js";
import { add, fixed, multiply, scale } from "./compare-cost.js";

export function setsContains(list: readonly CelValue[], sublist: readonly CelValue[]): boolean {
  for (const v of sublist) if (!listContains(list, v)) return false;
  return true;
}

export function setsIntersects(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  for (const v of a) if (listContains(b, v)) return true;
  return false;
}

export function setsEquivalent(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  return setsContains(a, b) && setsContains(b, a);
}

function setsCost(factor: number): OverloadCost {
  return {
    estimate: (args: readonly ArgEstimate[]) => ({
      cost: add(scale(multiply(args[0]!.size, args[1]!.size), factor), fixed(1)),
    }),
    actual: (args: readonly CelValue[]) =>
      1 + Math.floor((args[0] as readonly CelValue[]).length * (args[1] as readonly CelValue[]).length * factor),
  };
}

const listT = listOf(typeParam("T"));
const lists = (a: readonly CelValue[]) => [a[0] as readonly CelValue[], a[1] as readonly CelValue[]] as const;

export const setsLibrary: CelLibrary = {
  name: "cel.lib.ext.sets",
  functions: [
    {
      name: "sets.contains",
      overloads: [
        overload("list_sets_contains_list", [listT, listT], BoolType, (a) => setsContains(...lists(a)), {
          typeParams: ["T"],
          cost: setsCost(1),
        }),
      ],
    },
    {
      name: "sets.equivalent",
      overloads: [
        overload("list_sets_equivalent_list", [listT, listT], BoolType, (a) => setsEquivalent(...lists(a)), {
          typeParams: ["T"],
          cost: setsCost(2),
        }),
      ],
    },
    {
      name: "sets.intersects",
      overloads: [
        overload("list_sets_intersects_list", [listT, listT], BoolType, (a) => setsIntersects(...lists(a)), {
          typeParams: ["T"],
          cost: setsCost(1),
        }),
      ],
    },
  ],
};
