// An exchange whose response is held back instead of sent: the "committed but answered with a
// timeout" fault lets the handler write as usual, then answers the client 504 when the write
// succeeded, or sends the held answer when it did not (nothing was committed, so nothing is hidden).
import type { Exchange } from "../http/exchange.js";
import { QuietableExchange } from "../http/quiet-exchange.js";

export class HeldExchange extends QuietableExchange {
  private heldStatus = 0;
  private heldHeaders: Record<string, string | number | string[]> = {};
  private readonly chunks: (Buffer | string)[] = [];

  constructor(private readonly real: Exchange) {
    super(real);
  }

  override get headersSent(): boolean {
    return this.heldStatus !== 0;
  }
  override get status(): number {
    return this.heldStatus;
  }
  override head(status: number, headers: Record<string, string | number | string[]>): void {
    this.heldStatus = status;
    this.heldHeaders = headers;
  }
  override write(chunk: Buffer | string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  override end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.chunks.push(chunk);
  }
  override abort(): void {
    this.real.abort();
  }

  /** Sends what the handler wrote, as it wrote it. */
  release(): void {
    if (this.heldStatus === 0 || this.real.headersSent || this.real.closed) return;
    this.real.head(this.heldStatus, this.heldHeaders);
    for (const c of this.chunks) this.real.write(c);
    this.real.end();
  }
}
