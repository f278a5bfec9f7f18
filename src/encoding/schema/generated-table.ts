// Loads a generated table (src/types/generated/*.json) on first use: the big ones (schemas,
// protobuf) cost tens of milliseconds to parse, and most requests — and start-up — need neither.
// The tables stay where scripts/generate-schemas.mjs writes them; only the readers live here.
import { readFileSync } from "node:fs";

export function lazyTable<T>(file: string): () => T {
  let value: T | undefined;
  return () => (value ??= JSON.parse(readFileSync(new URL(`../../types/generated/${file}`, import.meta.url), "utf8")) as T);
}
