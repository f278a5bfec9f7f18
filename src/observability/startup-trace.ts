// Opt-in start-up timing (KAPI_STARTUP_TRACE=1): how long each start-up phase took, printed to
// stderr once the server listens, so a slow start can be attributed without a profiler.

export interface StartupTrace {
  /** Ends the phase running since the previous mark (or since the trace began) under this name. */
  mark(phase: string): void;
  /** Prints the phases; nothing when the trace is off. */
  done(): void;
}

/** Phase → milliseconds, in order, with the time the process had run before the trace began. */
export interface StartupPhases {
  beforeStartMs: number;
  phases: [string, number][];
}

export function formatStartupPhases(p: StartupPhases): string {
  const total = p.phases.reduce((s, [, ms]) => s + ms, 0);
  const rows = [["process start to startApiServer (node, module loading)", p.beforeStartMs] as [string, number], ...p.phases, ["total since process start", p.beforeStartMs + total] as [string, number]];
  return rows.map(([name, ms]) => `kapi: startup: ${ms.toFixed(1).padStart(7)} ms  ${name}\n`).join("");
}

export function startupTrace(enabled: boolean, write: (text: string) => void = (t) => process.stderr.write(t)): StartupTrace {
  if (!enabled) return { mark: () => undefined, done: () => undefined };
  // performance.now() counts from the process's time origin, so the first reading is what ran before.
  const beforeStartMs = performance.now();
  let last = beforeStartMs;
  const phases: [string, number][] = [];
  return {
    mark(phase) {
      const now = performance.now();
      phases.push([phase, now - last]);
      last = now;
    },
    done: () => write(formatStartupPhases({ beforeStartMs, phases })),
  };
}
