// A large response body written as the client takes it: each piece is asked of the source only
// when the connection has room (the exchange's backpressure, HTTP/1.1 and HTTP/2 alike), so the
// process holds about a socket buffer of it at a time instead of the whole body. Gzipped bodies
// go through one compressor, fed at the pace its output drains. A client that leaves stops it.
import { gzipStream } from "../encoding/gzip.js";
import type { Exchange } from "./exchange.js";

/**
 * Bytes let wait in the connection's buffers before the next piece waits for them to drain: a
 * socket buffer's worth would stall the stream at every drain; this keeps it busy.
 */
const aheadBytes = 256 * 1024;
const gzipBatchBytes = 64 * 1024;

/** Writes `first`, then every piece `rest` gives, then ends the response (head already sent). */
export async function streamBody(ex: Exchange, first: readonly Buffer[], rest: Iterator<Buffer>, gzip: boolean): Promise<void> {
  let closed = ex.closed;
  // One close listener for the whole body; each wait registers its wake-up here, not on the exchange.
  let wake: (() => void) | undefined;
  ex.onClose(() => {
    closed = true;
    wake?.();
  });
  const until = (start: (done: () => void) => void): Promise<void> =>
    closed
      ? Promise.resolve()
      : new Promise<void>((done) => {
          wake = done;
          start(done);
        });
  const drained = () => until((done) => void ex.drained().then(done));
  const pieces = function* () {
    yield* first;
    for (let r = rest.next(); !r.done; r = rest.next()) yield r.value;
  };

  if (!gzip) {
    // Corked between waits: the pieces written in one go leave as one write request (see Exchange.cork).
    let corked = false;
    for (const c of pieces()) {
      if (closed) break;
      if (!corked) (ex.cork?.(), (corked = true));
      if (!ex.write(c) && ex.pending() >= aheadBytes) {
        ex.uncork?.();
        corked = false;
        await drained();
      }
    }
    if (corked) ex.uncork?.();
    // Also after the client left: ending frees a stream it reset (exchange.ts).
    ex.end();
    return;
  }
  const z = gzipStream();
  let full = false;
  z.on("data", (c: Buffer) => {
    if (!closed && !ex.write(c)) full = true;
  });
  // The compressor fails only when the process does (out of memory): the client sees a cut body.
  const ended = new Promise<void>((done) => {
    z.once("end", done);
    z.once("error", () => {
      ex.abort();
      done();
    });
  });
  // The compressor takes each write to the thread pool and back: pieces go in by the batch.
  const batch: Buffer[] = [];
  let batched = 0;
  const feed = async (b: Buffer) => {
    if (!z.write(b)) await until((done) => z.once("drain", done));
    if (full) {
      full = false;
      await drained();
    }
  };
  for (const c of pieces()) {
    if (closed) break;
    batch.push(c);
    batched += c.length;
    if (batched < gzipBatchBytes) continue;
    await feed(Buffer.concat(batch, batched));
    batch.length = 0;
    batched = 0;
  }
  if (batched > 0 && !closed) await feed(Buffer.concat(batch, batched));
  if (closed) z.destroy();
  else {
    z.end();
    await until((done) => void ended.then(done));
  }
  ex.end();
}
