// What a process allocates, by the function that allocates it: V8's sampling heap profiler over a
// window, with the objects collected since counted too (a request's garbage is what a request
// costs the young generation), reported as bytes per operation. Used by request-path-cost.ts.
import { Session } from "node:inspector/promises";

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Starts sampling (one sample per 512 bytes on average); stop() returns the profile's root. */
export async function startAllocationSampling(): Promise<{ stop(): Promise<SamplingNode> }> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return {
    async stop() {
      const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: { head: SamplingNode } };
      session.disconnect();
      return profile.head;
    },
  };
}

const siteOf = (n: SamplingNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || "(anonymous)"} ${url.replace(/^.*\/(dist|src|node_modules)\//, "$1/")}:${lineNumber + 1}`;
};

/** Bytes per operation by allocating function (self), the `top` largest, and the total. */
export function allocationReport(root: SamplingNode, operations: number, top: number): string {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (n: SamplingNode) => {
    if (n.selfSize > 0) bySite.set(siteOf(n), (bySite.get(siteOf(n)) ?? 0) + n.selfSize);
    total += n.selfSize;
    n.children.forEach(walk);
  };
  walk(root);
  const rows = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top);
  const per = (bytes: number) => (bytes / operations).toFixed(0).padStart(7);
  return [`allocated ${per(total)} bytes per operation (sampled, ${operations} operations); by allocating function:`, ...rows.map(([site, bytes]) => `${per(bytes)}  ${site}`), ""].join("\n");
}
