// better-sqlite3's JavaScript, required on first use. From the source tree (and the ES module
// bundle) it is the installed package; scripts/bundle.mjs replaces this file in the CommonJS
// bundles by a require the bundler resolves, so that the package's JavaScript is part of kapi's
// code cache (read from node_modules it costs ~7 ms of a start). Its addon is loaded from
// node_modules in either case, which is why package.json pins the package's exact version.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

export function requireBetterSqlite3(): typeof BetterSqlite3 {
  return createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
}
