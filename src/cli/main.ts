#!/usr/bin/env node
// kapi's command line: one entry per command (`kapi --help` lists them); each command's module
// is loaded only when it runs, so `kapi cel` or `kapi --version` do not load the server.
import { helpText } from "./flags.js";
import { goQuote } from "../apimachinery/go-quote.js";
import { kapiVersion, kubernetesVersion } from "../observability/version.js";

const io = { out: (t: string) => void process.stdout.write(t), err: (t: string) => void process.stderr.write(t) };

interface Command {
  name: string;
  summary: string;
  /** Listed by `kapi --help` (the etcd stand-in is reached through envtest-assets' scripts). */
  listed: boolean;
  run(args: string[]): Promise<number>;
}

const commands: Command[] = [
  { name: "serve", summary: "run the API server (kube-apiserver's flags; listed below)", listed: true, run: async (a) => (await import("./serve.js")).runServe(a) },
  { name: "cel", summary: "evaluate or type-check a CEL rule as a CRD validation rule sees it ('kapi cel --help')", listed: true, run: async (a) => (await import("./cel.js")).runCel(a, io) },
  { name: "validate", summary: "check manifests offline through the server's own pipeline ('kapi validate --help')", listed: true, run: async (a) => (await import("./validate/command.js")).runValidate(a, io) },
  { name: "testenv", summary: "a server for tests (memory, loopback) with its control endpoint; prints KUBECONFIG, KAPI_URL, KAPI_CONTROL_URL, KAPI_CONTROL_TOKEN", listed: true, run: async (a) => (await import("./testenv.js")).runTestenv(a, io) },
  { name: "envtest-assets", summary: "write kube-apiserver, etcd and kubectl for controller-runtime's envtest (KUBEBUILDER_ASSETS)", listed: true, run: async (a) => (await import("./envtest/assets.js")).runEnvtestAssets(a, io) },
  { name: "envtest-etcd", summary: "kapi's etcd stand-in that envtest-assets' etcd runs", listed: false, run: async (a) => (await import("./envtest/etcd-standin.js")).runStandIn(a, io.err) },
];

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = [
    `kapi ${kapiVersion()} — a Kubernetes-compatible API server (serves Kubernetes ${kubernetesVersion})`,
    "",
    "Usage:",
    "  kapi <command> [flags]",
    "  kapi --version",
    "  kapi --help",
    "",
    "Commands:",
    ...commands.filter((c) => c.listed).map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
  ];
  return lines.join("\n") + "\n" + helpText();
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "--version" || cmd === "version") {
    io.out(`kapi ${kapiVersion()}\nKubernetes ${kubernetesVersion}\n`);
    return 0;
  }
  if (cmd === undefined || cmd === "--help" || cmd === "-h" || cmd === "help") {
    io.out(usage());
    return cmd === undefined ? 1 : 0;
  }
  const command = commands.find((c) => c.name === cmd);
  if (!command) {
    io.err(`kapi: unknown command ${goQuote(cmd)}\n\n${usage()}`);
    return 1;
  }
  // `kube-apiserver --help` (envtest's flag discovery runs it) prints the flags, exit 0.
  if (command.name === "serve" && (rest.includes("--help") || rest.includes("-h"))) {
    io.out(usage());
    return 0;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then((code) => process.exit(code));
