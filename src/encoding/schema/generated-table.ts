// Loads a generated table (src/types/generated/*.json) on first use: the big ones (schemas,
// protobuf) cost tens of milliseconds to parse, and most requests — and start-up — need neither.
// The tables stay where scripts/generate-schemas.mjs writes them; only the readers live here.
import { readFileSync } from "node:fs";
import { packageFile } from "../../apimachinery/package-files.js";

export function lazyTable<T>(file: string): () => T {
  let value: T | undefined;
  return () => {
    if (value !== undefined) return value;
    const path = packageFile(import.meta.url, `types/generated/${file}`);
    if (!path) throw new Error(`kapi: types/generated/${file} is missing from the installation`);
    return (value = JSON.parse(readFileSync(path, "utf8")) as T);
  };
}
