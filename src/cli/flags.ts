// kube-apiserver-style flags: `--name=value` or `--name value`, booleans as `--name` or
// `--name=false`. An unknown flag is an error that names it. The flags are declared where their
// capability is: the generic ones by the server's core (server/core-flags.ts), the others by the
// feature module that owns them (FeatureModule.flags); --help lists them in those sections.
import { goQuote } from "../apimachinery/go-quote.js";
import { coreFlags } from "../server/core-flags.js";
import { boolFlag, listFlag, type FlagSpec } from "../server/flag-spec.js";
import { flagsOf } from "../server/features/feature-module.js";
import { serverFeatures } from "../server/features/index.js";
import { defaultOptions, type ServerOptions } from "../server/options.js";

/** What `kapi serve`'s flags say: the server's options, and what the CLI resolves before start (cli/envtest/storage-choice.ts). */
export interface ServeFlags extends ServerOptions {
  /** --storage-backend as given. */
  storageBackendFlag?: "sqlite" | "memory" | "etcd3";
  /** --data-dir was given (otherwise the etcd stand-in case keeps kapi's files in --cert-dir). */
  dataDirGiven: boolean;
}

type CliFlagSpec = Omit<FlagSpec, "apply"> & { apply(o: ServeFlags, value: string): void };

const coreFlag = (name: string): FlagSpec => coreFlags.find((f) => f.name === name) ?? fail(`no core flag --${name}`);

/**
 * The storage flags, resolved by the CLI before start (an etcd named by --etcd-servers may be
 * kapi's stand-in), and the flags envtest passes that kapi accepts with no effect.
 */
const cliFlags: CliFlagSpec[] = [
  { ...coreFlag("data-dir"), apply: (o, v) => (coreFlag("data-dir").apply(o, v), (o.dataDirGiven = true)) },
  { name: "storage-backend", kind: "string", default: "sqlite", help: "kapi: sqlite (durable, default without --etcd-servers), memory, or etcd3 (the default with --etcd-servers).", apply: (o, v) => (o.storageBackendFlag = storageBackendFlag(v)) },
  { name: "etcd-servers", kind: "list", default: "", help: "List of etcd servers to connect with (scheme://ip:port), comma separated. kapi: when each one is kapi's etcd stand-in (written by `kapi envtest-assets`), objects are kept in memory.", apply: (o, v) => (o.etcdServers = [...o.etcdServers, ...listFlag(v)]) },
  { name: "allow-privileged", kind: "bool", default: "true", help: "If true, allow privileged containers. kapi runs no containers and always admits them, so only true is accepted (kube-apiserver's default is false).", apply: (_o, v) => allowPrivilegedFlag(v) },
  { name: "advertise-address", kind: "string", default: "", help: "The IP address on which to advertise the apiserver to members of the cluster. kapi ignores it: it has no cluster members and publishes no endpoints for the kubernetes Service.", apply: () => undefined },
];

function storageBackendFlag(v: string): "sqlite" | "memory" | "etcd3" {
  if (v === "sqlite" || v === "memory" || v === "etcd3") return v;
  throw new Error(`--storage-backend: unknown storage backend ${goQuote(v)} (supported: sqlite, memory, etcd3)`);
}

function allowPrivilegedFlag(v: string): void {
  if (!boolFlag("allow-privileged", v)) throw new Error("--allow-privileged=false is not supported: kapi always admits privileged containers (it runs none)");
}

function fail(message: string): never {
  throw new Error(message);
}

/** Every flag of `kapi serve`, in sections: the generic flags, then each feature module's, then the CLI's own. */
export function serveFlagSections(): { section: string; flags: readonly (FlagSpec | CliFlagSpec)[] }[] {
  const own = new Set(cliFlags.map((f) => f.name));
  const server = flagsOf(coreFlags, serverFeatures()).map((s) => ({ section: s.section, flags: s.flags.filter((f) => !own.has(f.name)) }));
  return [...server, { section: "Storage and envtest compatibility", flags: cliFlags }];
}

export function parseServeFlags(args: string[]): ServeFlags {
  const specs = new Map(serveFlagSections().flatMap((s) => s.flags.map((f) => [f.name, f] as const)));
  const o: ServeFlags = { ...defaultOptions(), dataDirGiven: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${goQuote(arg)}`);
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const spec = specs.get(name);
    if (!spec) throw new Error(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.kind === "bool") value = "true";
    else {
      if (i + 1 >= args.length) throw new Error(`flag needs an argument: --${name}`);
      value = args[++i];
    }
    spec.apply(o, value);
  }
  return o;
}

export function helpText(): string {
  const lines = ["Flags of `kapi serve` (kube-apiserver names and meanings):"];
  for (const { section, flags } of serveFlagSections()) {
    lines.push("", `${section} flags:`, "");
    for (const f of flags) {
      const def = f.default === "" ? "" : ` (default ${JSON.stringify(f.default)})`;
      lines.push(`  --${f.name} ${f.kind}${def}`, `      ${f.help}`);
    }
  }
  return lines.join("\n") + "\n";
}
