// A real informer (@kubernetes/client-node makeInformer) sees every create, update and delete of
// 200 objects exactly once and in order, across forced drops of every watch stream.
import { afterAll, beforeAll, expect, it } from "vitest";
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from "@kubernetes/client-node";
import { req } from "./support/client.js";
import { cm, mkns, startTuned, type PartsServer } from "./support/list-watch.js";
import { Heard } from "./support/heard.js";

let s: PartsServer;
beforeAll(async () => {
  s = await startTuned();
  await mkns(s, "inf");
});
afterAll(async () => {
  await s?.stop();
});

const dropAllWatches = () => {
  for (const st of [...s.parts.streams]) st.stop();
};

it("an informer misses and repeats nothing across forced watch restarts", async () => {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, "/api/v1/namespaces/inf/configmaps", () => api.listNamespacedConfigMap({ namespace: "inf" }));
  const log = new Map<string, string[]>();
  const seenRVs = new Set<string>();
  // Every event the informer hands over, heard as it comes (the informer runs in this process).
  const heard = new Heard<string>();
  let connects = 0;
  let errors = 0;
  const record = (verb: string) => (o: V1ConfigMap) => {
    const name = o.metadata!.name!;
    if (!log.has(name)) log.set(name, []);
    log.get(name)!.push(verb);
    seenRVs.add(`${verb}/${o.metadata!.resourceVersion}`);
    heard.push(`${verb} ${name}`);
  };
  informer.on("add", record("add"));
  informer.on("update", record("update"));
  informer.on("delete", record("delete"));
  informer.on("connect", () => connects++);
  informer.on("error", () => errors++);
  await informer.start();

  const n = 200;
  const names = Array.from({ length: n }, (_, i) => `o${String(i).padStart(3, "0")}`);
  const inBatches = async (fn: (name: string) => Promise<unknown>) => {
    for (let i = 0; i < n; i += 20) {
      await Promise.all(names.slice(i, i + 20).map(fn));
      if (i === 100) dropAllWatches(); // mid-phase: the informer re-watches from its last version
    }
  };
  await inBatches((name) => req(s, "POST", "/api/v1/namespaces/inf/configmaps", { body: cm(name) }));
  await inBatches((name) => req(s, "PATCH", `/api/v1/namespaces/inf/configmaps/${name}`, { body: { data: { k: "2" } }, headers: { "content-type": "application/merge-patch+json" } }));
  await inBatches((name) => req(s, "DELETE", `/api/v1/namespaces/inf/configmaps/${name}`));

  const waitForTotal = (want: number) => heard.until(`${want} events`, (evs) => evs.length >= want, 20_000);
  await waitForTotal(3 * n);
  // A sentinel written last arrives after anything repeated late: once it is seen, the count is final.
  await req(s, "POST", "/api/v1/namespaces/inf/configmaps", { body: cm("sentinel") });
  await waitForTotal(3 * n + 1);
  const errorsBeforeStop = errors; // stop() itself aborts the open watch and reports that
  await informer.stop();

  expect(errorsBeforeStop).toBe(0);
  expect(connects).toBeGreaterThanOrEqual(4); // start + three forced restarts
  expect(log.get("sentinel")).toEqual(["add"]);
  expect(heard.items.length).toBe(3 * n + 1);
  expect(seenRVs.size).toBe(3 * n + 1);
  for (const name of names) expect(log.get(name)).toEqual(["add", "update", "delete"]);
}, 60_000);
