// Admission flags (--enable-admission-plugins, --disable-admission-plugins,
// --admission-control-config-file) and the configuration file they point at: an
// AdmissionConfiguration whose entries give a plugin its configuration inline or by path.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { yaml } from "../encoding/yaml-lazy.js";

export interface AdmissionFlags {
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  admissionControlConfigFile?: string;
  /** DefaultTolerationSeconds: --default-not-ready-toleration-seconds (300). */
  defaultNotReadyTolerationSeconds?: number;
  /** DefaultTolerationSeconds: --default-unreachable-toleration-seconds (300). */
  defaultUnreachableTolerationSeconds?: number;
}

const configApiVersions = new Set(["apiserver.config.k8s.io/v1", "apiserver.k8s.io/v1alpha1"]);

/** Plugin name → its configuration object, from the AdmissionConfiguration file (empty without one). */
export function loadAdmissionConfiguration(path: string | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!path) return out;
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`unable to read admission control configuration from "${path}" [${(e as Error).message}]`);
  }
  const config = doc as { kind?: string; apiVersion?: string; plugins?: { name?: string; path?: string; configuration?: unknown }[] } | null;
  if (!config || config.kind !== "AdmissionConfiguration" || !configApiVersions.has(config.apiVersion ?? "")) {
    throw new Error(`unable to read admission control configuration from "${path}": not an AdmissionConfiguration of apiserver.config.k8s.io/v1`);
  }
  for (const p of config.plugins ?? []) {
    if (!p.name) continue;
    if (p.configuration !== undefined) out.set(p.name, p.configuration);
    else if (p.path) {
      const file = isAbsolute(p.path) ? p.path : join(dirname(path), p.path);
      try {
        out.set(p.name, yaml().parse(readFileSync(file, "utf8")));
      } catch (e) {
        throw new Error(`unable to read admission control configuration of ${p.name} from "${file}" [${(e as Error).message}]`);
      }
    }
  }
  return out;
}
