// Which @kubernetes/client-node the client-facing tests import. Users run 1.x (node-fetch, any
// Node from 20) and 2.x (undici 8, which does not even load before Node 22: it needs zlib's
// zstd), so the same test files run against both: vitest.config.ts aliases the import to the
// chosen package. 2.x is installed as the aliased devDependency "client-node-2".
export type ClientNodeMajor = 1 | 2;

/** The package each major is installed as. */
export const clientNodePackage: Record<ClientNodeMajor, string> = { 1: "@kubernetes/client-node", 2: "client-node-2" };

/** 2.x's floor (undici 8's engines field). */
export const clientNode2MinNode = "22.19.0";

/**
 * CLIENT_NODE=1|2 chooses; unset, the newest the running Node can load. Asking for 2 on an older
 * Node is refused here, at configuration time, rather than surfacing as undici's load error in
 * every test file.
 */
export function chooseClientNode(env: string | undefined, nodeVersion: string): ClientNodeMajor {
  const canRun2 = compareVersions(nodeVersion, clientNode2MinNode) >= 0;
  if (env === undefined || env === "") return canRun2 ? 2 : 1;
  if (env === "1") return 1;
  if (env === "2") {
    if (!canRun2) throw new Error(`CLIENT_NODE=2: @kubernetes/client-node 2.x needs Node >= ${clientNode2MinNode}; this is Node ${nodeVersion}`);
    return 2;
  }
  throw new Error(`CLIENT_NODE must be 1 or 2, not ${JSON.stringify(env)}`);
}

function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(".").map(Number);
  const pb = b.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
