export { nodeRestriction, type NodeRestrictionGates } from "./plugin.js";
export { storeLookup } from "./store-lookup.js";
