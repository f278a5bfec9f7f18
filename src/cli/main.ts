#!/usr/bin/env node
// `kapi serve [flags]`: run the server until SIGTERM/SIGINT, then shut down gracefully.
// `kapi cel eval …`: evaluate a CEL rule without a cluster (src/cli/cel.ts).
import { startApiServer } from "../server/start.js";
import { helpText, parseServeFlags } from "./flags.js";
import { runCel } from "./cel.js";
import { exposureOf, exposureWarnings } from "./exposure-warning.js";
import { goQuote } from "../apimachinery/go-quote.js";

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === "--help" || cmd === "-h" || cmd === "help" || rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(helpText());
    return cmd === undefined ? 1 : 0;
  }
  if (cmd === "cel") return runCel(rest, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
  if (cmd !== "serve") {
    process.stderr.write(`kapi: unknown command ${goQuote(cmd)}\n\n${helpText()}`);
    return 1;
  }
  let options;
  try {
    options = parseServeFlags(rest);
  } catch (e) {
    process.stderr.write(`kapi: ${(e as Error).message}\nRun 'kapi --help' for the list of flags.\n`);
    return 2;
  }
  options.log = (m) => process.stderr.write(m + "\n");
  const exposure = exposureOf(options);
  for (const w of exposure ? exposureWarnings(exposure) : []) process.stderr.write(`kapi: warning: ${w}\n`);
  let server;
  try {
    server = await startApiServer(options);
  } catch (e) {
    process.stderr.write(`kapi: ${(e as Error).message}\n`);
    return 1;
  }
  let signalled = false;
  const shutdown = (sig: string) => {
    if (signalled) process.exit(1); // second signal: stop now
    signalled = true;
    process.stderr.write(`kapi: ${sig} received, shutting down\n`);
    server.stop().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`kapi: shutdown failed: ${e}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  return new Promise<number>(() => undefined);
}

main(process.argv.slice(2)).then((code) => process.exit(code));
