// Reaching a library's overloads by upstream id, for the libraries' own table tests.
import type { ArgEstimate, CallEstimate, CelLibrary, OverloadDecl } from "../library.js";
import type { CelType } from "../types.js";
import type { CelValue } from "../value.js";

/** The overload with upstream id `id` in `lib` . */
export function findOverload(lib: CelLibrary, id: string): OverloadDecl {
  for (const fn of lib.functions) {
    for (const o of fn.overloads) if (o.id === id) return o;
  }
  throw new Error(`no overload ${id} in ${lib.name}`);
}

const noServices = { services: {} } as const;

/** Calls an overload's implementation directly (receiver first for members). */
export function callOverload(lib: CelLibrary, id: string, ...args: CelValue[]): CelValue {
  const o = findOverload(lib, id);
  if (!o.impl) throw new Error(`overload ${id} has no implementation`);
  return o.impl(args, noServices);
}

/** The name of the function that declares overload `id` (tests check declarations). */
export function functionOf(lib: CelLibrary, id: string): string {
  for (const fn of lib.functions) if (fn.overloads.some((o) => o.id === id)) return fn.name;
  throw new Error(`no overload ${id} in ${lib.name}`);
}

export function caller(lib: CelLibrary, services: Record<string, unknown> = {}) {
  return (id: string, ...args: CelValue[]): CelValue => findOverload(lib, id).impl!(args, { services });
}

export function actualCost(lib: CelLibrary, id: string, args: CelValue[], result: CelValue): number | undefined {
  return findOverload(lib, id).cost?.actual?.(args, result);
}

export function estimateCost(lib: CelLibrary, id: string, args: ArgEstimate[]): CallEstimate | undefined {
  return findOverload(lib, id).cost?.estimate?.(args);
}

/** An argument estimate of a type with fixed size bounds. */
export function arg(type: CelType, min: number, max = min, constant?: CelValue): ArgEstimate {
  return constant === undefined ? { type, size: { min, max } } : { type, size: { min, max }, constant };
}
