// Loads a generated table (src/types/generated/*.json) on first use: the big ones (schemas,
// protobuf) cost tens of milliseconds to parse, and most requests — and start-up — need neither.
// The tables stay where scripts/generate-schemas.mjs writes them; only the readers live here.
import { readFileSync } from "node:fs";
import { packageFile } from "../../apimachinery/package-files.js";

/** The table's text, read on first use. */
export function lazyText(file: string): () => string {
  let text: string | undefined;
  return () => {
    if (text !== undefined) return text;
    const path = packageFile(import.meta.url, `types/generated/${file}`);
    if (!path) throw new Error(`kapi: types/generated/${file} is missing from the installation`);
    return (text = readFileSync(path, "utf8"));
  };
}

/** The table, parsed on first use. */
export function lazyTable<T>(file: string): () => T {
  const text = lazyText(file);
  let value: T | undefined;
  return () => (value ??= JSON.parse(text()) as T);
}
