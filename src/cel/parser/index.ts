// kapi's CEL parser: text → ParsedExpr (macros expanded), as cel-go parses.
export { parse, noLocation, type ParseOptions } from "./parser.js";
export { defaultMacros, standardMacros, macroKey, legacyAccumulatorName, type MacroExpander, type MacroHelper } from "./macros.js";
export { formatExpr, formatLiteral, kindAdorner, kindAndIdAdorner, type Adorner } from "./debug.js";
