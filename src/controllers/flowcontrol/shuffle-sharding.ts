// Shuffle sharding (upstream k8s.io/apiserver/pkg/util/shufflesharding): a flow's hash deals it a
// hand of `handSize` distinct queues out of `deckSize`, so that two flows rarely share all their
// queues. The hash is 64 bits; the division runs on BigInt to deal the very cards upstream deals.
import { maxHashBits, requiredEntropyBits } from "../../types/validation/flowcontrol.js";

export class Dealer {
  constructor(
    readonly deckSize: number,
    readonly handSize: number,
  ) {
    if (deckSize <= 0 || handSize <= 0) throw new Error(`deckSize ${deckSize} or handSize ${handSize} is not positive`);
    if (handSize > deckSize) throw new Error(`handSize ${handSize} is greater than deckSize ${deckSize}`);
    if (deckSize > 1 << 26) throw new Error(`deckSize ${deckSize} is impractically large`);
    if (requiredEntropyBits(deckSize, handSize) > maxHashBits) {
      throw new Error(`required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${maxHashBits}`);
    }
  }

  /** The hand of queue indexes for a 64-bit hash. */
  deal(hash: bigint): number[] {
    const remainders: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      const size = BigInt(this.deckSize - i);
      remainders.push(Number(hash % size));
      hash /= size;
    }
    const hand: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      let card = remainders[i]!;
      for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
      hand.push(card);
    }
    return hand;
  }
}
