// Opt-in start-up timing (KAPI_STARTUP_TRACE=1): how long each start-up phase took, printed to
// stderr once the server listens, so a slow start can be attributed without a profiler. Each
// phase shows its wall time and the process's CPU time in it (on a busy machine the CPU time is
// the steadier figure).

export interface StartupTrace {
  /** Ends the phase running since the previous mark (or since the trace began) under this name. */
  mark(phase: string): void;
  /** Prints the phases; nothing when the trace is off. */
  done(): void;
}

/** One phase: its name, wall and CPU milliseconds. */
export type StartupPhase = [name: string, wallMs: number, cpuMs: number];

export function formatStartupPhases(phases: readonly StartupPhase[], totalName = "total since process start"): string {
  const total: StartupPhase = [totalName, phases.reduce((s, p) => s + p[1], 0), phases.reduce((s, p) => s + p[2], 0)];
  return [...phases, total].map(([name, wall, cpu]) => `kapi: startup: ${wall.toFixed(1).padStart(7)} ms (cpu ${cpu.toFixed(1).padStart(6)} ms)  ${name}\n`).join("");
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const markPrefix = "kapi-startup: ";

/**
 * Ends a phase of the command line's own start-up, before startApiServer (node, loading kapi's
 * code): the first trace of the process splits its first phase at these marks. Cheap enough to
 * mark whether or not a trace will print.
 */
export function markStartup(phase: string): void {
  performance.mark(markPrefix + phase, { detail: cpuMs() });
}

/** The marked phases so far, each since the previous mark (the first since the process started). */
function markedPhases(): StartupPhase[] {
  let [wall, cpu] = [0, 0];
  return performance.getEntriesByType("mark").flatMap((m) => {
    if (!m.name.startsWith(markPrefix) || typeof (m as PerformanceMark).detail !== "number") return [];
    const c = (m as PerformanceMark).detail as number;
    const phase: StartupPhase = [m.name.slice(markPrefix.length), m.startTime - wall, c - cpu];
    [wall, cpu] = [m.startTime, c];
    return [phase];
  });
}

/** Whether a trace ran in this process already: a later start's time before it is not start-up. */
let tracedBefore = false;

/**
 * The first trace of a process counts from the process's start (node and module loading come
 * first); a later one (a second server in a test process) from its own start.
 */
export function startupTrace(enabled: boolean, write: (text: string) => void = (t) => process.stderr.write(t), fromProcessStart = !tracedBefore): StartupTrace {
  if (!enabled) return { mark: () => undefined, done: () => undefined };
  tracedBefore = true;
  // performance.now() counts from the process's time origin, so the first reading is what ran before.
  let wall = performance.now();
  let cpu = cpuMs();
  const marked = fromProcessStart ? markedPhases() : [];
  const [markedWall, markedCpu] = marked.reduce(([w, c], p) => [w + p[1], c + p[2]], [0, 0]);
  const before: StartupPhase = marked.length
    ? ["to startApiServer (the command: flags, files)", wall - markedWall, cpu - markedCpu]
    : ["process start to startApiServer (node, module loading)", wall, cpu];
  const phases: StartupPhase[] = fromProcessStart ? [...marked, before] : [];
  return {
    mark(phase) {
      const [w, c] = [performance.now(), cpuMs()];
      phases.push([phase, w - wall, c - cpu]);
      [wall, cpu] = [w, c];
    },
    done: () => write(formatStartupPhases(phases, fromProcessStart ? undefined : "total since startApiServer was called")),
  };
}
