// The pod subresources that stream from a kubelet (log, exec, attach, portforward), where upstream
// answers before reaching one — the pod or its node does not exist, the container is ambiguous or
// unknown, no scheduler has placed the pod, the node has no address — kapi answers the same, so
// kubectl shows what it shows against kube-apiserver. Reaching a kubelet: pod-connect-kubelet.test.ts.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33);
let s: TestServer;
let kubeconfig: string;
const pods = "/api/v1/namespaces/conn/pods";

async function pod(name: string, containers: string[], nodeName?: string): Promise<void> {
  const spec = { containers: containers.map((c) => ({ name: c, image: "busybox" })), ...(nodeName ? { nodeName } : {}) };
  expect((await req(s, "POST", pods, { body: { metadata: { name }, spec } })).status).toBe(201);
}

beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  kubeconfig = join(mkdtempSync(join(tmpdir(), "kapi-pod-connect-")), "kubeconfig");
  writeFileSync(kubeconfig, s.kubeconfig);
  await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "conn" } } });
  await pod("pending", ["app"]);
  await pod("two", ["app", "sidecar"]);
  await pod("placed", ["app"], "no-such-node");
});
afterAll(async () => {
  await s?.stop();
});

describe("pods/log", () => {
  it("of a pod no scheduler has placed is empty: 204, and kubectl logs prints nothing", async () => {
    const r = await req(s, "GET", `${pods}/pending/log`);
    expect(r.status).toBe(204);
    expect(r.body.length).toBe(0);
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["logs", "-n", "conn", "pending"]);
      expect(k.stderr).toBe("");
      expect(k.code).toBe(0);
      expect(k.stdout).toBe("");
    }
  });

  it("checks the options and the container before looking for the node", async () => {
    const tail = await req(s, "GET", `${pods}/pending/log?tailLines=-1&limitBytes=0`);
    expect(tail.status).toBe(422);
    expect(tail.json).toMatchObject({
      reason: "Invalid",
      message: 'PodLogOptions "pending" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
      details: { name: "pending", kind: "PodLogOptions" },
    });
    const since = await req(s, "GET", `${pods}/pending/log?sinceSeconds=10&sinceTime=2026-01-01T00:00:00Z`);
    expect(since.json.message).toBe('PodLogOptions "pending" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
    const notInt = await req(s, "GET", `${pods}/pending/log?tailLines=ten`);
    expect(notInt.status).toBe(400);
    expect(notInt.json.message).toBe('strconv.ParseInt: parsing "ten": invalid syntax');

    const ambiguous = await req(s, "GET", `${pods}/two/log`);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json).toMatchObject({ reason: "BadRequest", message: "a container name must be specified for pod two, choose one of: [app sidecar]" });
    const unknown = await req(s, "GET", `${pods}/two/log?container=web`);
    expect(unknown.json).toMatchObject({ code: 400, message: "container web is not valid for pod two" });
    expect((await req(s, "GET", `${pods}/two/log?container=sidecar`)).status).toBe(204);
  });

  it("of a missing pod, or a pod on a missing node, is upstream's 404", async () => {
    const missing = await req(s, "GET", `${pods}/nope/log`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ reason: "NotFound", message: 'pods "nope" not found' });
    const noNode = await req(s, "GET", `${pods}/placed/log`);
    expect(noNode.status).toBe(404);
    expect(noNode.json).toMatchObject({ reason: "NotFound", message: 'nodes "no-such-node" not found' });
  });

  it("of a pod on a node with no address to dial is upstream's reasonless 500", async () => {
    expect((await req(s, "POST", "/api/v1/nodes", { body: { metadata: { name: "node-1" } } })).status).toBe(201);
    await pod("running", ["app"], "node-1");
    for (const path of ["log", "exec?command=ls"]) {
      const r = await req(s, path === "log" ? "GET" : "POST", `${pods}/running/${path}`);
      expect(r.status).toBe(500);
      expect(r.json.reason).toBeUndefined();
      expect(r.json.message).toBe("no preferred addresses found; known addresses: []");
    }
  });
});

describe("pods/exec, attach, portforward", () => {
  it("of a pod with no node is upstream's 400, which kubectl exec shows as the server's error", async () => {
    for (const method of ["GET", "POST"]) {
      const r = await req(s, method, `${pods}/pending/exec?command=ls&stdout=true`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: "Status", reason: "BadRequest", message: "pod pending does not have a host assigned" });
    }
    expect((await req(s, "POST", `${pods}/pending/attach?stdout=true`)).json.message).toBe("pod pending does not have a host assigned");
    expect((await req(s, "POST", `${pods}/pending/portforward?ports=80`)).json.message).toBe("pod pending does not have a host assigned");
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["exec", "-n", "conn", "pending", "--", "ls"]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain("Error from server (BadRequest): pod pending does not have a host assigned");
    }
  });

  it("refuses dryRun and checks the container first, as upstream's connect handler", async () => {
    const dry = await req(s, "POST", `${pods}/pending/exec?command=ls&dryRun=All`);
    expect(dry.json).toMatchObject({ code: 400, reason: "BadRequest", message: "dryRun is not supported" });
    const ambiguous = await req(s, "POST", `${pods}/two/exec?command=ls`);
    expect(ambiguous.json.message).toBe("a container name must be specified for pod two, choose one of: [app sidecar]");
    expect((await req(s, "POST", `${pods}/nope/exec?command=ls`)).json.message).toBe('pods "nope" not found');
  });
});
