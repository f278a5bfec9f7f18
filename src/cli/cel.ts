// `kapi cel`: test CEL rules without a cluster. `eval` evaluates an expression as a CRD
// validation rule sees it (self, oldSelf), typed from a schema when one is given; `check`
// type-checks it against a schema and prints its estimated cost. The result is printed as a
// CEL literal on the last line; a compile or evaluation error goes to stderr with exit 1.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { toCel, celLiteral } from "../cel/convert.js";
import { staticEstimatedCostLimit } from "../cel/cost/constants.js";
import { ruleCostExceeded } from "../cel/cost/messages.js";
import { crdRuleEnvironment } from "../cel/environments.js";
import { CelCompileError, CelEvalError, CelProgramError, compileCel, type CelEnvironment } from "../cel/program.js";
import { selfTypeOf, type StructuralSchema } from "../cel/schema/index.js";
import { formatType, DynType, type CelType } from "../cel/types.js";
import type { CelValue } from "../cel/value.js";
import { goQuote } from "../apimachinery/go-quote.js";

export const celHelp = `Usage:
  kapi cel eval '<expression>' [--self FILE] [--old-self FILE] [--schema FILE]
  kapi cel check '<expression>' --schema FILE

eval   evaluates a CEL expression as a CustomResourceDefinition validation rule does: 'self' is
       the YAML or JSON value in --self, 'oldSelf' the one in --old-self (transition rules).
       With --schema, self and oldSelf are typed from the schema; without, they are dyn.
check  type-checks the expression against --schema and prints its result type and estimated
       cost (the limit for one rule is ${staticEstimatedCostLimit.toLocaleString("en-US")}).

--schema takes a CustomResourceDefinition (its first version's openAPIV3Schema, or the one of
--version NAME), or an OpenAPI v3 schema document. The result is printed as a CEL literal on
the last line; a compile or evaluation error exits 1, a usage error 2.
`;

interface Io {
  out(text: string): void;
  err(text: string): void;
}

interface Invocation {
  command: "eval" | "check";
  expression: string;
  files: Partial<Record<"self" | "oldSelf" | "schema", string>>;
  version?: string;
}

class UsageError extends Error {}

export function runCel(args: string[], io: Io): number {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(celHelp);
    return 0;
  }
  let inv: Invocation;
  let env: CelEnvironment;
  let selfType: CelType = DynType;
  const vars: Record<string, CelValue> = {};
  try {
    inv = parseArgs(args);
    if (inv.files.schema) {
      const schema = readSchema(inv.files.schema, inv.version);
      const t = selfTypeOf(schema.node, { isRoot: schema.isResourceRoot });
      if (!t) throw new UsageError(`${inv.files.schema}: the schema's root has no type CEL can see (set type, or x-kubernetes-int-or-string)`);
      selfType = t;
    } else if (inv.command === "check") throw new UsageError("check needs --schema");
    env = crdRuleEnvironment(selfType);
    for (const name of ["self", "oldSelf"] as const) {
      const file = inv.files[name];
      if (file) vars[name] = toCel(readDocument(file), selfType);
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`kapi cel: ${e.message}\n\n${celHelp}`);
    return 2;
  }
  try {
    const program = compileCel(inv.expression, env);
    if (inv.command === "check") {
      const { min, max } = program.estimatedCost;
      io.out(`type: ${formatType(program.resultType)}\n`);
      io.out(`estimated cost: ${min === max ? max : `${min}..${max}`}\n`);
      if (max > staticEstimatedCostLimit) {
        io.err(`${ruleCostExceeded(max)}\n`);
        return 1;
      }
      io.out("ok\n");
      return 0;
    }
    io.out(celLiteral(program.eval(vars).value) + "\n");
    return 0;
  } catch (e) {
    if (e instanceof CelCompileError) io.err(`${e.message}\n`);
    else if (e instanceof CelProgramError) io.err(`program instantiation failed: ${e.message}\n`);
    else if (e instanceof CelEvalError) io.err(`evaluation error: ${e.message}\n`);
    else throw e;
    return 1;
  }
}

function parseArgs(args: string[]): Invocation {
  const [command, ...rest] = args;
  if (command !== "eval" && command !== "check") {
    throw new UsageError(command === undefined ? "a command is required" : `unknown command ${goQuote(command)}`);
  }
  let expression: string | undefined;
  const files: Invocation["files"] = {};
  let version: string | undefined;
  const flags: Record<string, "self" | "oldSelf" | "schema" | "version"> = {
    "--self": "self",
    "--old-self": "oldSelf",
    "--schema": "schema",
    "--version": "version",
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const eq = a.indexOf("=");
    const flag = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    const target = flags[flag];
    if (target) {
      const v = a.startsWith("--") && eq > 0 ? a.slice(eq + 1) : rest[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      if (target === "version") version = v;
      else files[target] = v;
    } else if (a.startsWith("-")) throw new UsageError(`unknown flag ${a}`);
    else if (expression === undefined) expression = a;
    else throw new UsageError(`unexpected argument ${goQuote(a)}`);
  }
  if (expression === undefined) throw new UsageError("an expression is required");
  if (command === "check" && (files.self || files.oldSelf)) throw new UsageError("check takes no --self or --old-self");
  return { command, expression, files, version };
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  const docs = parseAllDocuments(text);
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return null;
  if (doc.errors.length) throw new UsageError(`${file}: ${doc.errors[0]!.message}`);
  return doc.toJS();
}

/** The schema of a CRD version, or a bare OpenAPI schema; a CRD's root is a resource root. */
function readSchema(file: string, version: string | undefined): { node: StructuralSchema; isResourceRoot: boolean } {
  const doc = readDocument(file) as Record<string, any> | null;
  if (!doc || typeof doc !== "object") throw new UsageError(`${file}: not a schema`);
  if (doc.kind === "CustomResourceDefinition") {
    const versions: any[] = doc.spec?.versions ?? [];
    const v = version ? versions.find((x) => x?.name === version) : versions[0];
    const schema = v?.schema?.openAPIV3Schema;
    if (!schema) throw new UsageError(`${file}: ${version ? `no version ${goQuote(version)} with` : "no version has"} schema.openAPIV3Schema`);
    return { node: schema, isResourceRoot: true };
  }
  return { node: (doc.openAPIV3Schema ?? doc) as StructuralSchema, isResourceRoot: false };
}
