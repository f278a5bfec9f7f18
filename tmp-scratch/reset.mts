import { startServer } from "../src/index.js";
const s = await startServer();
const kc = s.kubeconfig;
for (let i = 0; i < 8; i++) {
  // write 4 objects via the storage-level? use restore of a modified snapshot instead: simulate via API
  const snap = await s.snapshot();
  const extra = structuredClone(snap);
  extra.objects.push({ key: `/registry/configmaps/default/x${i}`, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `x${i}`, namespace: "default", uid: "u" + i } } });
  await s.restore(extra);
  let t = performance.now();
  await s.reset();
  console.log("reset", (performance.now() - t).toFixed(2));
}
const t = performance.now(); const snap = await s.snapshot(); console.log("snapshot", (performance.now() - t).toFixed(2));
await s.stop();
