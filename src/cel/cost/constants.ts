// Every number of the cost model in one place: cel-go's base costs (common/cost.go) and
// Kubernetes' limits (k8s.io/apiserver/pkg/apis/cel, apiextensions validation), as of 1.34.

/** Reading a variable or selecting a field. */
export const selectAndIdentCost = 1;
/** A literal. */
export const constCost = 0;
/**
 * Creating a list. cel-go uses 10; kapi's specification says a list literal has a base cost of
 * 40, and where the two differ the specification is kapi's contract.
 */
export const listCreateBaseCost = 40;
/** Creating a map. */
export const mapCreateBaseCost = 30;
/** Creating an object (message construction). */
export const structCreateBaseCost = 40;
/** Per character when a function walks a whole string once. */
export const stringTraversalCostFactor = 0.1;
/** Per character of a regex pattern, per unit of input it is applied to. */
export const regexStringLengthCostFactor = 0.25;

/** Runtime cost limit of one expression evaluation (PerCallLimit): roughly 0.1 s. */
export const perCallLimit = 1_000_000;
/** Runtime budget of all rules of one custom resource, or one policy binding (RuntimeCELCostBudget): roughly 1 s. */
export const runtimeCelCostBudget = 10_000_000;
/** Estimated cost limit of one CRD validation rule (StaticEstimatedCostLimit). */
export const staticEstimatedCostLimit = 10_000_000;
/** Estimated cost limit of all rules of one CRD (StaticEstimatedCRDCostLimit). */
export const staticEstimatedCrdCostLimit = 100_000_000;
/** Comprehension iterations between checks of the budget and of cancellation (CheckFrequency). */
export const checkFrequency = 100;

/** Largest request body, from which unbounded lists, maps and strings get their worst-case size. */
export const maxRequestSizeBytes = 3 * 1024 * 1024;
/** Serialized sizes used to bound unbounded schemas (k8s.io/apiserver/pkg/cel/limits.go). */
export const maxDurationSizeJson = 32;
export const maxDatetimeSizeJson = 32;
export const minDurationSizeJson = 3;
export const jsonDateSize = 12;
export const minDatetimeSizeJson = 21;
export const minStringSize = 2;
export const minBoolSize = 4;
export const minNumberSize = 1;
