// A real etcd for tests: Debian's etcd-server started on free loopback ports in a temporary
// directory, waited on until it answers /health, stopped (and restartable on the same data) by
// its pid; or a cluster of several such members (static --initial-cluster), each stopped or
// killed by its own pid. Tests that need it skip, saying so, only when no etcd binary is installed.
// On a loaded machine shared by many test files: a port taken between being found free and etcd
// binding it is found again (the start is retried on new ports), a member that does not come up
// is killed and its data removed, and any member still running when the test process exits is
// killed with it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { get as httpGet } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const candidates = [process.env.KAPI_TEST_ETCD, "/usr/bin/etcd", "/usr/local/bin/etcd"].filter((p): p is string => !!p);

/** The etcd binary, or undefined when none is installed. */
export const etcdBinary: string | undefined =
  candidates.find((p) => existsSync(p)) ?? (spawnSync("sh", ["-c", "command -v etcd"], { encoding: "utf8" }).stdout.trim() || undefined);

/** Why etcd tests are skipped (printed by the skipping test), or undefined when they run. */
export const etcdSkipReason = etcdBinary ? undefined : "no etcd binary installed (Debian package etcd-server; .ci/run installs it)";

export interface EtcdTlsFiles {
  certFile: string;
  keyFile: string;
  /** CA that signs client certificates (--trusted-ca-file, with --client-cert-auth). */
  trustedCaFile: string;
  /** A client certificate and key for the health probe. */
  clientCertFile: string;
  clientKeyFile: string;
}

export interface EtcdProcess {
  /** The client URL (http:// or https://127.0.0.1:port). */
  url: string;
  dataDir: string;
  pid(): number;
  /** Resolves when the running process exits (at once when none runs). */
  exited(): Promise<void>;
  /**
   * SIGSTOP / SIGCONT: etcd stops answering without closing connections. Resolves once every
   * thread of it is stopped: the signal stops a thread only when it next leaves the kernel, and a
   * request sent before that may still be answered.
   */
  pause(): Promise<void>;
  resume(): void;
  /** Stop it (SIGTERM, then SIGKILL) and wait for it to exit; the data stays. */
  stop(): Promise<void>;
  /** Start again on the same ports and data. */
  restart(): Promise<void>;
  /** Stop and remove the data. */
  cleanup(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface EtcdCluster {
  members: EtcdProcess[];
  /** Every member's client URL, comma separated (an --etcd-servers value). */
  servers: string;
  /** kill -9 of a member (its data stays; restart() brings it back). */
  kill(member: EtcdProcess): Promise<void>;
  /** The member the others follow, by etcd's Maintenance Status (undefined while there is none). */
  leader(): Promise<EtcdProcess | undefined>;
  /** Stop every member and remove their data. */
  cleanup(): Promise<void>;
}

interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  initialCluster: string;
  clusterToken: string;
}

/** How long a member may take to answer /health (a cluster's: to elect its first leader). */
const healthyWithinMs = 30_000;
/** Starts on ports found taken again are tried anew this many times. */
const portAttempts = 3;

/** Runs `start` again (on new ports) when etcd could not bind a port found free a moment before. */
async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= portAttempts || !/address already in use/.test((e as Error).message)) throw e;
    }
  }
}

export async function startEtcd(opts: { tls?: EtcdTlsFiles; extraArgs?: string[] } = {}): Promise<EtcdProcess> {
  return onFreePorts(async () => {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const name = "kapi-test";
    return startMember({ name, clientPort, peerPort, initialCluster: `${name}=http://127.0.0.1:${peerPort}`, clusterToken: "etcd-cluster" }, opts);
  });
}

/** `size` members on loopback forming one cluster; resolves once every member answers /health. */
export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  const members = await onFreePorts(async () => {
    const specs: MemberSpec[] = [];
    const clusterToken = `kapi-${process.pid}-${Date.now()}`;
    for (let i = 0; i < size; i++) specs.push({ name: `m${i}`, clientPort: await freePort(), peerPort: await freePort(), initialCluster: "", clusterToken });
    const initialCluster = specs.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(",");
    // Started together: each member's /health answers only once the cluster has a leader.
    const started = await Promise.allSettled(specs.map((m) => startMember({ ...m, initialCluster })));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
    const up = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    if (failed) {
      await Promise.all(up.map((m) => m.cleanup()));
      throw failed.reason;
    }
    return up;
  });
  return {
    members,
    servers: members.map((m) => m.url).join(","),
    async kill(member) {
      const exited = member.exited();
      process.kill(member.pid(), "SIGKILL");
      await exited;
    },
    async leader() {
      const { EtcdClient } = await import("../../src/storage/etcd3/client.js");
      for (const m of members) {
        const client = new EtcdClient({ endpoints: [m.url], callTimeoutMs: 2000 });
        try {
          const s = await client.status();
          if (s.leader && s.leader === s.header.member_id) return m;
        } catch {
          // Gone or not answering: not the leader.
        } finally {
          client.close();
        }
      }
      return undefined;
    },
    cleanup: async () => void (await Promise.all(members.map((m) => m.cleanup()))),
  };
}

async function startMember(m: MemberSpec, opts: { tls?: EtcdTlsFiles; extraArgs?: string[] } = {}): Promise<EtcdProcess> {
  if (!etcdBinary) throw new Error(etcdSkipReason);
  const dataDir = mkdtempSync(join(tmpdir(), "kapi-etcd-"));
  const scheme = opts.tls ? "https" : "http";
  const url = `${scheme}://127.0.0.1:${m.clientPort}`;
  const peer = `http://127.0.0.1:${m.peerPort}`;
  const args = [
    `--name=${m.name}`,
    `--data-dir=${join(dataDir, "data")}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${m.initialCluster}`,
    `--initial-cluster-token=${m.clusterToken}`,
    "--log-level=error",
    ...(opts.tls
      ? [`--cert-file=${opts.tls.certFile}`, `--key-file=${opts.tls.keyFile}`, `--trusted-ca-file=${opts.tls.trustedCaFile}`, "--client-cert-auth"]
      : []),
    ...(opts.extraArgs ?? []),
  ];
  let child: ChildProcess | undefined;
  let output = "";
  const launch = async () => {
    output = "";
    const c = (child = spawn(etcdBinary!, args, { stdio: ["ignore", "pipe", "pipe"] }));
    live.add(c);
    c.once("exit", () => live.delete(c));
    c.stdout!.on("data", (d) => (output += d));
    c.stderr!.on("data", (d) => (output += d));
    await waitHealthy(url, opts.tls, () => (running(c) ? undefined : output)).catch((e: Error) => {
      throw new Error(`${e.message}; its output: ${output.slice(-2000)}`);
    });
  };
  const running = (c: ChildProcess | undefined): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null;
  const exited = () => {
    const c = child;
    return running(c) ? new Promise<void>((r) => c.once("exit", () => r())) : Promise.resolve();
  };
  const stop = async () => {
    const c = child;
    if (!running(c)) return;
    const gone = exited();
    c.kill("SIGCONT");
    c.kill("SIGTERM");
    const t = setTimeout(() => c.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(t);
  };
  // The data goes with it: no need to let it shut down in order (a cluster's members stopping
  // together wait seconds on each other to hand over leadership).
  const cleanup = async () => {
    const c = child;
    if (running(c)) {
      const gone = exited();
      c.kill("SIGKILL");
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (e) {
    await cleanup();
    throw e;
  }
  return {
    url,
    dataDir,
    pid: () => child!.pid!,
    exited,
    pause: async () => {
      child!.kill("SIGSTOP");
      await allThreadsStopped(child!.pid!);
    },
    resume: () => child!.kill("SIGCONT"),
    stop,
    restart: launch,
    cleanup,
  };
}

/** Members still running; killed when the test process exits, however it exits. */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

async function waitHealthy(url: string, tls: EtcdTlsFiles | undefined, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + healthyWithinMs;
  for (;;) {
    const out = exited();
    if (out !== undefined) throw new Error(`etcd exited during start-up: ${out}`);
    const ok = await new Promise<boolean>((resolve) => {
      const onRes = (res: import("node:http").IncomingMessage) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve(res.statusCode === 200 && body.includes('"true"')));
      };
      const req = tls
        ? httpsGet(`${url}/health`, { ca: readFileSync(tls.trustedCaFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) }, onRes)
        : httpGet(`${url}/health`, onRes);
      req.on("error", () => resolve(false));
      req.setTimeout(1000, () => req.destroy());
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`etcd at ${url} not healthy within ${healthyWithinMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Until /proc shows every thread of `pid` stopped (state T), for at most 5 s. */
async function allThreadsStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    let stopped = true;
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        // The state follows the command name, which is in parentheses and may hold spaces.
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
        if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "T") stopped = false;
      }
    } catch {
      return; // no /proc, or the process is gone: nothing more to wait for
    }
    if (stopped) return;
    if (Date.now() > deadline) throw new Error(`etcd ${pid}: not stopped 5 s after SIGSTOP`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
