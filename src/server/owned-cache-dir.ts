// Where kapi keeps what a later start reuses (the command line's V8 code cache, prepared
// bootstrap objects): beside Node's own compile cache (NODE_COMPILE_CACHE, else the temp
// directory) in a directory only this user may write, skipped as Node skips its own under
// NODE_DISABLE_COMPILE_CACHE. What is read from there runs or is stored as this user, so a file
// someone else could have written is never read.
//
// Every file there is named after the build of kapi that made it (its bundle's content hash,
// then "-"): a build's files are kept while it is among the few used most recently, so rebuilding
// or upgrading kapi does not fill the disk with the caches of builds nobody runs any more.
import { closeSync, fstatSync, futimesSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directory, made when missing, or undefined (nothing kept then). */
export function ownedCacheDir(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const uid = process.getuid?.() ?? 0;
  const dir = join(process.env.NODE_COMPILE_CACHE || join(tmpdir(), "node-compile-cache"), `kapi-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (st.uid !== uid || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

const touchEveryMs = 3600_000;
/** How many builds' files are kept (the current one among them): a checkout has two (the command line's and the library's bundle). */
export const keptBuilds = 6;
/** A writer's temporary file left behind (a crash between write and rename) goes after a day. */
const staleTemporaryMs = 24 * 3600_000;

/** The file's content when this user owns it, else undefined. */
export function readOwned(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const st = fstatSync(fd);
    if (st.uid !== (process.getuid?.() ?? 0)) return undefined;
    const data = readFileSync(fd);
    // Marks the file in use (what pruneOtherBuilds keeps by), at most once an hour.
    if (Date.now() - st.mtimeMs > touchEveryMs) futimesSync(fd, st.atime, new Date());
    return data;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Replaces the file at once (a name of its own per writer first: worker threads share the pid); false when it could not. */
export function writeOwned(path: string, data: string | NodeJS.ArrayBufferView): boolean {
  try {
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the files of every build but the `keep` used most recently (by their newest
 * modification: a file read is marked), `current` among them whatever its age. Called when a
 * build writes a file, which a new build does on its first start. Errors are ignored: a file
 * another process removed first, or one that cannot be removed, is left.
 */
export function pruneOtherBuilds(dir: string, current: string, keep = keptBuilds): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const newest = new Map<string, number>();
  const files: { name: string; build: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const build = /^([0-9a-f]{8,64})-/.exec(name)?.[1];
    if (!build) continue;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(join(dir, name)).mtimeMs;
    } catch {
      continue;
    }
    files.push({ name, build, mtimeMs });
    newest.set(build, Math.max(newest.get(build) ?? 0, mtimeMs));
  }
  const others = [...newest].filter(([b]) => b !== current).sort((a, b) => b[1] - a[1]);
  const kept = new Set([current, ...others.slice(0, Math.max(0, keep - 1)).map(([b]) => b)]);
  const now = Date.now();
  for (const f of files) {
    const stale = !kept.has(f.build) || (f.name.endsWith(".tmp") && now - f.mtimeMs > staleTemporaryMs);
    if (stale) rmSync(join(dir, f.name), { force: true });
  }
}
