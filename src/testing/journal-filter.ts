// The journal's seam in the request path: the outermost filter, so it sees each request's final
// answer (errors included, written by the recovery filter inside it) and, through the watch tap,
// each event a watch sends.
import type { RequestContext } from "../http/context.js";
import type { WatchEventNote, WatchTap } from "../http/watch-tap.js";
import type { Filter } from "../server/filters/filter.js";
import type { Journal, JournalEntry } from "./journal.js";

export function journalFilter(journal: Journal): Filter {
  return (ctx, next) => {
    const started = performance.now();
    const ex = ctx.ex;
    const recorder = new EventRecorder(journal);
    ctx.watchTap = recorder;
    const done = () => {
      if (ctx.info?.verb === "watch") recorder.events ??= [];
      recorder.entry = journal.record(entryOf(ctx, ex.status, performance.now() - started, recorder.events));
    };
    return next(ctx).then(done, (e: unknown) => {
      done();
      throw e;
    });
  };
}

/** Keeps a watch's events on its entry, up to the journal's bound, before and after the entry is recorded. */
class EventRecorder implements WatchTap {
  events: WatchEventNote[] | undefined;
  entry: JournalEntry | undefined;

  constructor(private readonly journal: Journal) {}

  sent(event: WatchEventNote): undefined {
    const events = (this.events ??= []);
    if (this.entry && !this.entry.events) this.entry.events = events;
    if (events.length < this.journal.eventCapacity) events.push(event);
    else if (this.entry) this.entry.eventsDropped = (this.entry.eventsDropped ?? 0) + 1;
    if (this.entry) this.journal.changed(this.entry);
    return undefined;
  }
}

function entryOf(ctx: RequestContext, code: number, durationMs: number, events: WatchEventNote[] | undefined): Omit<JournalEntry, "seq"> {
  const info = ctx.info;
  const q = ctx.ex.query;
  const method = ctx.ex.method;
  const entry: Omit<JournalEntry, "seq"> = {
    time: new Date(ctx.receivedAt).toISOString(),
    method,
    path: ctx.ex.path,
    verb: info?.verb ?? method.toLowerCase(),
    apiGroup: info?.apiGroup ?? "",
    apiVersion: info?.apiVersion ?? "",
    resource: info?.resource ?? "",
    subresource: info?.subresource ?? "",
    namespace: info?.namespace ?? "",
    name: info?.name ?? "",
    user: ctx.user?.name ?? "",
    fieldManager: q.get("fieldManager") ?? "",
    dryRun: q.getAll("dryRun").includes("All"),
    patchType: method === "PATCH" ? mediaTypeOf(ctx.ex.headers["content-type"]) : "",
    code,
    durationMs: Math.round(durationMs * 1000) / 1000,
  };
  if (ctx.fault !== undefined) entry.fault = ctx.fault;
  if (events) entry.events = events;
  return entry;
}

function mediaTypeOf(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return (v ?? "").split(";")[0]!.trim();
}
