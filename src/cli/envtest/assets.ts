// `kapi envtest-assets [dir]`: a directory controller-runtime's envtest uses as KUBEBUILDER_ASSETS.
// envtest runs `<dir>/kube-apiserver`, `<dir>/etcd` and `<dir>/kubectl` by those names; each is a
// shell script that runs this very kapi (same node, same flags, same CLI file, absolute paths, so
// it works from any directory and PATH a Go test has) as `kapi serve`, `kapi envtest-etcd`, or the
// system kubectl. `exec` keeps the pid envtest signals the pid of the server.
import { accessSync, chmodSync, constants, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";

export interface KapiLaunch {
  /** The node binary. */
  node: string;
  /** node's own options kapi runs with (e.g. a loader when run from source). */
  nodeArgs: string[];
  /** kapi's CLI entry file. */
  cli: string;
}

/** How this process was launched, with absolute paths. */
export function thisLaunch(): KapiLaunch {
  return { node: process.execPath, nodeArgs: process.execArgv, cli: realpathSync(process.argv[1]) };
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function script(purpose: string, argv: string[]): string {
  return `#!/bin/sh\n# Written by \`kapi envtest-assets\`: ${purpose}\nexec ${argv.map(shQuote).join(" ")} "$@"\n`;
}

/** The scripts by file name (pure). kubectl is forwarded only when a system one was found. */
export function assetScripts(k: KapiLaunch, kubectl: string | undefined): Record<string, string> {
  const kapi = [k.node, ...k.nodeArgs, k.cli];
  const out: Record<string, string> = {
    "kube-apiserver": script("envtest's kube-apiserver is `kapi serve` (kube-apiserver's flags).", [...kapi, "serve"]),
    etcd: script("envtest's etcd is kapi's stand-in, which answers /health only; kapi keeps the objects in memory.", [...kapi, "envtest-etcd"]),
  };
  if (kubectl) out.kubectl = script("the system kubectl.", [kubectl]);
  return out;
}

/** `$XDG_CACHE_HOME/kapi/envtest-assets` (default ~/.cache/...). */
export function defaultAssetsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kapi", "envtest-assets");
}

/** The first executable `name` on PATH that is not inside `exclude`. */
export function findOnPath(name: string, exclude: string, path = process.env.PATH ?? ""): string | undefined {
  for (const d of path.split(delimiter)) {
    if (!d || resolve(d) === resolve(exclude)) continue;
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return realpathSync(p);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Writes the scripts into dir (each replaced whole, never half-written); returns the absolute dir. */
export function writeAssets(dir: string, k: KapiLaunch, kubectl: string | undefined): string {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  const scripts = assetScripts(k, kubectl);
  if (!kubectl) rmSync(join(abs, "kubectl"), { force: true });
  for (const [name, text] of Object.entries(scripts)) {
    const tmp = join(abs, `.${name}.${process.pid}`);
    writeFileSync(tmp, text);
    chmodSync(tmp, 0o755);
    renameSync(tmp, join(abs, name));
  }
  return abs;
}

export const envtestAssetsHelp = `Usage:
  kapi envtest-assets [dir]

Writes kube-apiserver, etcd and (when one is on PATH) kubectl into dir (default
$XDG_CACHE_HOME/kapi/envtest-assets, else ~/.cache/kapi/envtest-assets) and prints the
directory. controller-runtime's envtest runs them unchanged:
  KUBEBUILDER_ASSETS=$(npx kapi envtest-assets) go test ./...
kube-apiserver is \`kapi serve\`; etcd is kapi's stand-in (\`kapi envtest-etcd\`), which answers
envtest's /health check and nothing else, and kapi keeps the objects in memory.
`;

export function runEnvtestAssets(args: string[], io: { out(t: string): void; err(t: string): void }): number {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(envtestAssetsHelp);
    return 0;
  }
  if (args.length > 1 || args.some((a) => a.startsWith("-"))) {
    io.err(`kapi envtest-assets: expected at most one directory, got ${args.join(" ")}\n\n${envtestAssetsHelp}`);
    return 2;
  }
  const dir = resolve(args[0] ?? defaultAssetsDir());
  try {
    io.out(writeAssets(dir, thisLaunch(), findOnPath("kubectl", dir)) + "\n");
  } catch (e) {
    io.err(`kapi envtest-assets: ${(e as Error).message}\n`);
    return 1;
  }
  return 0;
}
