// The log backend (--audit-log-path): one line per event, json (the Event with kind and
// apiVersion) or legacy (upstream's one-line text), written synchronously as upstream's log writer
// writes. In blocking mode the events of one turn of the event loop are written together at its
// end, in order, in one system call: a RequestReceived event waits for nothing, and the caller of
// a ResponseComplete event gets a promise of the write, so its response is finished only once the
// event is in the file (a burst of requests shares the write instead of paying one each).
// ResponseStarted and Panic are written at once (the head of a watch, a 500, goes out right
// after). blocking-strict and batch write every event at once and say whether it was written.
// A sink that takes bytes gets the events' lines encoded as they come into one reused buffer:
// joined into one string first, a turn's events make a rope of thousands of pieces that is
// flattened, measured and copied into a new buffer at every write.
import type { AuditBackend, PluginErrors } from "./backend.js";
import type { AuditEventRecord } from "./event-record.js";

export type LogFormat = "json" | "legacy";
export const logFormats: readonly LogFormat[] = ["legacy", "json"];

/** Where lines go: the rotating file, or standard output. */
export interface LineSink {
  /** Writes now; throws when it cannot. */
  write(text: string): void;
  /** The same with the lines' UTF-8 bytes, which are the caller's again once it returns (a sink that writes synchronously). */
  writeBytes?(bytes: Buffer): void;
  close(): void;
}

export interface LogBackendOptions {
  format: LogFormat;
  /** blocking mode: events of a turn written together at its end (see above); a failure is only counted. */
  groupCommit: boolean;
  errors: PluginErrors;
}

export class LogBackend implements AuditBackend {
  readonly name = "log";
  private pendingEvents: AuditEventRecord[] = [];
  /** Where a writeBytes sink's lines are encoded as their events come (grown as needed; see encode), and how much of it is pending. */
  private scratch = Buffer.allocUnsafe(initialScratchBytes);
  private encoded = 0;
  private scheduled = false;
  /** The write the turn's ResponseComplete events wait for. */
  private written: Promise<boolean> | undefined;
  private resolveWritten: ((ok: boolean) => void) | undefined;

  constructor(
    private readonly out: LineSink,
    private readonly o: LogBackendOptions,
  ) {}

  processEvents(events: readonly AuditEventRecord[]): boolean | Promise<boolean> {
    for (const ev of events) {
      this.pendingEvents.push(ev);
      if (this.out.writeBytes) this.encode(ev);
    }
    if (!this.o.groupCommit) return this.flush();
    let waits = false;
    for (const ev of events) {
      if (ev.stage === "ResponseStarted" || ev.stage === "Panic") return (this.flush(), true);
      if (ev.stage === "ResponseComplete") waits = true;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (!waits) return true;
    return (this.written ??= new Promise<boolean>((resolve) => (this.resolveWritten = resolve)));
  }

  /** Writes what is pending; whether it was written (blocking mode's waiters are told it was, as a failure does not fail their requests). */
  private flush(): boolean {
    this.scheduled = false;
    const resolve = this.resolveWritten;
    this.written = undefined;
    this.resolveWritten = undefined;
    let ok = true;
    if (this.pendingEvents.length > 0) {
      const events = this.pendingEvents;
      this.pendingEvents = [];
      try {
        if (this.out.writeBytes) this.out.writeBytes(this.scratch.subarray(0, this.encoded));
        else this.out.write(events.map((ev) => this.line(ev)).join(""));
      } catch (e) {
        this.o.errors(this.name, e as Error, events);
        ok = false;
      }
      this.encoded = 0;
      // A burst once grew it: it does not stay that large.
      if (this.scratch.length > maxKeptScratchBytes) this.scratch = Buffer.allocUnsafe(initialScratchBytes);
    }
    resolve?.(true);
    return ok;
  }

  private line(ev: AuditEventRecord): string {
    return this.o.format === "json" ? ev.jsonLine() : ev.legacy() + "\n";
  }

  /**
   * Adds the event's line, as UTF-8, to the scratch buffer. Encoded as it comes, the event's text
   * (a rope of the pieces it was made of) is flattened while young, and what waits for the write
   * is bytes outside the heap rather than strings the collector copies.
   */
  private encode(ev: AuditEventRecord): void {
    const legacy = this.o.format === "json" ? undefined : ev.legacy() + "\n";
    // At most 3 bytes for each UTF-16 unit.
    const room = 3 * (legacy === undefined ? ev.jsonLineLength() : legacy.length);
    const at = this.encoded;
    if (this.scratch.length - at < room) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.scratch.length, at + room));
      this.scratch.copy(grown, 0, 0, at);
      this.scratch = grown;
    }
    this.encoded = legacy === undefined ? ev.writeJsonLine(this.scratch, at) : at + this.scratch.write(legacy, at);
  }

  async shutdown(): Promise<void> {
    this.flush();
    this.out.close();
  }
}

const initialScratchBytes = 64 * 1024;
const maxKeptScratchBytes = 1024 * 1024;

/** --audit-log-path=-: standard output. */
export const stdoutSink: LineSink = {
  write: (text) => void process.stdout.write(text),
  close: () => undefined,
};
