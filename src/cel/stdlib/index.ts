// The standard library and the optional-types library, as CelLibrary declarations.
export { standardLibrary, standardFunctions, standardConstants, plainNoSuchOverload, formatDouble, indexList, indexMap } from "./standard.js";
export { optionalLibrary, optionalFunctions, isZeroValue, optIndex } from "./optional.js";
export { celEquals, celCompare, compareStrings, sizeOf, typeOfValue, typeNameOf, runtimeTypeName, valueHasType, typeValues } from "./values.js";
export { parseTimestamp, parseDuration, formatTimestamp, formatDuration } from "./time.js";
export { twoVarComprehensionsLibrary, mapInsert } from "./comprehensions.js";
