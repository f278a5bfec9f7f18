// `npm run build`'s second step: the library entry and the CLI as one ES module each (with the
// chunks they share and the chunks loaded on first use), in dist/bundle/. Loading ~500 compiled
// files costs Node several hundred milliseconds of module resolution and reading, and makes a
// test runner that depends on kapi transform every one of them; a handful of files costs little.
// The command line is also built as one CommonJS file (kapi-cli.cjs, everything in it, the parts
// a command does not run loaded lazily within it), which `kapi` runs through a V8 code cache
// (src/cli/code-cache.ts); its content hash names the cache.
// Dependencies stay packages of their own (installed by npm, several loaded only on first use).
// tsc writes only the type declarations into dist/: the bundles are the package's only code (no
// tree of ~500 compiled modules to run by mistake); the generated tables they read on first use
// are copied beside the declarations, to dist/types/generated/.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bundle`;
const common = { absWorkingDir: root, bundle: true, platform: "node", target: "node20", packages: "external", logLevel: "warning" };
rmSync(outdir, { recursive: true, force: true });
rmSync(`${root}dist/types/generated`, { recursive: true, force: true });
cpSync(`${root}src/types/generated`, `${root}dist/types/generated`, { recursive: true, filter: (src) => !src.endsWith(".ts") });
await build({
  ...common,
  entryPoints: ["src/cli/main.ts"],
  outfile: `${outdir}/kapi-cli.cjs`,
  format: "cjs",
  // import() inside a vm.Script needs a loader callback Node 20 has only behind a flag: lazy
  // modules are initialised in place and packages required (jose, an ES module, by require(esm)).
  supported: { "dynamic-import": false },
  define: { "import.meta.url": "__kapiModuleUrl" },
  banner: { js: '"use strict";\nconst __kapiModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
// Run as a function body (no #! line), and ASCII only, so it is read as latin1: a one-byte string,
// decoded in ~1 ms instead of ~5 (UTF-8). esbuild escapes strings; what is left is in comments and
// in a few regular expressions, where \uXXXX means the same character.
const cli = readFileSync(`${outdir}/kapi-cli.cjs`, "utf8")
  .replace(/^#!.*\n/, "")
  .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
writeFileSync(`${outdir}/kapi-cli.cjs`, cli, { mode: 0o644 });
const cliBuild = createHash("sha256").update(cli).digest("hex").slice(0, 16);
await build({
  ...common,
  entryPoints: { index: "src/index.ts", kapi: "src/cli/kapi.ts" },
  outdir,
  splitting: true,
  format: "esm",
  chunkNames: "chunk-[hash]",
  define: { KAPI_CLI_BUILD: JSON.stringify(cliBuild) },
});
