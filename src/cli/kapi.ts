#!/usr/bin/env node
// The `kapi` command's entry (the bundle's bin): turns on Node's on-disk compile cache before the
// command's code is loaded, so a second start skips compiling the bundle (measured on Node 24:
// loading it costs ~70 ms of CPU instead of ~100). Node 20 has no such cache: there it is a no-op.
// The cache lives where Node keeps it (NODE_COMPILE_CACHE, else the temp directory) and Node's
// NODE_DISABLE_COMPILE_CACHE turns it off.
import module from "node:module";

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import("./main.js");
