// `kapi serve [flags]`: run the server until SIGTERM/SIGINT, then shut down gracefully.
import { startApiServer } from "../server/start.js";
import { preparedBootstrapFile } from "../server/prepared-bootstrap.js";
import { runningBuild } from "./code-cache.js";
import { parseServeFlags, type ServeFlags } from "./flags.js";
import { exposureOf, exposureWarnings } from "./exposure-warning.js";
import { chooseStorage } from "./envtest/storage-choice.js";
import { kapiVersion } from "../observability/version.js";
import { readSnapshotFile } from "../testing/snapshot-format.js";
import { restoreSnapshot } from "../testing/restore.js";

export async function runServe(args: string[]): Promise<number> {
  let options: ServeFlags;
  try {
    options = parseServeFlags(args);
  } catch (e) {
    process.stderr.write(`kapi: ${(e as Error).message}\nRun 'kapi --help' for the list of flags.\n`);
    return 2;
  }
  options.log = (m) => process.stderr.write(m + "\n");
  const exposure = exposureOf(options);
  for (const w of exposure ? exposureWarnings(exposure) : []) process.stderr.write(`kapi: warning: ${w}\n`);
  let server;
  try {
    await chooseStorage(options);
    // Read and checked before anything starts: a bad file refuses the start.
    const load = options.load;
    const snapshot = load ? readSnapshotFile(load) : undefined;
    server = await startApiServer({
      ...options,
      preparedBootstrap: preparedBootstrapFile(options, runningBuild()),
      ...(snapshot && {
        async whenStarted(s) {
          const { writes } = await restoreSnapshot({ storage: s.storage, types: s.parts.types, kapiVersion: kapiVersion() }, snapshot);
          options.log(`kapi: loaded ${load} (${snapshot.objects.length} objects, ${writes} writes)`);
        },
      }),
    });
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
