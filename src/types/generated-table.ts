// Loads a generated table (src/types/generated/*.json) on first use: the big ones (schemas,
// protobuf) cost tens of milliseconds to parse, and most requests — and start-up — need neither.
import { readFileSync } from "node:fs";

export function lazyTable<T>(file: string): () => T {
  let value: T | undefined;
  return () => (value ??= JSON.parse(readFileSync(new URL(`./generated/${file}`, import.meta.url), "utf8")) as T);
}
