// kube-apiserver-style flags: `--name=value` or `--name value`, booleans as `--name` or
// `--name=false`. An unknown flag is an error that names it. The flags are declared where their
// capability is: the generic ones by the server's core (server/core-flags.ts), the others by the
// feature module that owns them (FeatureModule.flags); --help lists them in those sections.
import { goQuote } from "../apimachinery/go-quote.js";
import { coreFlags } from "../server/core-flags.js";
import type { FlagSpec } from "../server/flag-spec.js";
import { flagsOf } from "../server/features/feature-module.js";
import { serverFeatures } from "../server/features/index.js";
import { defaultOptions, type ServerOptions } from "../server/options.js";

/** Every flag of `kapi serve`, in sections: the generic flags, then each feature module's. */
export function serveFlagSections(): { section: string; flags: readonly FlagSpec[] }[] {
  return flagsOf(coreFlags, serverFeatures());
}

export function parseServeFlags(args: string[]): ServerOptions {
  const specs = new Map(serveFlagSections().flatMap((s) => s.flags.map((f) => [f.name, f] as const)));
  const o = defaultOptions();
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
  const lines = ["kapi — a Kubernetes-compatible API server", "", "Usage:", "  kapi serve [flags]", "  kapi --help", "", "Flags of `kapi serve` (kube-apiserver names and meanings):"];
  for (const { section, flags } of serveFlagSections()) {
    lines.push("", `${section} flags:`, "");
    for (const f of flags) {
      const def = f.default === "" ? "" : ` (default ${JSON.stringify(f.default)})`;
      lines.push(`  --${f.name} ${f.kind}${def}`, `      ${f.help}`);
    }
  }
  return lines.join("\n") + "\n";
}
