// /version: what kube-apiserver 1.34 reports, with kapi's own build identity.
import { readFileSync } from "node:fs";
import { packageFile } from "../apimachinery/package-files.js";

/** kapi's own version (package.json). */
export const kapiVersion = (() => {
  try {
    return JSON.parse(readFileSync(packageFile(import.meta.url, "package.json")!, "utf8")).version as string;
  } catch {
    return "0.0.0";
  }
})();

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
    gitVersion: `${kubernetesVersion}+kapi.${kapiVersion}`,
    gitCommit: "",
    gitTreeState: "",
    buildDate: "",
    goVersion: `node${process.versions.node}`,
    compiler: "kapi",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
