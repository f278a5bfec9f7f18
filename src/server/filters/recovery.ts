// The outermost filter: whatever any later stage throws becomes a metav1.Status here, in the
// encoding the client negotiated — the one place an error leaves the chain. Nothing thrown
// escapes to the listener, so no request can bring the process down.
import { type ApiError } from "../../apimachinery/errors.js";
import type { CodecSet } from "../../encoding/negotiate.js";
import { isPretty } from "../../handlers/context.js";
import { writeStatus } from "../../http/respond.js";
import type { Filter } from "./filter.js";

export interface RecoveryOptions {
  /**
   * The one conversion of a thrown value to an ApiError: ApiErrors as they are, known domain
   * errors to their Status, anything else to 500 InternalError.
   */
  toApiError: (thrown: unknown) => ApiError;
  codecs: CodecSet;
  /** Where internal errors (500) are reported. */
  log?: (message: string, thrown: unknown) => void;
}

export function recoveryFilter(o: RecoveryOptions): Filter {
  const log = o.log ?? ((message, thrown) => console.error(message, thrown));
  // Not async: a request that succeeds costs this stage one promise reaction, not a frame.
  return (ctx, next) => {
    // The exchange as it arrived: stages after the deadline filter may hold a quieted one.
    const ex = ctx.ex;
    const recover = (thrown: unknown): void => {
      const e = o.toApiError(thrown);
      if (e.code === 500) log("kapi: internal error:", thrown);
      if (ex.headersSent || ex.closed) {
        // Too late for a Status: end what was started so the client is not left waiting.
        ex.end();
        return;
      }
      try {
        writeStatus(ex, e, o.codecs, { pretty: isPretty(ex), warnings: ctx.warnings });
      } catch (failed) {
        log("kapi: could not write an error response:", failed);
        ex.abort();
      }
    };
    let handled: Promise<void>;
    try {
      handled = next(ctx);
    } catch (thrown) {
      recover(thrown);
      return Promise.resolve();
    }
    return handled.then(undefined, recover);
  };
}
