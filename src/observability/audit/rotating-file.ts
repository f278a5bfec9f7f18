// The audit log file with kube-apiserver's rotation (upstream writes through lumberjack, whose
// behaviour this keeps): --audit-log-maxsize megabytes per file (0: 100), the full file renamed
// to <name>-<UTC time as 2006-01-02T15-04-05.000><ext> before a write would overflow it; then
// old files beyond --audit-log-maxbackup (0: all kept) or older than --audit-log-maxage days
// (0: kept) removed, the others gzipped with --audit-log-compress.
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { LineSink } from "./log-backend.js";

export interface RotationOptions {
  maxSizeMB: number;
  maxBackups: number;
  maxAgeDays: number;
  compress: boolean;
}

const megabyte = 1024 * 1024;
const newline = 0x0a;
const defaultMaxSizeMB = 100;
const dayMs = 24 * 60 * 60 * 1000;

export class RotatingFile implements LineSink {
  private fd: number | undefined;
  private size = 0;
  private milling: Promise<void> | undefined;
  private millAgain = false;
  private readonly dir: string;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(
    readonly path: string,
    private readonly o: RotationOptions,
    private readonly now: () => number = Date.now,
    private readonly report: (message: string) => void = () => undefined,
  ) {
    this.dir = dirname(path);
    this.ext = extname(path);
    this.prefix = basename(path, this.ext) + "-";
  }

  private get max(): number {
    return (this.o.maxSizeMB > 0 ? this.o.maxSizeMB : defaultMaxSizeMB) * megabyte;
  }

  /** Writes `text` (whole lines); several lines that would not fit go one by one, as separate writes would. */
  write(text: string): void {
    this.writeBytes(Buffer.from(text));
  }

  /** write() of the lines' bytes (written before it returns). */
  writeBytes(bytes: Buffer): void {
    const n = bytes.length;
    const firstEnd = bytes.indexOf(newline);
    if (this.size + n > this.max && firstEnd >= 0 && firstEnd < n - 1) {
      for (let start = 0; start < n; ) {
        const end = bytes.indexOf(newline, start);
        const stop = end < 0 ? n : end + 1;
        this.writeBytes(bytes.subarray(start, stop));
        start = stop;
      }
      return;
    }
    if (n > this.max) throw new Error(`write length ${n} exceeds maximum file size ${this.max}`);
    if (this.fd === undefined) this.openExistingOrNew(n);
    else if (this.size + n > this.max) this.rotate();
    writeSync(this.fd!, bytes);
    this.size += n;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private openExistingOrNew(writeLen: number): void {
    this.mill();
    if (!existsSync(this.path)) return this.openNew();
    const size = statSync(this.path).size;
    if (size + writeLen >= this.max) return this.rotate();
    try {
      this.fd = openSync(this.path, "a");
      this.size = size;
    } catch {
      this.openNew();
    }
  }

  private rotate(): void {
    this.close();
    this.openNew();
    this.mill();
  }

  /** Moves the current file aside (keeping its mode) and starts an empty one. */
  private openNew(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    let mode = 0o600;
    if (existsSync(this.path)) {
      mode = statSync(this.path).mode & 0o777;
      renameSync(this.path, join(this.dir, `${this.prefix}${backupTime(this.now())}${this.ext}`));
    }
    this.fd = openSync(this.path, "w", mode);
    this.size = fstatSync(this.fd).size;
  }

  /**
   * Removes the backups past the count or the age, and compresses the rest when asked. One at a
   * time, as lumberjack's mill: a rotation while backups are being compressed mills once they are.
   */
  private mill(): void {
    if (this.milling) {
      this.millAgain = true;
      return;
    }
    const { maxBackups, maxAgeDays, compress } = this.o;
    if (maxBackups === 0 && maxAgeDays === 0 && !compress) return;
    let files = this.backups();
    const remove: string[] = [];
    if (maxBackups > 0 && maxBackups < files.length) {
      const preserved = new Set<string>();
      const remaining: typeof files = [];
      for (const f of files) {
        preserved.add(f.name.replace(/\.gz$/, ""));
        if (preserved.size > maxBackups) remove.push(f.name);
        else remaining.push(f);
      }
      files = remaining;
    }
    if (maxAgeDays > 0) {
      const cutoff = this.now() - maxAgeDays * dayMs;
      const remaining: typeof files = [];
      for (const f of files) {
        if (f.time < cutoff) remove.push(f.name);
        else remaining.push(f);
      }
      files = remaining;
    }
    for (const name of remove) {
      try {
        unlinkSync(join(this.dir, name));
      } catch (e) {
        this.report(`audit log: removing ${name}: ${(e as Error).message}`);
      }
    }
    const plain = compress ? files.filter((f) => !f.name.endsWith(".gz")) : [];
    if (plain.length === 0) return;
    this.milling = Promise.all(plain.map((f) => this.gzip(f.name))).then(() => {
      this.milling = undefined;
      if (!this.millAgain) return;
      this.millAgain = false;
      this.mill();
    });
  }

  /** Resolves once the backups being compressed are (tests; the server never waits). */
  async settled(): Promise<void> {
    while (this.milling) await this.milling;
  }

  /** Backups of this file, newest first (by the time in their names). */
  private backups(): { name: string; time: number }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: { name: string; time: number }[] = [];
    for (const name of names) {
      const base = name.endsWith(this.ext + ".gz") ? name.slice(0, -3) : name;
      if (!base.startsWith(this.prefix) || !base.endsWith(this.ext)) continue;
      const time = parseBackupTime(base.slice(this.prefix.length, base.length - this.ext.length));
      if (time !== undefined) out.push({ name, time });
    }
    return out.sort((a, b) => b.time - a.time);
  }

  private gzip(name: string): Promise<void> {
    const from = join(this.dir, name);
    return pipeline(createReadStream(from), process.getBuiltinModule("node:zlib").createGzip(), createWriteStream(from + ".gz", { mode: statSync(from).mode & 0o777 }))
      .then(() => unlinkSync(from))
      .catch((e: Error) => this.report(`audit log: compressing ${name}: ${e.message}`));
  }
}

/** lumberjack's backup time format, 2006-01-02T15-04-05.000 in UTC. */
export function backupTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace(/:/g, "-");
}

function parseBackupTime(s: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(s);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(t) ? undefined : t;
}
