// kube-apiserver's etcd health probe: a read of <prefix>/health within the check's timeout, at
// most one every half timeout; a check asked for in between answers the last probe's result, so
// frequent /readyz polling cannot flood an etcd that is already struggling.
export class HealthProbe {
  private last: string | undefined = "etcd client connection not yet established";
  private lastAt = 0;
  private inFlight: Promise<string | undefined> | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly probe: (timeoutMs: number) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  check(): Promise<string | undefined> {
    if (this.inFlight) return this.inFlight;
    if (this.lastAt && this.now() - this.lastAt < this.timeoutMs / 2) return Promise.resolve(this.last);
    this.lastAt = this.now();
    this.inFlight = this.probe(this.timeoutMs).then(
      () => undefined,
      (e: Error) => `error getting data from etcd: ${e.message}`,
    );
    return this.inFlight.then((r) => {
      this.last = r;
      this.inFlight = undefined;
      return r;
    });
  }
}
