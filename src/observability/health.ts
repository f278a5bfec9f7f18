// /livez, /readyz, /healthz and their per-check paths, with ?verbose and ?exclude=.
export interface HealthCheck {
  name: string;
  /** Excluded too by ?exclude=<group> (kube-apiserver's etcd-override-N checks go with etcd). */
  group?: string;
  /** Resolves to undefined when healthy, or the failure reason. */
  check(): string | undefined | Promise<string | undefined>;
}

export interface HealthResult {
  status: number;
  body: string;
}

export async function runChecks(endpoint: string, checks: HealthCheck[], query: URLSearchParams): Promise<HealthResult> {
  // Upstream lists the checks whenever `verbose` is present, whatever its value (verbose=false too).
  const verbose = query.has("verbose");
  const asked = query.getAll("exclude");
  const excluded = new Set(asked);
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      excluded.delete(c.name);
      continue;
    }
    if (c.group && asked.includes(c.group)) {
      lines.push(`[+]${c.name} excluded with ${c.group}: ok`);
      continue;
    }
    const reason = await c.check();
    if (reason === undefined) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  if (excluded.size > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map((e) => JSON.stringify(e)).join(",")}`);
  if (failed) return { status: 500, body: `${lines.join("\n")}\n${endpoint} check failed\n` };
  if (!verbose) return { status: 200, body: "ok" };
  return { status: 200, body: `${lines.join("\n")}\n${endpoint} check passed\n` };
}

export async function runOneCheck(checks: HealthCheck[], name: string): Promise<HealthResult | undefined> {
  const c = checks.find((x) => x.name === name);
  if (!c) return undefined;
  const reason = await c.check();
  return reason === undefined ? { status: 200, body: "ok" } : { status: 500, body: `internal server error: ${reason}\n` };
}
