// One server's metric families, and the stability rules of component-base's registry:
// - a family deprecated in an earlier minor release than the server's is hidden (not exported);
//   --show-hidden-metrics-for-version, which takes only the previous minor release, shows every
//   hidden one again, its HELP noting since when it is deprecated;
// - --disabled-metrics names families never exported, whatever the above says;
// - the registry's own families count what was registered, hidden and disabled.
import { CounterFamily, type Family } from "./metric-family.js";

export interface MetricRegistryOptions {
  /** The Kubernetes release the server reports ("v1.34.0"). */
  version: string;
  /** --show-hidden-metrics-for-version (validated: the previous minor release, or ""). */
  showHiddenMetricsForVersion?: string;
  /** --disabled-metrics: fully qualified names. */
  disabledMetrics?: readonly string[];
}

function majorMinor(version: string): [number, number] {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`not a version: ${version}`);
  return [Number(m[1]), Number(m[2])];
}

/** Upstream's check of --show-hidden-metrics-for-version: "" or the minor release before `version`. */
export function showHiddenMetricsVersionError(version: string, value: string): string | undefined {
  if (value === "") return undefined;
  const [major, minor] = majorMinor(version);
  const valid = `${major}.${minor - 1}`;
  return value === valid ? undefined : `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`;
}

export class MetricRegistry {
  private readonly families = new Map<string, Family<unknown>>();
  private readonly current: [number, number];
  private readonly showHidden: boolean;
  private readonly disabled: ReadonlySet<string>;
  private readonly registered = new CounterFamily({ name: "registered_metrics_total", help: "Metrics registered, by stability level and the release that deprecated them.", stability: "BETA", labels: ["stability_level", "deprecated_version"] });
  private readonly disabledTotal = new CounterFamily({ name: "disabled_metrics_total", help: "Metrics named by --disabled-metrics.", stability: "BETA" });
  private readonly hiddenTotal = new CounterFamily({ name: "hidden_metrics_total", help: "Metrics not exported: deprecated before this release, or disabled.", stability: "BETA" });

  constructor(o: MetricRegistryOptions) {
    this.current = majorMinor(o.version);
    this.showHidden = !!o.showHiddenMetricsForVersion;
    this.disabled = new Set(o.disabledMetrics ?? []);
    this.disabledTotal.with().inc(this.disabled.size);
    this.register(this.registered, this.disabledTotal, this.hiddenTotal);
  }

  /** Adds families; each is hidden or shown by the rules above. A name registered twice is a wiring mistake. */
  register(...families: Family<unknown>[]): void {
    for (const f of families) {
      if (this.families.has(f.name)) throw new Error(`metric ${f.name} is registered twice`);
      this.families.set(f.name, f);
      if (this.disabled.has(f.name)) f.hidden = true;
      else if (f.deprecatedVersion) {
        const [major, minor] = majorMinor(f.deprecatedVersion);
        const [curMajor, curMinor] = this.current;
        f.deprecated = major < curMajor || (major === curMajor && minor <= curMinor);
        f.hidden = !this.showHidden && (major < curMajor || (major === curMajor && minor < curMinor));
      }
      if (f.hidden) this.hiddenTotal.with().inc();
      else this.registered.with(f.stability ?? "ALPHA", f.deprecatedVersion ?? "").inc();
    }
  }

  /** Every exported family in the text format, by name (as client_golang's registry gathers). */
  async render(): Promise<string> {
    const shown = [...this.families.values()].filter((f) => !f.hidden).sort((a, b) => (a.name < b.name ? -1 : 1));
    await Promise.all(shown.map((f) => f.collect?.()));
    return shown.map((f) => f.render()).join("");
  }
}
