// `kapi testenv [--control-port N] [serve flags]`: a server for a test suite in another language.
// It starts a server (memory store, loopback, a free port, unless the flags say otherwise) with the
// call journal and fault injection on, and the control endpoint beside it; prints what a suite
// needs, one KEY=value line each, and stays in the foreground until SIGINT or SIGTERM.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApiServer } from "../server/start.js";
import { startControlEndpoint } from "../testing/control-endpoint.js";
import { TestHarness } from "../testing/harness.js";
import { readSnapshotFile } from "../testing/snapshot-format.js";
import { startTestKit, type TestKit } from "../testing/test-kit.js";
import { chooseStorage } from "./envtest/storage-choice.js";
import { parseServeFlags, type ServeFlags } from "./flags.js";

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** testenv's own flags, taken out before the rest are read as `kapi serve`'s. */
export function splitTestenvFlags(args: string[]): { controlPort: number; serveArgs: string[] } {
  let controlPort = 0;
  const serveArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--control-port(?:=(.*))?$/.exec(a);
    if (!m) {
      serveArgs.push(a);
      continue;
    }
    const v = m[1] ?? args[++i];
    const n = Number(v);
    if (v === undefined || v === "" || !Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--control-port: must be a port number from 0 to 65535, got ${JSON.stringify(v ?? "")}`);
    controlPort = n;
  }
  return { controlPort, serveArgs };
}

/** The server's options: `kapi serve`'s flags with testenv's defaults (memory, loopback, a free port, a temp data dir). */
export function testenvOptions(args: string[]): { options: ServeFlags; controlPort: number; tempDir?: string } {
  const { controlPort, serveArgs } = splitTestenvFlags(args);
  const given = (flag: string) => serveArgs.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  const options = parseServeFlags([
    ...(given("storage-backend") ? [] : ["--storage-backend=memory"]),
    ...(given("bind-address") ? [] : ["--bind-address=127.0.0.1"]),
    ...(given("secure-port") ? [] : ["--secure-port=0"]),
    ...serveArgs,
  ]);
  const tempDir = given("data-dir") ? undefined : mkdtempSync(join(tmpdir(), "kapi-testenv-"));
  if (tempDir) options.dataDir = tempDir;
  options.writeKubeconfig = true;
  return { options, controlPort, ...(tempDir ? { tempDir } : {}) };
}

export async function runTestenv(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = testenvOptions(args);
  } catch (e) {
    io.err(`kapi testenv: ${(e as Error).message}\nRun 'kapi --help' for the list of flags.\n`);
    return 2;
  }
  const { options, tempDir } = parsed;
  options.log = (m) => io.err(m + "\n");
  const harness = new TestHarness();
  let server;
  let control;
  try {
    // The flags name the backend; this makes it the server's (memory unless they say otherwise).
    await chooseStorage(options);
    const snapshot = options.load ? readSnapshotFile(options.load) : undefined;
    let kit: TestKit | undefined;
    server = await startApiServer({
      ...options,
      harness: harness.filters(),
      async whenStarted(running) {
        harness.attach(running);
        kit = await startTestKit(running, snapshot ? { snapshot } : {});
      },
    });
    control = await startControlEndpoint({ harness, controls: kit!, port: parsed.controlPort });
  } catch (e) {
    await server?.stop();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    io.err(`kapi testenv: ${(e as Error).message}\n`);
    return 1;
  }
  io.out(`KUBECONFIG=${server.kubeconfigPath}\nKAPI_URL=${server.url}\nKAPI_CONTROL_URL=${control.url}\nKAPI_CONTROL_TOKEN=${control.token}\n`);
  const running = server;
  const endpoint = control;
  return new Promise<number>((resolve) => {
    let signalled = false;
    const shutdown = (sig: string) => {
      if (signalled) return resolve(1); // second signal: stop now
      signalled = true;
      io.err(`kapi testenv: ${sig} received, shutting down\n`);
      Promise.all([endpoint.close(), running.stop()]).then(
        () => {
          if (tempDir) rmSync(tempDir, { recursive: true, force: true });
          resolve(0);
        },
        (e: unknown) => {
          io.err(`kapi testenv: shutdown failed: ${e}\n`);
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
  });
}
