// The layers of src/ and the direction imports may take between them (docs/architecture.md,
// "Layers"). `npm test` runs `npm run check:layers`, which fails on any import that breaks a rule
// below and is not listed in .dependency-cruiser-known-violations.json: the imports that still
// run upward today, each to be removed by the part of issue 21 that owns it (the per-resource
// storages and the controller runtime). When one is gone, regenerate the baseline with
// `npm run check:layers:baseline` so that it cannot come back; never add to it by hand.
//
// Only the program is checked: tests (*.test.ts) and test kits (*.testkit.ts) may reach across
// layers to assemble what they exercise.

/**
 * From the bottom up. A folder may import its own files and the folders of lower layers, never
 * a folder of its own layer or of a higher one. Every cycle between two folders would need one
 * such import, so these rules are also the "no folder cycle" check (dependency-cruiser's own
 * folder-scope cycle rule cannot be baselined in version 17, so it is not used).
 */
const layers = [
  { name: "machinery", folders: ["apimachinery"], why: "object, user, errors, selectors, quantities, feature gates" },
  { name: "leaves", folders: ["encoding", "cel", "patch", "storage", "webhook", "observability"], why: "codecs, CEL, patch engines, storage backends (bytes and revisions), the outbound webhook client, metrics: each stands on the machinery alone" },
  { name: "exchange", folders: ["http", "apply"], why: "the HTTP exchange and request info; server-side apply" },
  { name: "registry", folders: ["registry"], why: "the type registry, the generic store and its admission hook, informers" },
  { name: "controller runtime", folders: ["controller-runtime"], why: "the queue, retries, resync, stop and idle signal every in-process controller runs on" },
  { name: "printers", folders: ["printers"], why: "Table columns per type" },
  { name: "types", folders: ["types"], why: "the built-in types and their strategies" },
  { name: "type features", folders: ["quota", "discovery", "apiextensions"], why: "what quota counts, discovery and OpenAPI documents, custom resources" },
  { name: "identity", folders: ["authn", "authz"], why: "authentication methods and authorization modes" },
  { name: "request stages", folders: ["handlers", "admission"], why: "verb handlers; the admission chain and its plugins" },
  { name: "controllers", folders: ["controllers"], why: "in-process control loops" },
  { name: "aggregation", folders: ["aggregator"], why: "the aggregation layer: APIService registration and availability, the extension servers' authentication ConfigMap, discovery from and proxying to extension API servers" },
  { name: "server", folders: ["server"], why: "listener, filters, router, start-up: the composition root" },
  { name: "testing", folders: ["testing"], why: "the test harness: call journal, fault injection, the control endpoint; the test kit: snapshots, restore and reset, settle(), manifests as fixtures" },
  { name: "cli", folders: ["cli"], why: "kapi serve, kapi cel and kapi testenv" },
];

const alt = (names) => `(${names.join("|")})`;

const layerRules = layers.map((layer, i) => {
  const lower = layers.slice(0, i).flatMap((l) => l.folders);
  return {
    name: `layer-${layer.name.replace(/ /g, "-")}`,
    comment: `${layer.folders.join(", ")} (${layer.why}) ${lower.length ? `may import ${lower.join(", ")} and nothing else of ours` : "imports nothing of ours"} (docs/architecture.md, "Source folders and their layers").`,
    severity: "error",
    from: { path: `^src/${alt(layer.folders)}/` },
    to: { path: "^src/", pathNot: [`^src/$1/`, ...(lower.length ? [`^src/${alt(lower)}/`] : [])] },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "handlers-never-touch-a-backend",
      comment: "Verb handlers reach storage through the registry's store; they may name storage's interface and the watch cache's types and errors, never a backend or the cache itself.",
      severity: "error",
      from: { path: "^src/handlers/" },
      to: { path: "^src/storage/", pathNot: ["^src/storage/interface\\.ts$", "^src/storage/cacher/types\\.ts$"] },
    },
    {
      name: "nothing-imports-the-package-entry",
      comment: "src/index.ts is the library's public surface; code inside imports what it needs directly.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/index\\.ts$" },
    },
  ],
  options: {
    includeOnly: "^src/",
    exclude: { path: "\\.(test|testkit)\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    progress: { type: "none" },
  },
};
