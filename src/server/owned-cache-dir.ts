// Where kapi keeps what a later start reuses (the command line's V8 code cache, prepared
// bootstrap objects): beside Node's own compile cache (NODE_COMPILE_CACHE, else the temp
// directory) in a directory only this user may write, skipped as Node skips its own under
// NODE_DISABLE_COMPILE_CACHE. What is read from there runs or is stored as this user, so a file
// someone else could have written is never read.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
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

/** The file's content when this user owns it, else undefined. */
export function readOwned(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const st = fstatSync(fd);
    if (st.uid !== (process.getuid?.() ?? 0)) return undefined;
    return readFileSync(fd);
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
