// Runs a real kubectl binary of a given minor version against a test server.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";

const dirs = ["/usr/lib/google-cloud-sdk/bin", "/usr/local/bin", "/usr/bin"];

/** Path of kubectl 1.<minor>, or undefined when this machine does not have it. */
export function kubectlBinary(minor: number): string | undefined {
  for (const d of dirs) {
    const p = `${d}/kubectl.1.${minor}`;
    if (existsSync(p)) return p;
  }
  return undefined;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(bin: string, kubeconfigPath: string, args: string[], stdin?: string): Promise<KubectlResult> {
  // A discovery cache of its own per kubeconfig (each test server has one): kubectl keys its
  // cache by host and port, and a port a finished server used may be reused by another one.
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, HOME: process.env.HOME ?? "/tmp", KUBECACHEDIR: `${kubeconfigPath}.kube-cache` };
  return new Promise((resolve) => {
    const p = execFile(bin, args, { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    if (stdin !== undefined) {
      p.stdin?.write(stdin);
      p.stdin?.end();
    }
  });
}
