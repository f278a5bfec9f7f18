// pods/log, exec, attach and portforward reaching a kubelet: a kubelet double the test starts on
// loopback is the node's kubelet endpoint (status.addresses + daemonEndpoints.kubeletEndpoint),
// reached over TLS with --kubelet-client-certificate/-key and checked with
// --kubelet-certificate-authority, and real kubectl's `logs -f` and `exec` work through kapi.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createCA, createLeaf } from "../src/authn/certs.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startKubeletDouble, type KubeletDouble } from "./support/kubelet-double.js";

const kubectlBin = kubectlBinary(33);
let s: EmbeddedTestServer;
let kubelet: KubeletDouble;
let kubeconfig: string;
const ns = "kl";
const pods = `/api/v1/namespaces/${ns}/pods`;

async function node(name: string, address: string, port: number): Promise<void> {
  expect((await req(s, "POST", "/api/v1/nodes", { body: { metadata: { name } } })).status).toBe(201);
  const status = { addresses: [{ type: "InternalIP", address }], daemonEndpoints: { kubeletEndpoint: { Port: port } } };
  expect((await req(s, "PATCH", `/api/v1/nodes/${name}/status`, { body: { status }, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
}

async function pod(name: string, nodeName: string): Promise<void> {
  const body = { metadata: { name }, spec: { nodeName, containers: [{ name: "app", image: "busybox" }] } };
  expect((await req(s, "POST", pods, { body })).status).toBe(201);
  // kubectl port-forward asks for a running pod.
  const status = { status: { phase: "Running" } };
  expect((await req(s, "PATCH", `${pods}/${name}/status`, { body: status, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
}

beforeAll(async () => {
  kubelet = await startKubeletDouble();
  const dir = mkdtempSync(join(tmpdir(), "kapi-kubelet-"));
  const clientCA = await createCA("kubelet-client-ca");
  const client = await createLeaf(clientCA, { commonName: "kube-apiserver-kubelet-client", organizations: ["kubeadm:cluster-admins"], usage: "client" });
  writeFileSync(join(dir, "client.crt"), client.certPem);
  writeFileSync(join(dir, "client.key"), client.keyPem);
  writeFileSync(join(dir, "kubelet-ca.crt"), kubelet.ca);
  s = await startTestServer({
    storage: "memory",
    options: {
      authorizationMode: ["RBAC"],
      kubeletClientCertificate: join(dir, "client.crt"),
      kubeletClientKey: join(dir, "client.key"),
      kubeletCertificateAuthority: join(dir, "kubelet-ca.crt"),
    },
  });
  kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, s.kubeconfig);
  await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } });
  await node("node-1", "127.0.0.1", kubelet.port);
  await pod("web", "node-1");
});
afterAll(async () => {
  await s?.stop();
  await kubelet?.close();
});

const lastRequest = () => kubelet.requests[kubelet.requests.length - 1]!;

describe("pods/log", () => {
  it("reads the kubelet's containerLogs with kapi's client certificate, and kubectl logs prints them", async () => {
    kubelet.logLines = ["one", "two"];
    const r = await req(s, "GET", `${pods}/web/log?tailLines=5&timestamps=true`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/plain");
    expect(r.text).toBe("one\ntwo\n");
    expect(lastRequest()).toMatchObject({ method: "GET", url: `/containerLogs/${ns}/web/app?tailLines=5&timestamps=true`, clientCN: "kube-apiserver-kubelet-client" });
    expect(lastRequest().headers.authorization).toBeUndefined();
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["logs", "-n", ns, "web"]);
      expect(k).toMatchObject({ code: 0, stdout: "one\ntwo\n", stderr: "" });
    }
  });

  it("follows: each line reaches the client as the kubelet writes it, and kubectl logs -f ends when the log does", async () => {
    kubelet.logLines = ["start"];
    kubelet.followLines = ["a", "b", "c"];
    const firstChunk = await new Promise<{ chunk: string; at: number }>((resolve, reject) => {
      const r = httpsRequest(new URL(`${pods}/web/log?follow=true`, s.url), { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key }, (res) => {
        res.once("data", (c: Buffer) => {
          resolve({ chunk: c.toString(), at: Date.now() });
          r.destroy();
        });
      });
      r.on("error", reject);
      r.end();
    });
    // The first line arrived before the kubelet wrote the rest (it writes one each 100 ms).
    expect(firstChunk.chunk).toBe("start\n");
    expect(lastRequest().url).toBe(`/containerLogs/${ns}/web/app?follow=true`);
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["logs", "-f", "-n", ns, "web"]);
      expect(k).toMatchObject({ code: 0, stdout: "start\na\nb\nc\n" });
    }
  });
});

describe("pods/exec and attach", () => {
  it("kubectl exec runs through kapi to the kubelet over WebSocket (GET, v5.channel.k8s.io)", async () => {
    if (!kubectlBin) return;
    const k = await kubectl(kubectlBin, kubeconfig, ["exec", "-n", ns, "web", "--", "echo", "hello", "world"]);
    expect(k).toMatchObject({ code: 0, stdout: "hello world\n" });
    const sent = lastRequest();
    expect(sent.method).toBe("GET");
    expect(sent.url).toBe(`/exec/${ns}/web/app?command=echo&command=hello&command=world&error=1&output=1`);
    expect(sent.headers.upgrade).toBe("websocket");
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("carries stdin and the command's exit code", async () => {
    if (!kubectlBin) return;
    const cat = await kubectl(kubectlBin, kubeconfig, ["exec", "-i", "-n", ns, "web", "--", "cat"], "typed in\n");
    expect(cat).toMatchObject({ code: 0, stdout: "typed in\n" });
    expect(lastRequest().url).toBe(`/exec/${ns}/web/app?command=cat&error=1&input=1&output=1`);
    const failed = await kubectl(kubectlBin, kubeconfig, ["exec", "-n", ns, "web", "--", "false"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("command terminated with exit code 1");
  });

  it("a plain request where only an upgrade may go is upstream's 400", async () => {
    const r = await req(s, "POST", `${pods}/web/exec?command=ls&stdout=true`);
    expect(r.json).toMatchObject({ code: 400, reason: "BadRequest", message: "Upgrade request required" });
  });
});

describe("pods/portforward", () => {
  /** Runs kubectl port-forward to pod/web:8080 and sends a line through it; resolves with the kubelet's /portForward requests meanwhile. */
  async function kubectlPortForward(websockets: boolean) {
    const before = kubelet.requests.length;
    const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: process.env.HOME ?? "/tmp", KUBECTL_PORT_FORWARD_WEBSOCKETS: String(websockets) };
    const pf = spawn(kubectlBin!, ["port-forward", "-v=6", "-n", ns, "pod/web", ":8080"], { env });
    let out = "";
    try {
      const localPort = await new Promise<number>((resolve, reject) => {
        const read = (c: Buffer) => {
          out += c;
          const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(out);
          if (m) resolve(Number(m[1]));
        };
        pf.stdout.on("data", read);
        pf.stderr.on("data", read);
        pf.once("exit", (code) => reject(new Error(`kubectl port-forward exited ${code}: ${out}`)));
      });
      const echoed = await new Promise<string>((resolve, reject) => {
        const c = tcpConnect(localPort, "127.0.0.1", () => c.write("through the tunnel"));
        let got = "";
        c.on("data", (d) => {
          got += d;
          if (got.length >= "through the tunnel".length) {
            c.end();
            resolve(got);
          }
        });
        c.on("error", (e) => reject(new Error(`${e.message}: ${out}`)));
      });
      expect(echoed).toBe("through the tunnel");
      // The SPDY streams kubectl opened at the kubelet (closed ones are forgotten).
      const streams = [...kubelet.portForwardStreams.values()];
      // Interrupted, kubectl stops forwarding and exits, flushing its (buffered) log.
      const exited = new Promise<void>((r) => pf.once("exit", () => r()));
      pf.kill("SIGINT");
      await exited;
      return { toKubelet: kubelet.requests.slice(before).filter((r) => r.url === `/portForward/${ns}/web`), out, streams };
    } finally {
      if (pf.pid && pf.exitCode === null) process.kill(pf.pid);
    }
  }

  it.skipIf(!kubectlBin)("kubectl port-forward over SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false): the SPDY upgrade passed through", async () => {
    const { toKubelet, streams } = await kubectlPortForward(false);
    expect(toKubelet).toHaveLength(1);
    expect(toKubelet[0]).toMatchObject({ method: "POST", clientCN: "kube-apiserver-kubelet-client" });
    expect(String(toKubelet[0]!.headers.upgrade)).toBe("SPDY/3.1");
    expect(streams.some((h) => h.streamtype === "data" && h.port === "8080")).toBe(true);
  });

  it.skipIf(!kubectlBin)("kubectl port-forward over WebSocket (KUBECTL_PORT_FORWARD_WEBSOCKETS=true): kapi tunnels it to the kubelet's SPDY, as kube-apiserver 1.34", async () => {
    const { toKubelet, out, streams } = await kubectlPortForward(true);
    // kubectl asked kapi for the SPDY-over-WebSocket subprotocol and kept it (no fallback to SPDY) …
    expect(out).toMatch(/"Response" verb="GET" url="https:\/\/[^"]+\/api\/v1\/namespaces\/kl\/pods\/web\/portforward" status="101 Switching Protocols"/);
    expect(out).toContain("negotiated protocol: portforward.k8s.io");
    expect(out).not.toMatch(/verb="POST" url="[^"]+\/portforward"/);
    // … and the kubelet saw only a SPDY/3.1 upgrade asking portforward.k8s.io, never a WebSocket.
    expect(toKubelet).toHaveLength(1);
    expect(toKubelet[0]).toMatchObject({ method: "POST", clientCN: "kube-apiserver-kubelet-client" });
    expect(String(toKubelet[0]!.headers.upgrade)).toBe("SPDY/3.1");
    expect(toKubelet[0]!.headers["x-stream-protocol-version"]).toBe("portforward.k8s.io");
    expect(toKubelet[0]!.headers["sec-websocket-key"]).toBeUndefined();
    expect(streams.filter((h) => h.port === "8080").map((h) => h.streamtype).sort()).toEqual(["data", "error"]);
  });

  it("hands the upgrade to the kubelet's /portForward and joins the connections", async () => {
    const ws = new WebSocket(`${s.url.replace("https", "wss")}${pods}/web/portforward?ports=8080`, ["portforward.k8s.io"], {
      ca: s.admin.ca,
      cert: s.admin.cert,
      key: s.admin.key,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    expect(lastRequest().url).toBe(`/portForward/${ns}/web?port=8080`);
    const back = new Promise<Buffer>((r) => ws.once("message", (m: Buffer) => r(m)));
    ws.send(Buffer.from("frame"));
    expect((await back).toString()).toBe("frame");
    ws.close();
  });
});

/** Opens exec over WebSocket (as kubectl 1.33 does: GET); resolves with what the exec printed, or the refusal. */
function wsExec(path: string, headers: Record<string, string> = {}): Promise<{ status: number; out: string }> {
  const ws = new WebSocket(`${s.url.replace("https", "wss")}${path}`, ["v5.channel.k8s.io"], { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key, headers });
  return new Promise((resolve, reject) => {
    let out = "";
    ws.on("message", (m: Buffer) => (m[0] === 1 ? (out += m.subarray(1).toString()) : undefined));
    ws.once("close", () => resolve({ status: 101, out }));
    ws.once("error", (e) => (out === "" ? undefined : reject(e)));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, out: body }));
    });
  });
}

describe("authorization and admission of the connect verbs", () => {
  it("in 1.34 a WebSocket exec (GET) needs get on pods/exec, a SPDY one (POST) create", async () => {
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    const role = { metadata: { name: "exec-get" }, rules: [{ apiGroups: [""], resources: ["pods/exec"], verbs: ["get"] }] };
    expect((await req(s, "POST", `${rbac}/namespaces/${ns}/roles`, { body: role })).status).toBe(201);
    const binding = { metadata: { name: "alice" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "exec-get" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }] };
    expect((await req(s, "POST", `${rbac}/namespaces/${ns}/rolebindings`, { body: binding })).status).toBe(201);
    const asAlice = { "Impersonate-User": "alice" };
    expect(await wsExec(`${pods}/web/exec?command=echo&command=hi&stdout=true`, asAlice)).toEqual({ status: 101, out: "hi\n" });
    // The kubelet never sees who asked for whom.
    expect(lastRequest().headers["impersonate-user"]).toBeUndefined();
    const spdy = await req(s, "POST", `${pods}/web/exec?command=ls&stdout=true`, { headers: asAlice });
    expect(spdy.json).toMatchObject({ code: 403, message: `pods "web" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "${ns}"` });
  });

  it("passes admission as CONNECT with the PodExecOptions as its object", async () => {
    const vap = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    const policy = {
      metadata: { name: "no-false" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT"], resources: ["pods/exec"] }] },
        validations: [{ expression: "object.kind == 'PodExecOptions' && object.command[0] != 'false'", message: "no false" }],
      },
    };
    expect((await req(s, "POST", vap, { body: policy })).status).toBe(201);
    const binding = { metadata: { name: "no-false" }, spec: { policyName: "no-false", validationActions: ["Deny"] } };
    expect((await req(s, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", { body: binding })).status).toBe(201);
    await s.settle();
    const denied = await wsExec(`${pods}/web/exec?command=false&stdout=true`);
    // A validation without a reason is upstream's 422 Invalid.
    expect(denied.status).toBe(422);
    expect(JSON.parse(denied.out).message).toBe(`pods "web" is forbidden: ValidatingAdmissionPolicy 'no-false' with binding 'no-false' denied request: no false`);
    expect(await wsExec(`${pods}/web/exec?command=echo&command=ok&stdout=true`)).toEqual({ status: 101, out: "ok\n" });
  });
});

describe("an unreachable kubelet", () => {
  it("is upstream's reasonless 500, at once", async () => {
    await node("node-down", "127.0.0.1", 1);
    await pod("lost", "node-down");
    const log = await req(s, "GET", `${pods}/lost/log`);
    expect(log.status).toBe(500);
    expect(log.json.reason).toBeUndefined();
    expect(log.json.message).toBe(`Get "https://127.0.0.1:1/containerLogs/${ns}/lost/app": dial tcp 127.0.0.1:1: connect: connection refused`);
    const ws = new WebSocket(`${s.url.replace("https", "wss")}${pods}/lost/exec?command=ls&stdout=true`, ["v5.channel.k8s.io"], { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key });
    const answer = await new Promise<{ status: number; body: string }>((resolve) => {
      ws.once("error", () => undefined);
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: "Status", code: 500, message: "error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused" });
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["exec", "-n", ns, "lost", "--", "ls"]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain("error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused");
    }
  });
});
