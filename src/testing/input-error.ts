// Bad input to the test harness (a malformed matcher, an unknown fault kind, a probability out of
// range): thrown from the library API as it is, answered 400 by the control endpoint.
export class HarnessInputError extends Error {
  override name = "HarnessInputError";
}

export function describeValue(v: unknown): string {
  return v === undefined ? "nothing" : JSON.stringify(v) ?? String(v);
}
