// controller-runtime's envtest (v0.22) launching `kapi envtest-assets`' binaries, replayed step by
// step without a Go toolchain: the flag discovery (`--help`), etcd then kube-apiserver with
// envtest's default arguments in its order (its Arguments sort flag names), its health polls,
// the certificates it makes (serving pair and service-account pair in --cert-dir, a client CA for
// --client-ca-file, users by client certificate), its kubeconfig, kubectl through the assets'
// kubectl, client-node, and the stop (SIGTERM to each process, apiserver first).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, get as httpGet } from "node:http";
import { request as httpsRequest } from "node:https";
import { createServer as netServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCA, createLeaf, type KeyPairPem } from "../src/authn/certs.js";
import { etcdSkipReason, startEtcd } from "./support/etcd.js";
import { runKapi } from "./support/cli.js";

const work = mkdtempSync(join(tmpdir(), "kapi-envtest-"));
const assets = join(work, "assets");

/** envtest's addr.Suggest: a free port on localhost's address. */
async function suggestPort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** envtest's process.Arguments.AsStrings: flags sorted by name, `--name=value`. */
function asStrings(args: Record<string, string>): string[] {
  return Object.keys(args)
    .sort()
    .map((k) => `--${k}=${args[k]}`);
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: String(stdout) + String(stderr) }));
  });
}

/** envtest's State.CheckFlag: `<bin> --help`, combined output, must succeed. */
async function checkFlag(bin: string, flag: string): Promise<boolean> {
  const r = await run(bin, ["--help"]);
  if (r.code !== 0) throw new Error(`${bin} --help exited ${r.code}: ${r.out}`);
  return new RegExp(`^\\s*--${flag}\\b`, "m").test(r.out);
}

/** envtest's pollURLUntilOK: GET every 100 ms, TLS unverified, until a 200 (or the start timeout). */
async function pollUntilOK(url: string, proc: ChildProcess, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${url}: process exited ${proc.exitCode} before it was ready`);
    const status = await new Promise<number>((resolve) => {
      const req = (url.startsWith("https:") ? httpsRequest(url, { rejectUnauthorized: false }) : httpGet(url)).on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0))).on("error", () => resolve(0));
      if (url.startsWith("https:")) req.end();
    });
    if (status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timeout waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function start(bin: string, args: string[]): { proc: ChildProcess; output: () => string } {
  // envtest starts each binary in its own process group (Setpgid) and signals the pid.
  const proc = spawn(bin, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c) => (out += c));
  proc.stderr!.on("data", (c) => (out += c));
  return { proc, output: () => out };
}

/** Resolves once the process has written `text` (its log line may follow the moment it answers). */
function outputContains(p: ReturnType<typeof start>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!p.output().includes(text)) return;
      p.proc.stderr!.off("data", check);
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} in: ${p.output()}`)), 10_000);
    p.proc.stderr!.on("data", check);
    setImmediate(check);
  });
}

function exited(proc: ChildProcess): Promise<number | null> {
  return proc.exitCode !== null ? Promise.resolve(proc.exitCode) : new Promise((r) => proc.once("exit", (c) => r(c)));
}

/** envtest's KubeConfigFromREST for a user of the client CA. */
function kubeconfigOf(server: string, servingCA: string, user: KeyPairPem): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "envtest", cluster: { server, "certificate-authority-data": b64(servingCA) } }],
    users: [{ name: "envtest", user: { "client-certificate-data": b64(user.certPem), "client-key-data": b64(user.keyPem) } }],
    contexts: [{ name: "envtest", context: { cluster: "envtest", user: "envtest" } }],
    "current-context": "envtest",
  });
}

describe("envtest's launch of kapi envtest-assets", () => {
  let etcd: ReturnType<typeof start>;
  let apiserver: ReturnType<typeof start>;
  let certDir: string;
  let servingCA: KeyPairPem;
  let clientCA: KeyPairPem;
  let host: string;
  let adminKubeconfig: string;
  const kubectl = (kubeconfig: string, ...args: string[]) =>
    run(join(assets, "kubectl"), [`--kubeconfig=${kubeconfig}`, ...args], { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` });

  beforeAll(async () => {
    const r = await runKapi(["envtest-assets", assets]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(assets + "\n");
  }, 30_000);

  afterAll(() => {
    for (const p of [apiserver?.proc, etcd?.proc]) if (p && p.exitCode === null) p.kill("SIGKILL");
  });

  it("writes executables envtest finds by name in KUBEBUILDER_ASSETS", () => {
    for (const name of ["kube-apiserver", "etcd", "kubectl"]) accessSync(join(assets, name), constants.X_OK);
    expect(readFileSync(join(assets, "kube-apiserver"), "utf8")).toMatch(/^#!\/bin\/sh\n[^]*exec '\/[^']*node[^']*' [^]*'serve' "\$@"\n$/);
  });

  it("answers envtest's flag discovery: no --insecure-port, etcd's --unsafe-no-fsync", async () => {
    expect(await checkFlag(join(assets, "kube-apiserver"), "insecure-port")).toBe(false);
    expect(await checkFlag(join(assets, "kube-apiserver"), "etcd-servers")).toBe(true);
    expect(await checkFlag(join(assets, "kube-apiserver"), "allow-privileged")).toBe(true);
    expect(await checkFlag(join(assets, "etcd"), "unsafe-no-fsync")).toBe(true);
    expect(await checkFlag(join(assets, "etcd"), "listen-client-urls")).toBe(true);
  }, 30_000);

  it("starts etcd, then kube-apiserver with envtest's arguments, each healthy as envtest polls", async () => {
    // Etcd.Start: client and peer URLs on suggested ports, a temporary data dir.
    const etcdURL = `http://127.0.0.1:${await suggestPort()}`;
    const etcdArgs: Record<string, string> = {
      "listen-peer-urls": `http://127.0.0.1:${await suggestPort()}`,
      "data-dir": mkdtempSync(join(work, "k8s_test_framework_")),
      "advertise-client-urls": etcdURL,
      "listen-client-urls": etcdURL,
    };
    if (await checkFlag(join(assets, "etcd"), "unsafe-no-fsync")) etcdArgs["unsafe-no-fsync"] = "true";
    etcd = start(join(assets, "etcd"), asStrings(etcdArgs));
    await pollUntilOK(`${etcdURL}/health`, etcd.proc);
    await outputContains(etcd, "serving GET /health on");

    // APIServer.Start: the cert dir with the serving pair (its own tiny CA), the service-account
    // pair, the client CA of CertAuthn; then the default arguments.
    certDir = mkdtempSync(join(work, "k8s_test_framework_"));
    const port = await suggestPort();
    host = `https://127.0.0.1:${port}`;
    servingCA = await createCA("envtest-environment");
    const serving = await createLeaf(servingCA, { commonName: "localhost", organizations: ["envtest"], usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1", "::1"] });
    writeFileSync(join(certDir, "apiserver.crt"), serving.certPem);
    writeFileSync(join(certDir, "apiserver.key"), serving.keyPem);
    const sa = await createCA("envtest-environment");
    writeFileSync(join(certDir, "sa-signer.crt"), sa.certPem);
    writeFileSync(join(certDir, "sa-signer.key"), sa.keyPem);
    clientCA = await createCA("envtest-environment");
    writeFileSync(join(certDir, "client-cert-auth-ca.crt"), clientCA.certPem);
    const apiArgs: Record<string, string> = {
      "service-cluster-ip-range": "10.0.0.0/24",
      "allow-privileged": "true",
      "disable-admission-plugins": "ServiceAccount",
      "cert-dir": certDir,
      "authorization-mode": "RBAC",
      "secure-port": String(port),
      "bind-address": "127.0.0.1",
      "service-account-issuer": `${host}/`,
      "service-account-key-file": join(certDir, "sa-signer.crt"),
      "service-account-signing-key-file": join(certDir, "sa-signer.key"),
      "etcd-servers": etcdURL,
      "client-ca-file": join(certDir, "client-cert-auth-ca.crt"),
    };
    const argv = asStrings(apiArgs);
    expect(argv[0]).toBe("--allow-privileged=true");
    expect(argv.at(-1)).toBe("--service-cluster-ip-range=10.0.0.0/24");
    apiserver = start(join(assets, "kube-apiserver"), argv);
    await pollUntilOK(`${host}/healthz`, apiserver.proc);
    await outputContains(apiserver, "(storage memory)");

    // ControlPlane.Start's "default" user writes a kubeconfig into the cert dir; envtest's "admin" is its rest.Config.
    const admin = await createLeaf(clientCA, { commonName: "admin", organizations: ["system:masters"], usage: "client" });
    adminKubeconfig = join(certDir, "admin.kubecfg");
    writeFileSync(adminKubeconfig, kubeconfigOf(host, servingCA.certPem, admin));
  }, 60_000);

  it("serves the admin user through kubectl and client-node (namespace, CRD, RBAC-restricted user)", async () => {
    // waitForDefaultNamespace
    const kc = new k8s.KubeConfig();
    kc.loadFromString(readFileSync(adminKubeconfig, "utf8"));
    const core = kc.makeApiClient(k8s.CoreV1Api);
    expect((await core.readNamespace({ name: "default" })).metadata?.name).toBe("default");

    const ns = await kubectl(adminKubeconfig, "create", "namespace", "envtest-ns");
    expect(ns.out).toContain("namespace/envtest-ns created");
    const crd = join(work, "crd.yaml");
    writeFileSync(
      crd,
      stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget" },
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } } } }],
        },
      }),
    );
    expect((await kubectl(adminKubeconfig, "apply", "-f", crd)).code).toBe(0);
    expect((await kubectl(adminKubeconfig, "wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=20s")).code).toBe(0);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.createNamespacedCustomObject({ group: "example.com", version: "v1", namespace: "envtest-ns", plural: "widgets", body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } } });
    expect((await kubectl(adminKubeconfig, "get", "widgets", "-n", "envtest-ns", "-o", "name")).out.trim()).toBe("widget.example.com/w1");

    // A user of envtest's client CA with no bindings, then one Role.
    const user = await createLeaf(clientCA, { commonName: "restricted", usage: "client" });
    const userKubeconfig = join(certDir, "restricted.kubecfg");
    writeFileSync(userKubeconfig, kubeconfigOf(host, servingCA.certPem, user));
    const denied = await kubectl(userKubeconfig, "get", "configmaps", "-n", "envtest-ns");
    expect(denied.code).not.toBe(0);
    expect(denied.out).toContain('User "restricted" cannot list resource "configmaps" in API group "" in the namespace "envtest-ns"');
    expect((await kubectl(adminKubeconfig, "create", "role", "cm-reader", "-n", "envtest-ns", "--verb=list", "--resource=configmaps")).code).toBe(0);
    expect((await kubectl(adminKubeconfig, "create", "rolebinding", "cm-reader", "-n", "envtest-ns", "--role=cm-reader", "--user=restricted")).code).toBe(0);
    expect((await kubectl(userKubeconfig, "auth", "can-i", "list", "configmaps", "-n", "envtest-ns")).out.trim()).toBe("yes");
    expect((await kubectl(userKubeconfig, "auth", "can-i", "create", "configmaps", "-n", "envtest-ns")).out.trim()).toBe("no");

    // A service-account token is signed by envtest's sa-signer key and issued for its issuer.
    await core.createNamespacedServiceAccount({ namespace: "envtest-ns", body: { metadata: { name: "robot" } } });
    const token = await core.createNamespacedServiceAccountToken({ name: "robot", namespace: "envtest-ns", body: { spec: { audiences: [] } } });
    const claims = JSON.parse(Buffer.from(token.status!.token.split(".")[1], "base64url").toString());
    expect(claims.iss).toBe(`${host}/`);
  }, 90_000);

  it("stops on SIGTERM, kube-apiserver then etcd, each promptly and cleanly", async () => {
    const t0 = Date.now();
    apiserver.proc.kill("SIGTERM");
    expect(await exited(apiserver.proc)).toBe(0);
    const apiMs = Date.now() - t0;
    const t1 = Date.now();
    etcd.proc.kill("SIGTERM");
    expect(await exited(etcd.proc)).toBe(0);
    expect(apiMs).toBeLessThan(5000);
    expect(Date.now() - t1).toBeLessThan(2000);
  }, 30_000);

  it.skipIf(!!etcdSkipReason)("serves from a real etcd that envtest started (KUBEBUILDER_ASSETS with Debian's etcd)", async () => {
    const real = await startEtcd();
    try {
      const dir = mkdtempSync(join(work, "k8s_test_framework_"));
      const port = await suggestPort();
      const api = start(join(assets, "kube-apiserver"), [`--cert-dir=${dir}`, `--etcd-servers=${real.url}`, `--secure-port=${port}`, "--bind-address=127.0.0.1", "--allow-privileged=true"]);
      try {
        await pollUntilOK(`https://127.0.0.1:${port}/readyz`, api.proc);
        await outputContains(api, "(storage etcd3)");
        // The objects are etcd's: kube-apiserver's layout under /registry.
        // etcd's JSON gateway (keys base64): the default namespace is there, where kube-apiserver keeps it.
        const b64 = (k: string) => Buffer.from(k).toString("base64");
        const range = await fetch(`${real.url}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: b64("/registry/namespaces/default") }) }).then((r) => r.json());
        expect(range.kvs?.map((kv: { key: string }) => Buffer.from(kv.key, "base64").toString())).toEqual(["/registry/namespaces/default"]);
      } finally {
        api.proc.kill("SIGTERM");
        await exited(api.proc);
      }
    } finally {
      await real.cleanup();
    }
  }, 60_000);

  it("an --etcd-servers that is not kapi's stand-in is the etcd3 backend (refused when it speaks no etcd); one it cannot reach is refused", async () => {
    const other = createServer((_q, s) => (s.writeHead(200), s.end('{"health":"true"}')));
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const real = await run(join(assets, "kube-apiserver"), [`--etcd-servers=${url}`, "--secure-port=0", `--cert-dir=${mkdtempSync(join(work, "c-"))}`]);
      expect(real.code).toBe(1);
      expect(real.out).toContain(`cannot open the etcd3 storage at ${url}`);
      const down = await run(join(assets, "kube-apiserver"), [`--etcd-servers=http://127.0.0.1:${await suggestPort()}`, "--secure-port=0"]);
      expect(down.code).toBe(1);
      expect(down.out).toMatch(/--etcd-servers: cannot reach http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    } finally {
      other.close();
    }
  }, 60_000);
});
