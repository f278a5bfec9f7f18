// `kapi cel eval '<expr>' --self file.yaml [--old-self file.yaml]`: evaluates a rule as a CRD
// validation rule sees it (self, oldSelf) without a cluster, and prints the result as a CEL
// literal on the last line; a compile or evaluation error goes to stderr with a non-zero exit.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { CelCompileError, CelEvalError, compileCel, type CelEnvironment } from "../cel/program.js";
import { celInput, celLiteral } from "../cel/values.js";

const validationRuleEnv: CelEnvironment = { name: "crd-validation-rule", variables: ["self", "oldSelf"] };

export const celHelp = `Usage: kapi cel eval '<expression>' [--self FILE] [--old-self FILE]

Evaluates a CEL expression as a CustomResourceDefinition validation rule does: 'self' is the
YAML or JSON value in --self, 'oldSelf' the one in --old-self (transition rules). Prints the
result as a CEL literal on the last line; a compile or evaluation error exits 1.
`;

interface Io {
  out(text: string): void;
  err(text: string): void;
}

export function runCel(args: string[], io: Io): number {
  const [sub, ...rest] = args;
  if (sub !== "eval") {
    io.err(sub === undefined ? celHelp : `kapi cel: unknown command ${JSON.stringify(sub)}\n\n${celHelp}`);
    return 2;
  }
  let expression: string | undefined;
  const files: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const [flag, inline] = a.split("=", 2) as [string, string | undefined];
    if (flag === "--self" || flag === "--old-self") {
      const v = inline ?? rest[++i];
      if (v === undefined) return usage(io, `${flag} needs a file`);
      files[flag === "--self" ? "self" : "oldSelf"] = v;
    } else if (a.startsWith("-")) return usage(io, `unknown flag ${a}`);
    else if (expression === undefined) expression = a;
    else return usage(io, `unexpected argument ${JSON.stringify(a)}`);
  }
  if (expression === undefined) return usage(io, "an expression is required");
  const vars: Record<string, ReturnType<typeof celInput>> = {};
  for (const [name, file] of Object.entries(files)) {
    try {
      vars[name] = celInput(parseYaml(readFileSync(file, "utf8")));
    } catch (e) {
      io.err(`kapi cel: ${file}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  try {
    const result = compileCel(expression, validationRuleEnv).eval(vars);
    io.out(celLiteral(result) + "\n");
    return 0;
  } catch (e) {
    if (e instanceof CelCompileError) io.err(`${e.message}\n`);
    else if (e instanceof CelEvalError) io.err(`evaluation error: ${e.message}\n`);
    else throw e;
    return 1;
  }
}

function usage(io: Io, problem: string): number {
  io.err(`kapi cel: ${problem}\n\n${celHelp}`);
  return 2;
}
