// The built-in type apiextensions/ owns: CustomResourceDefinitions are validated against the
// structural-schema rules that live here, so their strategy is contributed to the type registry
// from this feature (types/ sits below apiextensions/ and cannot import it).
import type { StrategyContributions } from "../types/strategies.js";
import { crdStrategy } from "./crd-strategy.js";

export const apiextensionsStrategies: StrategyContributions = {
  "customresourcedefinitions.apiextensions.k8s.io": crdStrategy,
};
