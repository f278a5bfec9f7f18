// The long-running responses (watches) a server has open, so that a graceful stop can end them:
// once closed, a stream registered later (a watch that began while the server drained) is ended
// as soon as it registers, so none outlives the drain.
export interface Stream {
  stop(): void;
}

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
}
