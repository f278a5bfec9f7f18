// Encoded bytes kept on cached entries (a GET's JSON, a list item's bytes, a watch's ADDED event),
// bounded for the process. Serialize once, serve many pays while the bytes are read again, but an
// unpaged LIST or a watch from resourceVersion 0 of a 100,000-pod store reaches every entry once:
// keeping each one's bytes would add about the store's whole JSON size to the process for good
// (issue 26: a 100k-pod store listed and watched within 1 GiB). Past the budget a memo declines to
// keep what it is given: the reader encodes for its own request and the bytes die with it.
//
// The budget is the process's, not a server's: it bounds the process's memory. Bytes are charged
// when kept and credited when their memo is collected (the entry left the cache and its history).

/** Bytes of encodings the memos keep at once: a 10,000-pod store's items for lists, GETs and watches. */
export const memoBudgetBytes = 192 * 2 ** 20;

export class ByteBudget {
  private used = 0;
  private readonly credit = new FinalizationRegistry<number>((n) => (this.used -= n));

  constructor(readonly limit: number) {}

  /** Bytes charged to memos not collected yet. */
  get kept(): number {
    return this.used;
  }

  /** Charges `n` bytes kept by `holder` when they fit, until `holder` is collected. */
  charge(holder: object, n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    this.credit.register(holder, n);
    return true;
  }
}

const processBudget = new ByteBudget(memoBudgetBytes);

/**
 * A memo that keeps encoded bytes (Buffers, strings) only while its budget allows; other values
 * (nested memos, pending conversions) are always kept, and cost little.
 */
export class BudgetedMemo extends Map<string, unknown> {
  constructor(private readonly budget: ByteBudget = processBudget) {
    super();
  }

  override set(key: string, value: unknown): this {
    const n = typeof value === "string" ? value.length : Buffer.isBuffer(value) ? value.length : 0;
    if (n > 0 && !this.budget.charge(this, n)) return this;
    return super.set(key, value);
  }
}
