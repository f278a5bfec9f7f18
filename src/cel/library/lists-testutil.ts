// Test helpers for the libraries in this directory: call an overload's implementation and cost
// functions directly by its upstream id.
import type { ArgEstimate, CallEstimate, CelLibrary, OverloadDecl } from "../library.js";
import type { CelType } from "../types.js";
import type { CelValue } from "../value.js";

export function findOverload(lib: CelLibrary, id: string): OverloadDecl {
  for (const f of lib.functions) for (const o of f.overloads) if (o.id === id) return o;
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
