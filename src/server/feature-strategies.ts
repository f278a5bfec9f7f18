// The strategies features contribute for built-in types they own, gathered for start-up: types/
// registers every built-in type, and these replace the default strategy where a type's rules
// live with its feature (the feature-module seam will take this list over).
import { admissionStrategies } from "../admission/strategies.js";
import { apiextensionsStrategies } from "../apiextensions/strategies.js";
import type { StrategyContributions } from "../types/strategies.js";

export const featureStrategies: StrategyContributions = { ...apiextensionsStrategies, ...admissionStrategies };
