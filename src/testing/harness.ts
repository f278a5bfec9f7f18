// The test harness of one server: its call journal and its fault rules, the two filters that feed
// and apply them, and what the fault filter reads of the running server. `startServer` and
// `kapi testenv` make one per server; a plain `kapi serve` has none and pays nothing.
import type { RunningServer } from "../server/start.js";
import { HarnessInputError } from "./input-error.js";
import { faultFilter, type FaultEnvironment } from "./fault-filter.js";
import { FaultInjector } from "./faults.js";
import { Journal, type JournalEntry, type JournalMatch, type JournalOptions, type JournalPredicate, type WaitOptions } from "./journal.js";
import { journalFilter } from "./journal-filter.js";
import type { Filter } from "../server/filters/filter.js";

export interface HarnessOptions {
  /** The call journal (default on); false leaves it out of the request path. */
  journal?: boolean | JournalOptions;
  /** Fault injection (default on); false leaves it out of the request path. */
  faults?: boolean;
}

export class TestHarness {
  readonly journal: Journal;
  readonly faults: FaultInjector;
  readonly journalOn: boolean;
  readonly faultsOn: boolean;
  private env: FaultEnvironment | undefined;

  constructor(o: HarnessOptions = {}) {
    this.journalOn = o.journal !== false;
    this.faultsOn = o.faults !== false;
    this.journal = new Journal(typeof o.journal === "object" ? o.journal : {});
    this.faults = new FaultInjector();
  }

  /** The filters for ChainConfig.harness (only those switched on). */
  filters(): { observe?: Filter; inject?: Filter } {
    return {
      ...(this.journalOn ? { observe: journalFilter(this.journal) } : {}),
      ...(this.faultsOn ? { inject: faultFilter(this.faults, () => this.env ?? notAttached()) } : {}),
    };
  }

  /** Binds the fault filter to the server it runs in (done once the server has started). */
  attach(s: Pick<RunningServer, "parts">): void {
    const { types, stores } = s.parts;
    this.env = {
      kindOf: (info) => types.get(info.apiGroup, info.apiVersion, info.resource)?.kind,
      currentRevision: () => stores.currentRevision(),
    };
  }

  /** Waits for a journal entry (see Journal.waitFor); refused at once when the journal is off. */
  waitFor(query: JournalMatch | JournalPredicate, o?: WaitOptions): Promise<JournalEntry> {
    if (!this.journalOn) return Promise.reject(new HarnessInputError("waitFor: the call journal is off for this server (started with journal: false)"));
    return this.journal.waitFor(query, o);
  }
}

function notAttached(): never {
  throw new Error("fault injection ran before its server was attached");
}
