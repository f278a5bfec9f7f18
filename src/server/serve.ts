// Listening and shutting down: the port bound, the URL clients use, the admin kubeconfig, and
// the graceful stop (readyz fails, the shutdown delay, new requests refused and watches ended,
// in-flight requests finish, no new connections, then the background work and the storage).
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { renderKubeconfig } from "./kubeconfig.js";
import type { Listener } from "./listener.js";
import type { OpenStreams } from "./open-streams.js";
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
  // Only an IPv6 literal holds a colon (node:net's isIPv6 would compile its expression for this).
  return { url: `https://${host.includes(":") ? `[${host}]` : host}:${port}`, port };
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
  /** --shutdown-watch-termination-grace-period (0: the open watches end at once). */
  watchTerminationGraceMs: number;
  /** --shutdown-send-retry-after: keep listening (answering 429) until the requests in flight are done. */
  sendRetryAfter: boolean;
  /** readyz starts failing. */
  markStopping(): void;
  /** The shutdown delay has passed: new requests are refused (filters/shutdown.ts). */
  markDraining(): void;
  /** Open watch streams, ended when the drain begins. */
  streams: OpenStreams;
  stopBackground(): void;
  /** Writes or sends the audit events still buffered, once the requests they record are done. */
  drainAudit?(): Promise<void> | undefined;
  closeStorage(): Promise<void>;
}

/** How long the drain waits for requests in flight (each is bounded by its deadline anyway). */
const drainLimitMs = 60_000;

/**
 * The stop function of a running server: idempotent, resolves when everything is closed.
 * kube-apiserver's sequence: readyz fails and requests are still served for the shutdown delay;
 * then new requests are refused and watches end; the listener stops at once, or, with
 * --shutdown-send-retry-after, once the requests in flight have finished (new ones meanwhile
 * answered 429 with Retry-After); the requests in flight finish; then the controllers, informers
 * and caches stop and the storage closes.
 */
export function gracefulStop(p: GracefulStopParts): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  const stopListening = () => new Promise<void>((r) => p.listener.server.close(() => r()));
  return () =>
    (stopped ??= (async () => {
      p.markStopping();
      if (p.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, p.shutdownDelayMs));
      p.markDraining();
      if (p.watchTerminationGraceMs > 0) void p.streams.closeAllOver(p.watchTerminationGraceMs);
      else p.streams.closeAll();
      // The watches are requests in flight too: the drain waits for them as long as they may take to end.
      const drainMs = Math.max(drainLimitMs, p.watchTerminationGraceMs);
      let closed: Promise<void>;
      if (p.sendRetryAfter) {
        await atMost(p.listener.idle(), drainMs);
        closed = stopListening();
      } else {
        closed = stopListening();
        // HTTP/2 clients are told at once to take new requests elsewhere; HTTP/1.1 ones learn it
        // from the 503 answers on their open connections.
        p.listener.goAway();
        await atMost(p.listener.idle(), drainMs);
      }
      // Idle HTTP/2 sessions and keep-alive sockets would hold close() open: end them now.
      p.listener.closeConnections();
      await atMost(closed, 1000);
      p.stopBackground();
      await p.drainAudit?.();
      await p.closeStorage();
    })());
}

/** Waits for `p`, or `ms` at most; the timer is cleared, so it never keeps the process alive. */
async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
