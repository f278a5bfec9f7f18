#!/usr/bin/env node
// The `kapi` command's entry (the package's bin). Built, it runs the command line's CommonJS
// bundle through a V8 code cache (./code-cache.ts): a start then neither parses the bundle nor
// compiles what start-up runs. The bundle needs require() of ES modules (jose; Node 20.19, 22.12
// and later): on an older Node, and from the source tree, the ES module build runs instead, with
// Node's own compile cache where Node has one (22.1 and later).
import module from "node:module";
import { fileURLToPath } from "node:url";
import { markStartup } from "../observability/startup-trace.js";
import { runCommonJs } from "./code-cache.js";

markStartup("node (process start to kapi's entry)");

/** The CommonJS bundle's content hash, set by scripts/bundle.mjs (undefined in the source tree). */
declare const KAPI_CLI_BUILD: string;

const build = typeof KAPI_CLI_BUILD === "string" ? KAPI_CLI_BUILD : undefined;
if (build && (process.features as { require_module?: boolean }).require_module) {
  runCommonJs({ file: fileURLToPath(new URL("./kapi-cli.cjs", import.meta.url)), build, command: process.argv[2] ?? "", phase: markStartup });
} else {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  await import("./main.js");
}
