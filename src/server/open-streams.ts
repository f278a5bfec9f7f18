// The long-running responses (watches) a server has open, so that a graceful stop can end them:
// once closed, a stream registered later (a watch that began while the server drained) is ended
// as soon as it registers, so none outlives the drain. With a grace period
// (--shutdown-watch-termination-grace-period) they end spread over it instead of all at once, so
// that their clients do not all reconnect to the other servers in the same instant.
export interface Stream {
  stop(): void;
}

/** Upstream's floor on the rate watches are ended at during a drain. */
const minPerSecond = 200;

export class OpenStreams extends Set<Stream> {
  private closed = false;

  override add(stream: Stream): this {
    if (this.closed) {
      // After the handler's own registration step: it may still be setting the stream up.
      queueMicrotask(() => stream.stop());
      return this;
    }
    return super.add(stream);
  }

  /** Ends every open stream, and every one registered from now on. */
  closeAll(): void {
    this.closed = true;
    for (const s of [...this]) s.stop();
  }

  /**
   * As closeAll, with the open streams ended one after another over `graceMs` as upstream's
   * drain rate-limits them: count / grace a second, never fewer than 200 a second; once the grace
   * period has passed, the rest end at once. Resolves when every one has been ended.
   */
  closeAllOver(graceMs: number): Promise<void> {
    this.closed = true;
    const open = [...this];
    if (open.length === 0) return Promise.resolve();
    const intervalMs = 1000 / Math.max(open.length / (graceMs / 1000), minPerSecond);
    const start = Date.now();
    let ended = 0;
    return new Promise((resolve) => {
      const step = () => {
        const elapsed = Date.now() - start;
        const due = elapsed >= graceMs ? open.length : Math.min(open.length, Math.floor(elapsed / intervalMs) + 1);
        while (ended < due) open[ended++]!.stop();
        if (ended >= open.length) return resolve();
        setTimeout(step, intervalMs).unref();
      };
      step();
    });
  }
}
