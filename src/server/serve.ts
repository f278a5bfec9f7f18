// Listening and shutting down: the port bound, the URL clients use, the admin kubeconfig, and
// the graceful stop (readyz fails, the shutdown delay, no new connections, in-flight requests
// finish, then the background work and the storage).
import { writeFileSync } from "node:fs";
import { isIPv6, type AddressInfo } from "node:net";
import { join } from "node:path";
import { renderKubeconfig } from "./kubeconfig.js";
import type { Listener } from "./listener.js";
import type { ServerOptions } from "./options.js";
import type { TlsSetup } from "./tls-setup.js";

/** Binds the listener; on failure `abort` undoes what start-up began before the error is thrown. */
export async function listen(listener: Listener, o: ServerOptions, abort: () => Promise<void>): Promise<{ url: string; port: number }> {
  try {
    await new Promise<void>((resolve, reject) => {
      listener.server.once("error", reject);
      listener.server.listen(o.securePort, o.bindAddress, () => resolve());
    });
  } catch (e) {
    // Nothing started here may outlive a server that could not listen (e.g. port in use).
    await abort();
    throw e;
  }
  const port = (listener.server.address() as AddressInfo).port;
  const host = o.bindAddress === "0.0.0.0" || o.bindAddress === "" ? "127.0.0.1" : o.bindAddress === "::" ? "::1" : o.bindAddress;
  return { url: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, port };
}

/** The admin kubeconfig, and where it was written when --write-kubeconfig asks for it. */
export function adminKubeconfig(o: ServerOptions, url: string, tls: TlsSetup): { kubeconfig: string; kubeconfigPath?: string } {
  const kubeconfig = renderKubeconfig({ server: url, caPem: tls.servingCA, clientCertPem: tls.admin.certPem, clientKeyPem: tls.admin.keyPem });
  if (!o.writeKubeconfig) return { kubeconfig };
  const kubeconfigPath = join(o.dataDir, "admin.kubeconfig");
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
  return { kubeconfig, kubeconfigPath };
}

export interface GracefulStopParts {
  listener: Listener;
  shutdownDelayMs: number;
  /** readyz starts failing. */
  markStopping(): void;
  /** Open watch streams, ended first. */
  streams: Set<{ stop(): void }>;
  stopBackground(): void;
  closeStorage(): Promise<void>;
}

/** The stop function of a running server: idempotent, resolves when everything is closed. */
export function gracefulStop(p: GracefulStopParts): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      p.markStopping();
      if (p.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, p.shutdownDelayMs));
      const closed = new Promise<void>((r) => p.listener.server.close(() => r()));
      for (const s of [...p.streams]) s.stop();
      p.stopBackground();
      await atMost(p.listener.idle(), 60_000);
      // Idle HTTP/2 sessions and keep-alive sockets would hold close() open: end them now.
      p.listener.closeConnections();
      await atMost(closed, 1000);
      await p.closeStorage();
    })());
}

/** Waits for `p`, or `ms` at most; the timer is cleared, so it never keeps the process alive. */
async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
