// The log backend (--audit-log-path): one line per event, json (the Event with kind and
// apiVersion) or legacy (upstream's one-line text), written synchronously as upstream's log writer
// writes. In blocking mode the events of one turn of the event loop are written together at its
// end, in order, in one system call: a RequestReceived event waits for nothing, and the caller of
// a ResponseComplete event gets a promise of the write, so its response is finished only once the
// event is in the file (a burst of requests shares the write instead of paying one each).
// ResponseStarted and Panic are written at once (the head of a watch, a 500, goes out right
// after). blocking-strict and batch write every event at once and say whether it was written.
import type { AuditBackend, PluginErrors } from "./backend.js";
import type { AuditEventRecord } from "./event-record.js";

export type LogFormat = "json" | "legacy";
export const logFormats: readonly LogFormat[] = ["legacy", "json"];

/** Where lines go: the rotating file, or standard output. */
export interface LineSink {
  /** Writes now; throws when it cannot. */
  write(text: string): void;
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
  private pending = "";
  private pendingEvents: AuditEventRecord[] = [];
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
      this.pending += this.o.format === "json" ? ev.jsonLine() : ev.legacy() + "\n";
      this.pendingEvents.push(ev);
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
    if (this.pending !== "") {
      const text = this.pending;
      const events = this.pendingEvents;
      this.pending = "";
      this.pendingEvents = [];
      try {
        this.out.write(text);
      } catch (e) {
        this.o.errors(this.name, e as Error, events);
        ok = false;
      }
    }
    resolve?.(true);
    return ok;
  }

  async shutdown(): Promise<void> {
    this.flush();
    this.out.close();
  }
}

/** --audit-log-path=-: standard output. */
export const stdoutSink: LineSink = {
  write: (text) => void process.stdout.write(text),
  close: () => undefined,
};
