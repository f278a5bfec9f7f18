// Pure functions over a CRD version's OpenAPI v3 schema, as upstream apiextensions-apiserver 1.34.
export type { JSONSchemaProps, ValidationRule } from "./types.js";
export { prune } from "./prune.js";
export { applyDefaults, defaultNode, pruneNonNullableNullsWithoutDefaults } from "./defaults.js";
export { validateObject } from "./validate.js";
export { validateStructural, validateOpenAPISchema, newStructuralError } from "./structural.js";
export { validateDefaults } from "./default-validation.js";
