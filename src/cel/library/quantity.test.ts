import { describe, expect, it } from "vitest";
import { CelEvalError, type CelValue } from "../value.js";
import { callOverload, findOverload, functionOf } from "./overloads.testkit.js";
import { parseQuantity, Quantity, quantityLibrary } from "./quantity.js";

const call = (id: string, ...args: CelValue[]) => callOverload(quantityLibrary, id, ...args);
const q = (s: string) => parseQuantity(s);

describe("kubernetes.quantity", () => {
  it("declares upstream's functions and overload ids", () => {
    expect(functionOf(quantityLibrary, "string_to_quantity")).toBe("quantity");
    expect(findOverload(quantityLibrary, "quantity_sign").member).toBe(false);
    expect(findOverload(quantityLibrary, "quantity_add_int").member).toBe(true);
  });

  it.each([
    ["12Mi", true],
    ["200k", true],
    ["1.5G", true],
    ["-", true], // upstream's scanner accepts a bare sign as zero
    ["1.G", true],
    ["", false],
    [" 1", false],
    ["200K", false],
    ["Three", false],
    ["1,3G", false],
    ["10Mm", false],
  ])("isQuantity(%j) = %s", (s, want) => {
    expect(call("is_quantity_string", s)).toBe(want);
  });

  it.each([
    ["10Mo", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["10Mm", "unable to parse quantity's suffix"],
    ["1e", "unable to parse quantity's suffix"],
    ["", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  ])("quantity(%j) fails: %s", (s, message) => {
    expect(() => call("string_to_quantity", s)).toThrow(CelEvalError);
    expect(() => call("string_to_quantity", s)).toThrow(message);
  });

  it("equality, comparisons", () => {
    expect(q("200M").equals(q("0.2G"))).toBe(true);
    expect(q("2000k").equals(q("2M"))).toBe(true);
    expect(q("200M").equals(q("0.3G"))).toBe(false);
    expect(call("quantity_is_less_than", q("50M"), q("50Mi"))).toBe(true);
    expect(call("quantity_is_greater_than", q("50M"), q("100M"))).toBe(false);
    expect(call("quantity_compare_to", q("200M"), q("0.2G"))).toBe(0n);
    expect(call("quantity_compare_to", q("50Mi"), q("50M"))).toBe(1n);
    expect(call("quantity_sign", q("-1m"))).toBe(-1n);
    expect(call("quantity_sign", q("0"))).toBe(0n);
  });

  it("arithmetic, with upstream's value/pointer equality quirk", () => {
    const sum = call("quantity_add", q("50k"), q("20")) as Quantity;
    expect(sum.equals(q("50.02k"))).toBe(true);
    expect(q("50.02k").equals(sum)).toBe(false); // upstream: Equal needs a value on the right
    expect((call("quantity_sub_int", q("50k"), 20n) as Quantity).equals(q("49980"))).toBe(true);
    const chain = call("quantity_sub_int", call("quantity_sub", call("quantity_add_int", q("50k"), 20n), q("100k")), -50000n);
    expect(call("quantity_get_int", chain)).toBe(20n);
    expect(call("quantity_is_less_than", call("quantity_add_int", q("50k"), 20n), q("50020"))).toBe(false);
    // overflow of the int64 form moves to decimals
    const big = call("quantity_add_int", q("9223372036854775807"), 1n) as Quantity;
    expect(big.amount.kind).toBe("dec");
    expect(call("quantity_is_integer", big)).toBe(false);
  });

  it("asInteger / isInteger / asApproximateFloat", () => {
    expect(call("quantity_get_int", q("50k"))).toBe(50000n);
    expect(call("quantity_is_integer", q("50"))).toBe(true);
    expect(call("quantity_is_integer", q("50000000G"))).toBe(true);
    expect(call("quantity_is_integer", q("1.0"))).toBe(false); // scaled int64 with negative scale
    expect(call("quantity_is_integer", q("9999999999999999999999999999999999999G"))).toBe(false);
    expect(() => call("quantity_get_int", q("9999999999999999999999999999999999999G"))).toThrow("cannot convert value to integer");
    expect(call("quantity_get_float", q("50.703k"))).toBe(50703);
    expect(call("quantity_get_float", q("1.5Gi"))).toBe(1610612736 * 1);
    expect(call("quantity_get_float", call("quantity_sub_int", q("50k"), 20000n))).toBe(30000);
  });

  it("parsing rounds up to nano units and caps binary values", () => {
    expect(q("0.0000000001").equals(q("1n"))).toBe(true);
    expect(q("-0.0000000001").equals(q("-1n"))).toBe(true);
    expect(q("100Ei").equals(q("9223372036854775807"))).toBe(true);
  });

  it("costs as upstream: parse = ceil(len*0.1) at runtime, 1 estimated; accessors 1", () => {
    const cost = findOverload(quantityLibrary, "string_to_quantity").cost!;
    expect(cost.actual!(["123456789012"], null)).toBe(2);
    expect(cost.estimate!([{ type: { kind: "string" }, size: { min: 0, max: 100 } }]).cost).toEqual({ min: 1, max: 1 });
    expect(findOverload(quantityLibrary, "quantity_add").cost!.actual!([], null)).toBe(1);
  });
});

describe("kubernetes.quantity extremes", () => {
  it("compares far-apart magnitudes without building huge numbers", () => {
    expect(call("quantity_compare_to", q("1e999999999"), q("1"))).toBe(1n);
    expect(call("quantity_compare_to", q("-1e999999999"), q("1"))).toBe(-1n);
    expect(call("quantity_compare_to", q("1e-999999999"), q("1n"))).toBe(0n); // rounds up to 1n
    expect(call("quantity_get_float", q("1e400"))).toBe(Infinity);
  });
});
