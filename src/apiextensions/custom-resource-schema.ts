// What serving uses of the schema module (src/apiextensions/schema/): pruning, structural
// defaulting and OpenAPI validation of custom objects against a CRD version's schema.
export { prune, applyDefaults, validateObject, type JSONSchemaProps } from "./schema/index.js";
