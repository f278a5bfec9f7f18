// Bootstrap tokens with real clients against a real kapi: a token Secret made with kubectl
// authenticates `kubectl --token`, an expired one is refused (401, kubectl's "Unauthorized")
// and deleted by the token cleaner, and cluster-info made with kubectl gets its signature.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import * as k8s from "@kubernetes/client-node";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detachedTokenIsValid } from "../src/authn/bootstrap/jws.js";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { runKapi } from "./support/cli.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

describe.skipIf(!bin)("bootstrap tokens with kubectl 1.33", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  let tokenKubeconfig: string;
  const k = (...args: string[]) => kubectl(bin!, s.kubeconfigPath!, args);
  /** kubectl with a kubeconfig that has the cluster and no credentials: only --token authenticates. */
  const kt = (...args: string[]) => kubectl(bin!, tokenKubeconfig, args);
  const ok = async (...args: string[]) => {
    const r = await k(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  };
  const createToken = (id: string, literals: Record<string, string>) =>
    ok(
      "create", "secret", "generic", `bootstrap-token-${id}`, "-n", "kube-system", "--type", "bootstrap.kubernetes.io/token",
      `--from-literal=token-id=${id}`, "--from-literal=token-secret=0123456789abcdef",
      ...Object.entries(literals).map(([key, v]) => `--from-literal=${key}=${v}`),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-bootstrap-"));
    s = await startTestServer({ dataDir: join(dir, "data"), options: { enableBootstrapTokenAuth: true } });
    const kc = parse(s.kubeconfig);
    kc.users = [{ name: "nobody", user: {} }];
    kc.contexts = [{ name: "token", context: { cluster: kc.clusters[0].name, user: "nobody" } }];
    kc["current-context"] = "token";
    tokenKubeconfig = join(dir, "token.kubeconfig");
    writeFileSync(tokenKubeconfig, stringify(kc));
  });
  afterAll(async () => s?.stop());

  it("kubectl auth whoami --token shows the bootstrap user and its groups", async () => {
    expect(
      await createToken("abcdef", { "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token", description: "test token" }),
    ).toBe("secret/bootstrap-token-abcdef created\n");
    const r = await kt("--token", "abcdef.0123456789abcdef", "auth", "whoami");
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Username\s+system:bootstrap:abcdef$/m);
    expect(r.stdout).toMatch(/^Groups\s+\[system:bootstrappers system:bootstrappers:kubeadm:default-node-token system:authenticated\]$/m);
    const json = JSON.parse((await kt("--token", "abcdef.0123456789abcdef", "auth", "whoami", "-o", "json")).stdout);
    expect(json.status.userInfo).toEqual({
      username: "system:bootstrap:abcdef",
      groups: ["system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token", "system:authenticated"],
    });
  });

  it("a token without extra groups is in system:bootstrappers only", async () => {
    await createToken("plain0", { "usage-bootstrap-authentication": "true" });
    const json = JSON.parse((await kt("--token", "plain0.0123456789abcdef", "auth", "whoami", "-o", "json")).stdout);
    expect(json.status.userInfo).toEqual({ username: "system:bootstrap:plain0", groups: ["system:bootstrappers", "system:authenticated"] });
  });

  it("a wrong secret, a token not for authentication, an unknown id → 401 Unauthorized", async () => {
    await createToken("nouse0", { "usage-bootstrap-signing": "true" });
    for (const token of ["abcdef.0123456789abcdeg", "nouse0.0123456789abcdef", "zzzzzz.0123456789abcdef"]) {
      const r = await kt("--token", token, "auth", "whoami");
      expect(r.code).not.toBe(0);
      expect(r.stderr).toBe("error: You must be logged in to the server (Unauthorized)\n");
      // kubectl get words the same 401 by where it met it: during discovery ("the server has asked
      // for the client to provide credentials") or, with discovery cached, on the list itself.
      expect((await kt("--token", token, "get", "ns")).stderr).toMatch(
        /error: You must be logged in to the server \((the server has asked for the client to provide credentials|Unauthorized)\)/,
      );
      const raw = await req(s, "GET", "/api/v1/namespaces", { creds: s.as(token) });
      expect(raw.status).toBe(401);
      expect(raw.json).toMatchObject({ kind: "Status", status: "Failure", reason: "Unauthorized", code: 401 });
    }
  });

  it("a token is refused once expired, and the token cleaner deletes its Secret", async () => {
    const expiration = iso(Date.now() + 2500); // whole seconds: 1.5 to 2.5 s from now, time for kubectl to use it once
    const cleaned = watchEvents(s, "/api/v1/namespaces/kube-system/secrets?watch=1&fieldSelector=metadata.name%3Dbootstrap-token-short0", (evs) => evs.some((e) => e.type === "DELETED"), 20_000);
    await cleaned.opened;
    await createToken("short0", { "usage-bootstrap-authentication": "true", expiration });
    const before = await kt("--token", "short0.0123456789abcdef", "auth", "whoami", "-o", "name");
    expect(before.stderr).toBe("");
    // Time-based: the expiry is what is tested, so wait until just past it (no sooner can anything change).
    await sleep(Date.parse(expiration) - Date.now() + 20);
    const after = await kt("--token", "short0.0123456789abcdef", "auth", "whoami");
    expect(after.code).not.toBe(0);
    expect(after.stderr).toBe("error: You must be logged in to the server (Unauthorized)\n");
    // The cleaner deletes the Secret at its expiry: its watch event, not a poll.
    expect((await cleaned).map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect((await k("get", "secret", "bootstrap-token-short0", "-n", "kube-system")).stderr).toContain("NotFound");
  });

  it("cluster-info created with kubectl gets a detached JWS per signing token", async () => {
    const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n  name: \"\"\n";
    const file = join(dir, "kubeconfig");
    writeFileSync(file, kubeconfig);
    await createToken("signer", { "usage-bootstrap-signing": "true" });
    expect(await ok("create", "configmap", "cluster-info", "-n", "kube-public", `--from-file=kubeconfig=${file}`)).toBe("configmap/cluster-info created\n");
    await s.settle(); // the bootstrap signer has signed
    const sig = await ok("get", "configmap", "cluster-info", "-n", "kube-public", "-o", "jsonpath={.data.jws-kubeconfig-signer}");
    expect(sig).toMatch(/^eyJhbGciOiJIUzI1NiIsImtpZCI6InNpZ25lciJ9\.\.[A-Za-z0-9_-]{43}$/);
    expect(detachedTokenIsValid(sig, kubeconfig, "signer", "0123456789abcdef")).toBe(true);
    // Only signing tokens sign: nouse0 is one, abcdef (authentication only) is not.
    const data = JSON.parse(await ok("get", "configmap", "cluster-info", "-n", "kube-public", "-o", "json")).data;
    expect(Object.keys(data).sort()).toEqual(["jws-kubeconfig-nouse0", "jws-kubeconfig-signer", "kubeconfig"]);
    // Deleting a token removes its signature.
    await ok("delete", "secret", "bootstrap-token-nouse0", "-n", "kube-system");
    await s.settle();
    const keys = Object.keys(JSON.parse(await ok("get", "configmap", "cluster-info", "-n", "kube-public", "-o", "json")).data).sort();
    expect(keys).toEqual(["jws-kubeconfig-signer", "kubeconfig"]);
  });
});

const python = "/usr/bin/python3";
const hasPythonClient = spawnSync(python, ["-c", "import kubernetes"], { timeout: 30_000 }).status === 0;
const pythonScript = `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=sys.argv[1])
out = {}
for token in sys.argv[2:]:
    cfg = client.Configuration.get_default_copy()
    cfg.api_key = {"authorization": "Bearer " + token}
    cfg.cert_file = None
    cfg.key_file = None
    api = client.CoreV1Api(client.ApiClient(cfg))
    try:
        out[token] = [n.metadata.name for n in api.list_namespace().items]
    except ApiException as e:
        out[token] = {"status": e.status, "body": json.loads(e.body)}
print(json.dumps(out))
`;

describe("bootstrap tokens with the Python and client-node clients", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-bootstrap-clients-"));
    s = await startTestServer({ dataDir: join(dir, "data"), options: { enableBootstrapTokenAuth: true } });
    for (const [id, extra] of [["pyth0n", {}], ["client", { "auth-extra-groups": "system:bootstrappers:nodes" }]] as const) {
      const r = await req(s, "POST", "/api/v1/namespaces/kube-system/secrets", {
        body: { metadata: { name: `bootstrap-token-${id}` }, type: "bootstrap.kubernetes.io/token", stringData: { "token-id": id, "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", ...extra } },
      });
      expect(r.status).toBe(201);
    }
  });
  afterAll(async () => s?.stop());

  it.skipIf(!hasPythonClient)("python: a bootstrap token lists namespaces; a wrong one gets 401", async () => {
    const out = await new Promise<any>((resolve, reject) =>
      execFile(python, ["-c", pythonScript, s.kubeconfigPath!, "pyth0n.0123456789abcdef", "pyth0n.0123456789abcdeg"], { timeout: 60_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(String(stdout).trim().split("\n").pop()!)),
      ),
    );
    expect(out["pyth0n.0123456789abcdef"]).toContain("kube-system");
    expect(out["pyth0n.0123456789abcdeg"]).toMatchObject({ status: 401, body: { kind: "Status", reason: "Unauthorized", code: 401 } });
  });

  it("client-node: SelfSubjectReview shows the bootstrap user", async () => {
    const kc = new k8s.KubeConfig();
    const admin = parse(s.kubeconfig);
    kc.loadFromOptions({
      clusters: [{ name: "kapi", server: s.url, caData: admin.clusters[0].cluster["certificate-authority-data"] }],
      users: [{ name: "bootstrap", token: "client.0123456789abcdef" }],
      contexts: [{ name: "bootstrap", cluster: "kapi", user: "bootstrap" }],
      currentContext: "bootstrap",
    });
    const r = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(r.status?.userInfo).toEqual({ username: "system:bootstrap:client", groups: ["system:bootstrappers", "system:bootstrappers:nodes", "system:authenticated"] });
    kc.users[0] = { name: "bootstrap", token: "client.0123456789abcdeg" };
    await expect(kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } })).rejects.toMatchObject({ code: 401 });
  });
});

describe("bootstrap token authentication is off by default", () => {
  let s: EmbeddedTestServer;
  beforeAll(async () => {
    s = await startTestServer({ storage: "memory" });
  });
  afterAll(async () => s?.stop());
  it("a valid bootstrap token is not accepted without --enable-bootstrap-token-auth", async () => {
    await req(s, "POST", "/api/v1/namespaces/kube-system/secrets", {
      body: { metadata: { name: "bootstrap-token-abcdef" }, type: "bootstrap.kubernetes.io/token", stringData: { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true" } },
    });
    expect((await req(s, "GET", "/api/v1/namespaces", { creds: s.as("abcdef.0123456789abcdef") })).status).toBe(401);
  });
});

describe("kapi serve flags", () => {
  it("refuses an unknown --controllers name", async () => {
    const r = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", "--controllers=*,nope"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"nope" is not in the list of known controllers');
  });
  it("documents both flags in --help", async () => {
    const r = await runKapi(["--help"]);
    expect(r.stdout).toMatch(/--enable-bootstrap-token-auth bool \(default "false"\)/);
    expect(r.stdout).toMatch(/--controllers list \(default "\*"\)/);
    expect(r.stdout).toContain("token-cleaner-controller (alias tokencleaner)");
  });
});
