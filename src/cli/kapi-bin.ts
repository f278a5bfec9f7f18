// The package's bin as scripts/bundle.mjs builds it: dist/bundle/kapi.cjs, a CommonJS file. Node
// starts a CommonJS entry ~10 ms of CPU sooner than an ES module one (no ES module loader to set
// up, no chunks to link before kapi's code runs); it runs the command line's bundle through its
// code cache as ./kapi.ts does, and leaves every other case (a Node that cannot require ES
// modules) to that ES module entry.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { markStartup } from "../observability/startup-trace.js";
import { runCommonJs } from "./code-cache.js";

markStartup("node (process start to kapi's entry)");

/** The CommonJS bundle's content hash, set by scripts/bundle.mjs. */
declare const KAPI_CLI_BUILD: string;

if ((process.features as { require_module?: boolean }).require_module) {
  runCommonJs({ file: join(__dirname, "kapi-cli.cjs"), build: KAPI_CLI_BUILD, command: process.argv[2] ?? "", phase: markStartup });
} else {
  void import(pathToFileURL(join(__dirname, "kapi.js")).href);
}
