// `npm run build`'s second step: the library entry and the CLI as one ES module each (with the
// chunks they share and the chunks loaded on first use), in dist/bundle/. Loading ~500 compiled
// files costs Node several hundred milliseconds of module resolution and reading, and makes a
// test runner that depends on kapi transform every one of them; a handful of files costs little.
// Dependencies stay packages of their own (installed by npm, several loaded only on first use).
// tsc's tree in dist/ keeps the type declarations and the generated tables the bundle reads.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { index: "src/index.ts", kapi: "src/cli/kapi.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  chunkNames: "chunk-[hash]",
  logLevel: "warning",
});
