import { describe, expect, it } from "vitest";
import { add, addLists, exceededNames, formatQ, integerQuantity, prettyPrint, quantityOf, removeZeros, resourceListJson, resourceListOf, roundUpToInteger, subtractNonNegative } from "./resource-list.js";

const q = (s: string) => quantityOf(s)!;

describe("quantities as quota adds them", () => {
  it("keeps the left operand's format unless it is zero (Quantity.Add)", () => {
    expect(formatQ(add(q("512Mi"), q("512Mi")))).toBe("1Gi");
    expect(formatQ(add(q("0"), q("1Gi")))).toBe("1Gi");
    expect(formatQ(add(q("1"), q("1Gi")))).toBe("1073741825");
    expect(formatQ(add(q("600m"), q("400m")))).toBe("1");
    expect(formatQ(add(q("600m"), q("500m")))).toBe("1100m");
    expect(formatQ(add(q("1e3"), q("1e3")))).toBe("2e3");
    expect(formatQ(add(q("100Mi"), q("1")))).toBe("104857601");
  });

  it("prints fractions and small binary values as decimal", () => {
    expect(formatQ(q("0.5"))).toBe("500m");
    expect(formatQ(add(q("1Ki"), q("-1Ki")))).toBe("0");
    expect(formatQ(add(q("0.5Ki"), q("0")))).toBe("512");
    expect(formatQ(integerQuantity(3))).toBe("3");
  });

  it("rounds storage up to whole bytes", () => {
    expect(formatQ(roundUpToInteger(q("1500m")))).toBe("2");
    expect(formatQ(roundUpToInteger(q("1Gi")))).toBe("1Gi");
  });
});

describe("resource lists", () => {
  it("adds, subtracts without going negative, removes zeros", () => {
    const a = resourceListOf({ pods: "2", "requests.cpu": "500m" });
    const b = resourceListOf({ pods: "1", "requests.memory": "1Gi" });
    expect(resourceListJson(addLists(a, b))).toEqual({ pods: "3", "requests.cpu": "500m", "requests.memory": "1Gi" });
    expect(resourceListJson(subtractNonNegative(b, a))).toEqual({ pods: "0", "requests.cpu": "0", "requests.memory": "1Gi" });
    expect(resourceListJson(removeZeros(subtractNonNegative(b, a)))).toEqual({ "requests.memory": "1Gi" });
  });

  it("names what exceeds its limit; prints k=v sorted, comma-joined", () => {
    const used = resourceListOf({ pods: "3", cpu: "2", memory: "1Gi" });
    const hard = resourceListOf({ pods: "2", cpu: "2", memory: "512Mi" });
    expect(exceededNames(used, hard).sort()).toEqual(["memory", "pods"]);
    expect(prettyPrint(used)).toBe("cpu=2,memory=1Gi,pods=3");
  });
});
