// /version: what kube-apiserver 1.34 reports, with kapi's own build identity.
import { readFileSync } from "node:fs";

const pkgVersion = (() => {
  try {
    return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version as string;
  } catch {
    return "0.0.0";
  }
})();

export function versionInfo(): Record<string, string> {
  return {
    major: "1",
    minor: "34",
    emulationMajor: "1",
    emulationMinor: "34",
    minCompatibilityMajor: "1",
    minCompatibilityMinor: "33",
    gitVersion: `v1.34.0+kapi.${pkgVersion}`,
    gitCommit: "",
    gitTreeState: "",
    buildDate: "",
    goVersion: `node${process.versions.node}`,
    compiler: "kapi",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
