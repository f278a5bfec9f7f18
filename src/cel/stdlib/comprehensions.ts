// cel-go's two-variable comprehensions library (ext.TwoVarComprehensions): the macros are the
// parser's; at runtime transformMap/transformMapEntry fold with `cel.@mapInsert`.
import { overload, type CelLibrary } from "../library.js";
import { mapOf, typeParam } from "../types.js";
import { CelEvalError, CelMap, type CelValue, type MapKey } from "../value.js";
import { formatDouble } from "./standard.js";
import { CelUint } from "../value.js";

const K = typeParam("K");
const V = typeParam("V");
const mapKV = mapOf(K, V);

function keyText(k: CelValue): string {
  if (k instanceof CelUint) return String(k.value);
  if (typeof k === "number") return formatDouble(k);
  return String(k);
}

/** A copy of `map` with `key` → `value`; `insert failed: key <k> already exists` when present. */
export function mapInsert(map: CelMap, key: CelValue, value: CelValue, inPlace = false): CelMap {
  if (map.has(key)) throw new CelEvalError(`insert failed: key ${keyText(key)} already exists`);
  if (!(typeof key === "string" || typeof key === "bigint" || typeof key === "boolean" || key instanceof CelUint))
    throw new CelEvalError(`unsupported map key type: ${keyText(key)}`);
  const out = inPlace ? map : CelMap.fromEntries(map.entries());
  out.set(key as MapKey, value);
  return out;
}

export const twoVarComprehensionsLibrary: CelLibrary = {
  name: "cel.lib.ext.comprev2",
  functions: [
    {
      name: "cel.@mapInsert",
      overloads: [
        overload("@mapInsert_map_key_value", [mapKV, K, V], mapKV, (a) => mapInsert(a[0] as CelMap, a[1]!, a[2]!), {
          typeParams: ["K", "V"],
        }),
        overload(
          "@mapInsert_map_map",
          [mapKV, mapKV],
          mapKV,
          (a) => {
            let out = a[0] as CelMap;
            let first = true;
            for (const [k, v] of (a[1] as CelMap).entries()) {
              out = mapInsert(out, k, v, !first);
              first = false;
            }
            return out;
          },
          { typeParams: ["K", "V"] },
        ),
      ],
    },
  ],
};
