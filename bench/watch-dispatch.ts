// `npx tsx bench/watch-dispatch.ts [--watchers N] [--events M] [--rounds R]`
// The watch cache's own share of a fan-out (issue 26), with no HTTP: N watchers of one namespace
// on a cache over memory storage, M creates; the sinks take each delivery and keep nothing. The
// figure is CPU per delivery for the cache's dispatch (index walk, revision and selector checks,
// the shared delivery per event), after the same creates with no watcher are subtracted.
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";
import { Cacher } from "../src/storage/cacher/cacher.js";
import type { WatchSink } from "../src/storage/cacher/cache-watcher.js";
import type { Delivery } from "../src/storage/cacher/types.js";
import type { KeyValue } from "../src/storage/interface.js";

type Obj = { name: string };
const prefix = "/registry/pods/";
const spec = { prefix, namespaced: true, decode: (kv: KeyValue) => ({ object: JSON.parse(kv.value) as Obj, labels: undefined, fieldsOf: () => ({}) }) };
const tick = () => new Promise((r) => setImmediate(r));

class Count implements WatchSink<Obj> {
  n = 0;
  send(_d: Delivery<Obj>): boolean {
    this.n++;
    return true;
  }
  closed(): void {}
}

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
const watchers = opt("--watchers", 1000);
const events = opt("--events", 2000);
const rounds = opt("--rounds", 5);

const storage = new MemoryStorage();
const cacher = new Cacher<Obj>(storage, {});
const cache = await cacher.get(spec);
const sinks = Array.from({ length: watchers }, () => new Count());
for (const s of sinks) cache.watch({ prefix: [prefix, "watched/"].join(""), namespace: ["watch", "ed"].join(""), name: "" }, s, { from: "revision", revision: cache.revision }, false);
let seq = 0;
/** CPU µs for `events` creates in namespace ns, each awaited and dispatched before the next. */
async function creates(ns: string): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < events; i++) {
    await storage.create(`${prefix}${ns}/p-${seq++}`, JSON.stringify({ name: `p-${seq}` }));
    await tick();
  }
  const c = process.cpuUsage(c0);
  return c.user + c.system;
}
await creates("plain");
await creates("watched");
let plain = 0;
let watched = 0;
const before = sinks.reduce((a, s) => a + s.n, 0);
for (let r = 0; r < rounds; r++) {
  plain += await creates("plain");
  watched += await creates("watched");
}
const delivered = sinks.reduce((a, s) => a + s.n, 0) - before;
process.stdout.write(`dispatch: ${watchers} watchers × ${events} events × ${rounds} rounds: ${((watched - plain) / delivered).toFixed(3)} µs per delivery (${delivered} delivered)\n`);
cacher.stop();
await storage.close();
