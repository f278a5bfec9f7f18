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
