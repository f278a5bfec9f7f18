// Leader election for the in-process controllers (upstream: client-go tools/leaderelection, as
// kube-controller-manager runs it over a coordination.k8s.io/v1 Lease). Every replica is a
// candidate; the one whose identity the lock's record holds leads until it fails to renew.
//
// The rules kept from upstream:
// - a lease counts as held for leaseDuration after this candidate last SAW its record change, on
//   its own clock (never the renewTime written by another machine, so clock skew does not matter);
// - an acquisition that takes the record from another holder counts one more transition and sets
//   acquireTime; a renewal keeps both;
// - every write is optimistic (the lock writes over the version it last read or wrote), so two
//   candidates racing for an expired lease cannot both win;
// - a leader that has not renewed within renewDeadline stops leading at once, before any other
//   candidate may take over (renewDeadline < leaseDuration);
// - attempts are retryPeriod apart, jittered by up to 1.2 × retryPeriod while acquiring.
// One difference: kube-controller-manager exits when it loses the lease; kapi's API server keeps
// serving, so the elector stops the work (onStoppedLeading) and becomes a candidate again.

/** What the lock stores (upstream LeaderElectionRecord; times are MicroTime strings). */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** Where the record lives (resourcelock.Interface). */
export interface ResourceLock {
  readonly identity: string;
  /** For logs: namespace/name. */
  describe(): string;
  /** The record and its raw form, or undefined when the lock object does not exist; throws on any other failure. */
  get(): Promise<{ record: LeaderElectionRecord; raw: string } | undefined>;
  create(record: LeaderElectionRecord): Promise<void>;
  /** Writes over the version last read or written; throws when another write came between. */
  update(record: LeaderElectionRecord): Promise<void>;
}

export interface ElectionClock {
  now(): number;
  /** Resolves after ms, or at once when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface ElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** kube-controller-manager's defaults (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export const defaultElectionTimings: ElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export const jitterFactor = 1.2;

/** Upstream NewLeaderElector's checks, in its order and wording. */
export function electionTimingsError(t: ElectionTimings): string | undefined {
  if (t.leaseDurationMs <= t.renewDeadlineMs) return "leaseDuration must be greater than renewDeadline";
  if (t.renewDeadlineMs <= jitterFactor * t.retryPeriodMs) return "renewDeadline must be greater than retryPeriod*JitterFactor";
  if (t.leaseDurationMs < 1) return "leaseDuration must be greater than zero";
  if (t.renewDeadlineMs < 1) return "renewDeadline must be greater than zero";
  if (t.retryPeriodMs < 1) return "retryPeriod must be greater than zero";
  return undefined;
}

export interface LeaderCallbacks {
  /** This candidate now leads: start the work. */
  onStartedLeading(): void;
  /** It no longer does (renewal failed, or stop): stop the work at once. */
  onStoppedLeading(): void;
  /** The holder this candidate observes changed ("" when the lease was released). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectorConfig {
  lock: ResourceLock;
  timings: ElectionTimings;
  callbacks: LeaderCallbacks;
  clock?: ElectionClock;
  /** [0, 1): the jitter. */
  random?: () => number;
  log?(msg: string): void;
}

export const realClock: ElectionClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
    }),
};

/** metav1.MicroTime's wire form: RFC 3339 with microseconds, UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class LeaderElector {
  private readonly lock: ResourceLock;
  private readonly timings: ElectionTimings;
  private readonly clock: ElectionClock;
  private readonly random: () => number;
  private readonly stopping = new AbortController();
  private observed: LeaderElectionRecord | undefined;
  private observedRaw: string | undefined;
  private observedTime = 0;
  private reportedLeader = "";
  private leading = false;
  private running = false;
  private tried = false;
  private firstTry!: () => void;
  /** Resolves once the first attempt to acquire has finished (leading or not), or at stop. */
  readonly firstAttempt = new Promise<void>((r) => (this.firstTry = () => {
    this.tried = true;
    r();
  }));

  constructor(private readonly config: LeaderElectorConfig) {
    const err = electionTimingsError(config.timings);
    if (err) throw new Error(err);
    this.lock = config.lock;
    this.timings = config.timings;
    this.clock = config.clock ?? realClock;
    this.random = config.random ?? Math.random;
  }

  get identity(): string {
    return this.lock.identity;
  }

  /** The holder last observed ("" for none). */
  leader(): string {
    return this.observed?.holderIdentity ?? "";
  }

  firstAttemptDone(): boolean {
    return this.tried;
  }

  /** Whether the work runs here now. */
  isLeading(): boolean {
    return this.leading;
  }

  run(): void {
    if (this.running) return;
    this.running = true;
    this.elect().catch((e) => this.log(`leader election stopped: ${(e as Error)?.stack ?? String(e)}`));
  }

  /**
   * Ends the election; a leader stops its work at once. The lease is not released (as
   * kube-controller-manager): another candidate takes it once it expires. An attempt still in
   * flight (a store that does not answer) is left to end by itself.
   */
  stop(): void {
    this.stopping.abort();
    this.stopLeading();
    this.firstTry();
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async elect(): Promise<void> {
    while (!this.stopped) {
      if (!(await this.acquire())) return;
      this.leading = true;
      this.log(`${this.lock.identity} successfully acquired lease ${this.lock.describe()}`);
      this.config.callbacks.onStartedLeading();
      this.firstTry(); // after the work started: whoever waits on the first attempt sees it
      await this.renewWhileLeading();
      this.stopLeading();
    }
  }

  private stopLeading(): void {
    if (!this.leading) return;
    this.leading = false;
    this.config.callbacks.onStoppedLeading();
  }

  /** wait.JitterUntil(tryAcquireOrRenew, retryPeriod, 1.2, sliding): true once acquired, false when stopped. */
  private async acquire(): Promise<boolean> {
    this.log(`attempting to acquire leader lease ${this.lock.describe()}...`);
    while (!this.stopped) {
      const acquired = await this.tryAcquireOrRenew();
      this.reportTransition();
      if (acquired && !this.stopped) return true;
      this.firstTry();
      const { retryPeriodMs } = this.timings;
      await this.clock.sleep(retryPeriodMs + this.random() * jitterFactor * retryPeriodMs, this.stopping.signal);
    }
    return false;
  }

  /** Renews every retryPeriod; returns when a round fails to renew within renewDeadline, or at stop. */
  private async renewWhileLeading(): Promise<void> {
    while (!this.stopped) {
      const renewed = await this.renewWithinDeadline();
      this.reportTransition();
      if (this.stopped) return;
      if (!renewed) {
        this.log(`failed to renew lease ${this.lock.describe()}: timed out waiting for the condition`);
        return;
      }
      await this.clock.sleep(this.timings.retryPeriodMs, this.stopping.signal);
    }
  }

  /** wait.PollImmediateUntil(retryPeriod) bounded by renewDeadline: a try still running at the deadline is a failure. */
  private async renewWithinDeadline(): Promise<boolean> {
    const deadline = this.clock.now() + this.timings.renewDeadlineMs;
    const timeUp = new AbortController();
    const onStop = () => timeUp.abort();
    this.stopping.signal.addEventListener("abort", onStop);
    try {
      const expired = this.clock.sleep(this.timings.renewDeadlineMs, timeUp.signal).then(() => false);
      while (!timeUp.signal.aborted) {
        const renewed = await Promise.race([this.tryAcquireOrRenew(), expired]);
        if (renewed) return true;
        const left = deadline - this.clock.now();
        if (left <= 0) return false;
        await Promise.race([this.clock.sleep(Math.min(this.timings.retryPeriodMs, left), timeUp.signal), expired]);
        if (this.clock.now() >= deadline) return false;
      }
      return false;
    } finally {
      timeUp.abort();
      this.stopping.signal.removeEventListener("abort", onStop);
    }
  }

  private holdsObserved(): boolean {
    return this.observed?.holderIdentity === this.lock.identity;
  }

  private leaseValid(now: number): boolean {
    return this.observedTime + this.timings.leaseDurationMs > now;
  }

  /** Our own writes leave the raw form as last read: the next read then counts as a change seen. */
  private setObserved(record: LeaderElectionRecord, raw?: string): void {
    this.observed = record;
    if (raw !== undefined) this.observedRaw = raw;
    this.observedTime = this.clock.now();
  }

  /** One attempt (upstream tryAcquireOrRenew): true when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const stamp = microTime(now);
    const desired: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: Math.floor(this.timings.leaseDurationMs / 1000),
      acquireTime: stamp,
      renewTime: stamp,
      leaseTransitions: 0,
    };
    // The leader's fast path: write over the version it last wrote, no read first.
    if (this.holdsObserved() && this.leaseValid(now)) {
      const renewal = { ...desired, acquireTime: this.observed!.acquireTime, leaseTransitions: this.observed!.leaseTransitions };
      try {
        await this.lock.update(renewal);
        this.setObserved(renewal);
        return true;
      } catch (e) {
        this.log(`failed to update lock optimistically: ${(e as Error).message}, falling back to slow path`);
      }
    }
    let current: Awaited<ReturnType<ResourceLock["get"]>>;
    try {
      current = await this.lock.get();
    } catch (e) {
      this.log(`error retrieving resource lock ${this.lock.describe()}: ${(e as Error).message}`);
      return false;
    }
    if (!current) {
      try {
        await this.lock.create(desired);
      } catch (e) {
        this.log(`error initially creating leader election record: ${(e as Error).message}`);
        return false;
      }
      this.setObserved(desired);
      return true;
    }
    if (current.raw !== this.observedRaw) this.setObserved(current.record, current.raw);
    if (current.record.holderIdentity !== "" && this.leaseValid(now) && !this.holdsObserved()) return false;
    const next = this.holdsObserved()
      ? { ...desired, acquireTime: current.record.acquireTime, leaseTransitions: current.record.leaseTransitions }
      : { ...desired, leaseTransitions: current.record.leaseTransitions + 1 };
    try {
      await this.lock.update(next);
    } catch (e) {
      this.log(`failed to update lock: ${(e as Error).message}`);
      return false;
    }
    this.setObserved(next);
    return true;
  }

  private reportTransition(): void {
    const holder = this.leader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.config.callbacks.onNewLeader?.(holder);
  }

  private log(msg: string): void {
    if (!this.stopped) this.config.log?.(`kapi: leader election: ${msg}`);
  }
}
