// The YAML library, loaded on first use: most servers never see a YAML body, and start-up time
// is a feature.
import { createRequire } from "node:module";

type YamlModule = typeof import("yaml");
let loaded: YamlModule | undefined;

export function yaml(): YamlModule {
  return (loaded ??= createRequire(import.meta.url)("yaml") as YamlModule);
}
