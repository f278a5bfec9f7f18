// Matching of admission webhooks and policies to requests: rules, selectors, equivalent resources.
export * from "./rules.js";
export * from "./selectors.js";
export * from "./equivalence.js";
export * from "./criteria.js";
