// Where storage keys live in etcd. kapi's keys start with a root ("/registry/pods/ns/a");
// kube-apiserver keeps the same object at <--etcd-prefix>/pods/ns/a, so the root is replaced by the
// configured prefix and both servers read one layout. With an empty root (tests), the prefix is
// simply prepended, which lets many stores share one etcd without seeing each other's keys.

export class KeyMap {
  constructor(
    /** The etcd prefix keys are stored under ("/registry" by default). */
    private readonly prefix: string,
    /** The root of kapi's keys that the prefix stands for ("/registry"; "" to prepend). */
    private readonly root: string,
  ) {}

  /** The etcd key of a storage key. */
  toEtcd(key: string): Buffer {
    return Buffer.from(this.prefix + this.strip(key), "utf8");
  }

  /** The etcd key range [start, end) of every storage key starting with `prefix`. */
  rangeOf(prefix: string): { key: Buffer; range_end: Buffer } {
    // A prefix that the root itself starts with ("", "/") covers every key under the root.
    const p = this.root && this.root.startsWith(prefix) && prefix !== this.root ? this.prefix + "/" : this.prefix + this.strip(prefix);
    const key = Buffer.from(p, "utf8");
    return { key, range_end: bytePrefixEnd(key) };
  }

  /** The storage key of an etcd key under the prefix. */
  fromEtcd(key: Buffer): string {
    return this.root + key.toString("utf8").slice(this.prefix.length);
  }

  private strip(key: string): string {
    if (!this.root) return key;
    if (!key.startsWith(this.root)) throw new Error(`storage key ${JSON.stringify(key)} is not under ${this.root}`);
    return key.slice(this.root.length);
  }
}

/** etcd's "every key with this prefix" range end: the prefix with its last byte below 0xff incremented ("\0" = to the end). */
export function bytePrefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** The smallest key after `key`, for ranges that start strictly after it (continue). */
export function keyAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0])]);
}
