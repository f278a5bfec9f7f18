// `npm run build`'s second step: the library entry and the CLI as one ES module each (with the
// chunks they share and the chunks loaded on first use), in dist/bundle/. Loading ~500 compiled
// files costs Node several hundred milliseconds of module resolution and reading, and makes a
// test runner that depends on kapi transform every one of them; a handful of files costs little.
// Each is also built as one CommonJS file (everything in it, the parts a run does not need
// initialised lazily within it), run through a V8 code cache (src/cli/code-cache.ts) whose name
// is the file's content hash: `kapi` (kapi.cjs, a CommonJS entry: Node starts one sooner) runs
// kapi-cli.cjs, and the package entry is index-cached.js
// (a module that loads kapi-lib.cjs) where Node can require ES modules (package.json's
// "module-sync" condition; the CommonJS files require jose, an ES module), index.js elsewhere.
// Dependencies stay packages of their own (installed by npm, several loaded only on first use),
// except the few every start loads (bundledPackages): read from node_modules, a package costs its
// resolution and a compile outside the code cache (~4 ms of CPU for lru-cache alone).
// tsc writes only the type declarations into dist/: the bundles are the package's only code (no
// tree of ~500 compiled modules to run by mistake); the generated tables they read on first use
// are copied beside the declarations, to dist/types/generated/.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bundle`;
/** Packages every start loads, built into the bundles (their types still come from the installed package). */
const bundledPackages = new Set(["lru-cache"]);
const externalPackages = (bundled) => ({
  name: "external-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (bundled.has(a.path) ? undefined : { path: a.path, external: true }));
  },
});
const common = { absWorkingDir: root, bundle: true, platform: "node", target: "node20", plugins: [externalPackages(bundledPackages)], logLevel: "warning" };
/**
 * The CommonJS bundles also hold better-sqlite3's JavaScript (CommonJS itself, so the ES module
 * bundle cannot): src/storage/sqlite/better-sqlite3-package.ts becomes a require esbuild resolves.
 */
const betterSqlite3Bundled = {
  name: "better-sqlite3-bundled",
  setup(b) {
    b.onLoad({ filter: /better-sqlite3-package\.ts$/ }, () => ({ contents: 'export const requireBetterSqlite3 = () => require("better-sqlite3");', loader: "ts", resolveDir: `${root}src/storage/sqlite` }));
  },
};
/**
 * prom-client and what it requires (~40 ms of CPU to read from node_modules, ~13 bundled) are
 * loaded after start-up, but every process loads them: built into the CommonJS bundles as well.
 */
const promClient = ["prom-client", "@opentelemetry/api", "tdigest", "bintrees"];
const commonJsPlugins = [externalPackages(new Set([...bundledPackages, "better-sqlite3", ...promClient])), betterSqlite3Bundled];
rmSync(outdir, { recursive: true, force: true });
rmSync(`${root}dist/types/generated`, { recursive: true, force: true });
cpSync(`${root}src/types/generated`, `${root}dist/types/generated`, { recursive: true, filter: (src) => !src.endsWith(".ts") });

/** One CommonJS file of `entry`; its content hash. */
async function commonJs(entry, file) {
  await build({
    ...common,
    entryPoints: [entry],
    outfile: `${outdir}/${file}`,
    format: "cjs",
    plugins: commonJsPlugins,
    // import() inside a vm.Script needs a loader callback Node 20 has only behind a flag: lazy
    // modules are initialised in place and packages required (jose, an ES module, by require(esm)).
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__kapiModuleUrl" },
    banner: { js: '"use strict";\nconst __kapiModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  // Run as a function body (no #! line), and ASCII only, so it is read as latin1: a one-byte
  // string, decoded in ~1 ms instead of ~5 (UTF-8). esbuild escapes strings; what is left is in
  // comments and in a few regular expressions, where \uXXXX means the same character.
  const text = readFileSync(`${outdir}/${file}`, "utf8")
    .replace(/^#!.*\n/, "")
    .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(`${outdir}/${file}`, text, { mode: 0o644 });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

const cliBuild = await commonJs("src/cli/main.ts", "kapi-cli.cjs");
const libBuild = await commonJs("src/index.ts", "kapi-lib.cjs");
const esm = await build({
  ...common,
  entryPoints: { index: "src/index.ts", kapi: "src/cli/kapi.ts", "code-cache": "src/cli/code-cache.ts" },
  outdir,
  splitting: true,
  format: "esm",
  chunkNames: "chunk-[hash]",
  metafile: true,
  define: { KAPI_CLI_BUILD: JSON.stringify(cliBuild) },
});

// The package's bin: the command line's entry as CommonJS (src/cli/kapi-bin.ts), beside kapi.js.
await build({
  ...common,
  entryPoints: ["src/cli/kapi-bin.ts"],
  outfile: `${outdir}/kapi.cjs`,
  format: "cjs",
  banner: { js: "#!/usr/bin/env node" },
  define: { KAPI_CLI_BUILD: JSON.stringify(cliBuild) },
});
chmodSync(`${outdir}/kapi.cjs`, 0o755);

// The package entry over kapi-lib.cjs: the library's exports, named as index.js names them.
const names = Object.values(esm.metafile.outputs).find((o) => o.entryPoint === "src/index.ts").exports;
writeFileSync(
  `${outdir}/index-cached.js`,
  [
    "// The package entry where Node can require ES modules: the library's CommonJS bundle through its",
    "// code cache (src/cli/code-cache.ts). Written by scripts/bundle.mjs.",
    'import { fileURLToPath } from "node:url";',
    'import { runCommonJs } from "./code-cache.js";',
    `const lib = runCommonJs({ file: fileURLToPath(new URL("./kapi-lib.cjs", import.meta.url)), build: ${JSON.stringify(libBuild)}, command: "library" }).exports;`,
    ...names.map((n) => `export const ${n} = lib.${n};`),
    "",
  ].join("\n"),
);

// dist/cli/main.js, where the command line lived when tsc compiled the tree, runs the bundle's CLI:
// scripts and habits that start kapi by that path get the bundled start, not a missing file.
mkdirSync(`${root}dist/cli`, { recursive: true });
writeFileSync(`${root}dist/cli/main.js`, '#!/usr/bin/env node\n// Written by scripts/bundle.mjs: the command line is dist/bundle/kapi.cjs.\nimport "../bundle/kapi.cjs";\n', { mode: 0o755 });
