// JSON decoding for request bodies. Plain JSON.parse for now; the duplicate-key-aware
// decoder for field validation replaces this function's body without changing callers.
import { DecodeError } from "./decode-error.js";

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DecodeError((e as Error).message);
  }
}
