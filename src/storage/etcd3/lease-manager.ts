// Leases for keys written with a TTL, as kube-apiserver's etcd3 store hands them out: granting a
// lease is a consensus write, so one lease is shared by the writes of a short window. A write
// needing `ttl` seconds reuses the last lease while that lease outlives `ttl` from now and
// expires no later than a reuse window after that (5% of the TTL, at most 60 s), and while it
// carries fewer than 1000 keys; otherwise a lease of `ttl` plus the window is granted. So a key
// lives its TTL and at most the window more.
export interface LeaseGranter {
  /** A new lease of `ttlSeconds`; resolves with its id. */
  leaseGrant(ttlSeconds: number): Promise<string>;
}

const reuseWindowSeconds = 60;
const reuseWindowShare = 0.05;
const maxKeysPerLease = 1000;

export class LeaseManager {
  private previous: { id: string; expiresAt: number } | undefined;
  private attached = 0;
  /** A grant under way: concurrent writes wait for it rather than granting their own. */
  private granting: Promise<string> | undefined;

  constructor(
    private readonly client: LeaseGranter,
    private readonly now: () => number = Date.now,
    /** Told of each grant: the keys the last lease carried, the write that outgrew it counted (upstream's lease object count). */
    private readonly onGranted?: (attachedObjects: number) => void,
  ) {}

  async lease(ttlSeconds: number): Promise<string> {
    const window = Math.min(Math.floor(reuseWindowShare * ttlSeconds), reuseWindowSeconds);
    for (;;) {
      const now = this.now();
      const p = this.previous;
      if (p && now + ttlSeconds * 1000 < p.expiresAt && now + (ttlSeconds + window) * 1000 >= p.expiresAt && this.attached < maxKeysPerLease) {
        this.attached++;
        return p.id;
      }
      if (!this.granting) break;
      await this.granting.catch(() => undefined);
    }
    const granted = ttlSeconds + window;
    const grantedAt = this.now();
    this.granting = this.client.leaseGrant(granted);
    try {
      const id = await this.granting;
      this.previous = { id, expiresAt: grantedAt + granted * 1000 };
      this.onGranted?.(this.attached + 1);
      this.attached = 1;
      return id;
    } finally {
      this.granting = undefined;
    }
  }
}
