// The PatchError a patch engine throws, for tests. Not part of the build (*.testkit.ts).
import { expect } from "vitest";
import { PatchError } from "./errors.js";

/** Runs `fn`, which must throw a PatchError, and returns it. */
export function errorOf(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchError);
    return e as PatchError;
  }
  throw new Error("expected a PatchError");
}
