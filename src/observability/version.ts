// /version: what kube-apiserver 1.34 reports, with kapi's own build identity.
import { readFileSync } from "node:fs";
import { packageFile } from "../apimachinery/package-files.js";

let version: string | undefined;

/** kapi's own version (package.json), read when first asked for: a start that serves does not need it. */
export function kapiVersion(): string {
  if (version === undefined) {
    try {
      version = JSON.parse(readFileSync(packageFile(import.meta.url, "package.json")!, "utf8")).version as string;
    } catch {
      version = "0.0.0";
    }
  }
  return version;
}

/** The Kubernetes release whose API kapi serves. */
export const kubernetesVersion = "v1.34.0";

export function versionInfo(): Record<string, string> {
  return {
    major: "1",
    minor: "34",
    emulationMajor: "1",
    emulationMinor: "34",
    minCompatibilityMajor: "1",
    minCompatibilityMinor: "33",
    gitVersion: `${kubernetesVersion}+kapi.${kapiVersion()}`,
    gitCommit: "",
    gitTreeState: "",
    buildDate: "",
    goVersion: `node${process.versions.node}`,
    compiler: "kapi",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
