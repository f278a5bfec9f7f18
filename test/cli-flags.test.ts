// The `kapi` command line: help, flag errors and --runtime-config.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { asTestServer, runKapi, serveKapi } from "./support/cli.js";

describe("kapi CLI flags", () => {
  it("lists every flag with its default in --help", async () => {
    const r = await runKapi(["--help"]);
    expect(r.code).toBe(0);
    for (const f of ["--bind-address", "--secure-port", "--tls-cert-file", "--tls-private-key-file", "--cert-dir", "--client-ca-file", "--token-auth-file", "--anonymous-auth", "--authorization-mode", "--runtime-config", "--feature-gates", "--livez-grace-period", "--shutdown-delay-duration", "--request-timeout", "--min-request-timeout", "--max-requests-inflight", "--max-mutating-requests-inflight", "--data-dir", "--storage-backend"]) {
      expect(r.stdout).toContain(f);
    }
    expect(r.stdout).toContain('(default "6443")');
  });

  it("--version names kapi's version and the Kubernetes it serves; --help lists every command", async () => {
    const v = await runKapi(["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^kapi \d+\.\d+\.\d+\nKubernetes v1\.34\.\d+\n$/);
    const h = await runKapi(["--help"]);
    const commands = h.stdout.split("Commands:\n")[1].split("\n\n")[0].split("\n").map((l) => l.trim().split(/\s+/)[0]);
    expect(commands).toEqual(expect.arrayContaining(["serve", "cel", "testenv", "validate", "envtest-assets"]));
    const u = await runKapi(["frobnicate"]);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('kapi: unknown command "frobnicate"');
  });

  it("names an unknown flag and a bad feature gate", async () => {
    const u = await runKapi(["serve", "--no-such-flag=1"]);
    expect(u.code).not.toBe(0);
    expect(u.stderr).toContain("unknown flag: --no-such-flag");
    const g = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", "--feature-gates=Bogus=true"]);
    expect(g.code).not.toBe(0);
    expect(g.stderr).toContain("unrecognized feature gate: Bogus");
    const m = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", "--authorization-mode=Webhook"]);
    expect(m.code).not.toBe(0);
    expect(m.stderr).toContain("authorization-mode Webhook's authorization config file not passed");
  });

  it("refuses unknown, overlapping and unimplemented admission plugin names at start-up", async () => {
    const serve = (...flags: string[]) => runKapi(["serve", "--storage-backend=memory", "--secure-port=0", ...flags]);
    const unknown = await serve("--enable-admission-plugins=NoSuchPlugin");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('enable-admission-plugins plugin "NoSuchPlugin" is unknown');
    const both = await serve("--enable-admission-plugins=AlwaysPullImages", "--disable-admission-plugins=AlwaysPullImages");
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("[AlwaysPullImages] in enable-admission-plugins and disable-admission-plugins overlapped");
    const missing = await serve("--enable-admission-plugins=ImagePolicyWebhook");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('admission plugins "ImagePolicyWebhook" are not implemented by kapi');
  });

  it("hides a group version disabled with --runtime-config", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-rc-"));
    const k = await serveKapi(["--data-dir", dir, "--secure-port=0", "--bind-address=127.0.0.1", "--runtime-config=batch/v1=false"]);
    try {
      const s = asTestServer(k.url, dir);
      expect((await req(s, "GET", "/apis/batch/v1/namespaces/default/jobs")).status).toBe(404);
      expect((await req(s, "GET", "/apis/apps/v1/namespaces/default/deployments")).status).toBe(200);
    } finally {
      k.proc.kill("SIGKILL");
    }
  });
});

describe("kapi serve's warning about an open server", () => {
  const serve = async (flags: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-exposure-"));
    const k = await serveKapi(["--data-dir", dir, "--secure-port=0", ...flags]);
    return { k, s: asTestServer(k.url, dir) };
  };

  it("is printed with kube-apiserver's defaults on every interface, where anyone may read every Secret", async () => {
    const { k, s } = await serve(["--bind-address=0.0.0.0"]);
    try {
      expect(k.stderr()).toContain("kapi: warning: kapi serves on 0.0.0.0, which is reachable from other machines, with the AlwaysAllow authorizer: every request is allowed, including requests with no credential at all");
      // What the warning says is so: a request with no credential lists Secrets.
      expect((await req(s, "GET", "/api/v1/secrets", { creds: s.anonymous })).status).toBe(200);
    } finally {
      k.proc.kill("SIGKILL");
    }
  });

  it("names authenticated requests when anonymous ones are off, and is not printed with RBAC or on loopback", async () => {
    const noAnon = await serve(["--bind-address=0.0.0.0", "--anonymous-auth=false"]);
    noAnon.k.proc.kill("SIGKILL");
    expect(noAnon.k.stderr()).toContain("with the AlwaysAllow authorizer: every authenticated request is allowed");
    for (const flags of [["--bind-address=0.0.0.0", "--authorization-mode=Node,RBAC"], ["--bind-address=127.0.0.1"]]) {
      const { k } = await serve(flags);
      k.proc.kill("SIGKILL");
      expect(k.stderr(), flags.join(" ")).not.toContain("warning");
    }
  });
});
