import { describe, expect, it } from "vitest";
import { Dealer } from "./shuffle-sharding.js";

describe("Dealer", () => {
  it("deals handSize distinct cards of the deck, the same for the same hash", () => {
    const d = new Dealer(128, 6);
    for (const hash of [0n, 1n, 12345678901234567n, 2n ** 64n - 1n]) {
      const hand = d.deal(hash);
      expect(hand).toHaveLength(6);
      expect(new Set(hand).size).toBe(6);
      expect(hand.every((c) => c >= 0 && c < 128)).toBe(true);
      expect(d.deal(hash)).toEqual(hand);
    }
  });

  it("takes the cards from the hash's mixed-radix digits, as upstream", () => {
    // 7 = 0 + 1*4 + 1*4*3: remainders 3 (mod 4), then 1 (mod 3) -> cards 3 and 1.
    expect(new Dealer(4, 2).deal(7n)).toEqual([3, 1]);
    // remainders 1, 1: the second skips the first card taken -> 1, 2.
    expect(new Dealer(4, 2).deal(5n)).toEqual([1, 2]);
  });

  it("refuses hands that need more than 60 bits of hash", () => {
    expect(() => new Dealer(1 << 26, 8)).toThrow("required entropy bits of deckSize 67108864 and handSize 8 is greater than 60");
    expect(() => new Dealer(4, 5)).toThrow("handSize 5 is greater than deckSize 4");
  });
});
