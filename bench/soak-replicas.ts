// The replica soak (not part of `npm test`): `npx tsx bench/soak-replicas.ts [--minutes 10]
// [--replicas 3] [--concurrency 64] [--kill-every 60] [--names-per-worker 8] [--out FILE.json] [--dump FILE.json]`.
//
// Several `kapi serve` replicas on one etcd; closed-loop writers (the create benchmarks'
// concurrency by default) spread over the replicas create, update and delete ConfigMaps with
// resourceVersion preconditions; one informer per replica lists and watches, resuming from its
// last resourceVersion whenever its replica goes away; every --kill-every seconds one replica (in
// turn) gets SIGKILL and is started again at once on the same port. At the end, against etcd's own
// history of the namespace (an etcd watch the soak holds for the whole run): no acknowledged write
// missing, and per informer no event lost, duplicated or out of order, and the same final objects;
// a consistent LIST through every replica gives etcd's final objects too. Exit code 0 when all holds.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEtcd } from "../test/support/etcd.js";
import { defaultOptions } from "./core/context.js";
import { stats } from "./core/stats.js";
import { describeMachine, machineLine } from "./report/machine.js";
import { ReplicaApi } from "./soak/api.js";
import { finalState, verdict } from "./soak/check.js";
import { EtcdHistory } from "./soak/history.js";
import { Informer } from "./soak/informer.js";
import { Replica, stablePort } from "./soak/replica.js";
import { Writers } from "./soak/writer.js";

interface Options {
  minutes: number;
  replicas: number;
  concurrency: number;
  killEverySec: number;
  namesPerWorker: number;
  out: string | undefined;
  /** Every event etcd recorded, every acknowledged write and every informer's events, to look into a failure. */
  dump: string | undefined;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { minutes: 10, replicas: 3, concurrency: defaultOptions.connections, killEverySec: 60, namesPerWorker: 8, out: undefined, dump: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2);
    const value = () => inline ?? argv[++i]!;
    const num = (min: number) => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < min) throw new Error(`${flag}: want a number ≥ ${min}`);
      return n;
    };
    if (flag === "--minutes") o.minutes = num(0.1);
    else if (flag === "--replicas") o.replicas = Math.round(num(2));
    else if (flag === "--concurrency") o.concurrency = Math.round(num(1));
    else if (flag === "--kill-every") o.killEverySec = num(1);
    else if (flag === "--names-per-worker") o.namesPerWorker = Math.round(num(1));
    else if (flag === "--out") o.out = value();
    else if (flag === "--dump") o.dump = value();
    else throw new Error(`unknown flag ${argv[i]} (see the comment at the top of bench/soak-replicas.ts)`);
  }
  return o;
}

const namespace = "soak";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = performance.now();
const log = (line: string) => process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

async function until(what: string, ms: number, probe: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const command = ["npx tsx bench/soak-replicas.ts", ...process.argv.slice(2)].join(" ");
  log(`${command}: ${o.replicas} replicas, ${o.concurrency} writers, SIGKILL every ${o.killEverySec} s, ${o.minutes} min`);
  const etcd = await startEtcd();
  const workDir = mkdtempSync(join(tmpdir(), "kapi-soak-"));
  const replicas: Replica[] = [];
  for (let i = 0; i < o.replicas; i++) {
    const dir = join(workDir, `replica-${i}`);
    replicas.push(new Replica(`replica-${i}`, await stablePort(), dir, ["--storage-backend=etcd3", `--etcd-servers=${etcd.url}`]));
  }
  const history = new EtcdHistory(etcd.url, `/registry/configmaps/${namespace}/`, (v) => {
    const seq = (JSON.parse(v) as { data?: { seq?: string } }).data?.seq;
    return seq === undefined ? undefined : Number(seq);
  });
  let informers: Informer[] = [];
  try {
    await Promise.all(replicas.map((r) => r.start()));
    log(`replicas serving: ${replicas.map((r) => r.url).join(", ")}`);
    const apis = replicas.map((r) => new ReplicaApi(r.url, r.creds()));
    await until(`namespace ${namespace}`, 30_000, async () => {
      const r = await apis[0]!.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }).catch(() => undefined);
      return r?.status === 201 || r?.status === 409;
    });
    await history.start();
    informers = replicas.map((r, i) => new Informer(`informer@${r.name}`, () => apis[i]!, `/api/v1/namespaces/${namespace}/configmaps`, log));
    await Promise.all(informers.map((inf) => inf.start()));

    const writers = new Writers(() => apis, namespace, o.concurrency, o.namesPerWorker);
    const writing = writers.run();
    const durationMs = o.minutes * 60_000;
    const writeStart = performance.now();
    const kills: { replica: string; atSec: number; restartMs: number }[] = [];
    for (let k = 1; k * o.killEverySec * 1000 < durationMs; k++) {
      await sleep(writeStart + k * o.killEverySec * 1000 - performance.now());
      const victim = replicas[(k - 1) % replicas.length]!;
      const at = performance.now();
      await victim.kill9();
      await victim.start();
      apis[replicas.indexOf(victim)]!.setCreds(victim.creds());
      kills.push({ replica: victim.name, atSec: (at - writeStart) / 1000, restartMs: performance.now() - at });
      log(`kill -9 ${victim.name} (pid gone), serving again after ${Math.round(performance.now() - at)} ms; acked writes so far ${writers.stats.acked}`);
    }
    await sleep(writeStart + durationMs - performance.now());
    writers.stop();
    await writing;
    const writeSec = (performance.now() - writeStart) / 1000;
    log(`writes stopped: ${writers.stats.acked} acknowledged of ${writers.stats.attempted} (${Math.round(writers.stats.acked / writeSec)}/s)`);

    // Every event etcd recorded reaches every informer (or the wait times out and the check says what is missing).
    await sleep(1000);
    const last = history.revision;
    await until("the informers to catch up", 60_000, () => informers.every((inf) => inf.lastRev >= last)).catch((e: Error) => log(e.message));
    const v = verdict(writers.acked, history.events, informers);
    const truth = finalState(history.events);
    // A consistent LIST through each replica: etcd's final objects (a failed LIST counts as one mismatch, said in the log).
    const listMismatches = await Promise.all(
      apis.map(async (api, i) => {
        const t = performance.now();
        try {
          const r = await api.request("GET", `/api/v1/namespaces/${namespace}/configmaps`);
          if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
          const listed = new Map<string, number>((r.body.items as any[]).map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
          let bad = 0;
          for (const name of new Set([...truth.keys(), ...listed.keys()])) if (truth.get(name) !== listed.get(name)) bad++;
          log(`LIST through ${replicas[i]!.name}: ${listed.size} objects in ${Math.round(performance.now() - t)} ms, ${bad} differ from etcd`);
          return bad;
        } catch (e) {
          log(`LIST through ${replicas[i]!.name} failed after ${Math.round(performance.now() - t)} ms: ${(e as Error).message}`);
          return 1;
        }
      }),
    );
    const ok = v.ok && !history.failure && listMismatches.every((n) => n === 0);
    const restarts = stats(kills.map((k) => k.restartMs));
    const report = {
      startedAt,
      command,
      machine: machineLine(describeMachine()),
      options: o,
      ok,
      writes: { ...writers.stats, perSec: writers.stats.acked / writeSec, seconds: writeSec },
      etcdEvents: history.events.length,
      historyFailure: history.failure,
      kills: { count: kills.length, restartMsMedian: kills.length ? restarts.median : 0, restartMsMax: kills.length ? restarts.max : 0, each: kills },
      missingAcked: v.missingAcked.slice(0, 20),
      missingAckedCount: v.missingAcked.length,
      informers: v.informers.map((iv, i) => ({ ...iv, relists: informers[i]!.relists, watches: informers[i]!.watches, failedAttempts: informers[i]!.failedAttempts })),
      finalListMismatches: listMismatches,
    };
    process.stdout.write(`\n${summary(report)}\n`);
    if (o.out) writeFileSync(o.out, JSON.stringify(report, null, 2));
    if (o.dump) writeFileSync(o.dump, JSON.stringify({ history: history.events, acked: writers.acked, informers: informers.map((i) => ({ name: i.name, listedAt: i.listedAt, events: i.events })), kills }));
    return ok ? 0 : 1;
  } finally {
    await Promise.allSettled(informers.map((i) => i.stop()));
    history.stop();
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await etcd.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
}

function summary(r: any): string {
  const lines = [
    `soak ${r.ok ? "PASSED" : "FAILED"} — ${r.command} (${r.startedAt})`,
    `machine: ${r.machine}`,
    `writes: ${r.writes.acked} acknowledged of ${r.writes.attempted} in ${r.writes.seconds.toFixed(0)} s (${r.writes.perSec.toFixed(0)}/s), ${r.writes.unanswered} unanswered (outcome unknown to the writer), refused ${JSON.stringify(r.writes.refused)}, ${r.writes.resyncs} reads to learn an unknown outcome; etcd recorded ${r.etcdEvents} events`,
    `kills: ${r.kills.count} × kill -9, back serving after ${Math.round(r.kills.restartMsMedian)} ms median (max ${Math.round(r.kills.restartMsMax)} ms)`,
    `acknowledged writes missing from etcd: ${r.missingAckedCount}${r.historyFailure ? ` (history watch: ${r.historyFailure})` : ""}`,
    ...r.informers.map(
      (i: any) =>
        `${i.name}: ${i.seen} events seen of ${i.expected} expected — lost ${i.lost}, duplicated ${i.duplicated}, reordered ${i.reordered}, unexpected ${i.unexpected}, final-state mismatches ${i.stateMismatches}; ${i.watches} watches (resumes), ${i.relists} relists${i.examples.length ? `; e.g. ${i.examples.join("; ")}` : ""}`,
    ),
    `consistent LIST per replica vs etcd: ${r.finalListMismatches.join(", ")} mismatches`,
  ];
  return lines.join("\n");
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`soak: ${(e as Error).stack ?? e}\n`);
    process.exit(2);
  },
);
