// Property names of OpenAPI schemas as CEL identifiers, by Kubernetes' rules
// (k8s.io/apiserver/pkg/cel/escaping.go): `__` → `__underscores__`, `.` → `__dot__`,
// `-` → `__dash__`, `/` → `__slash__`, and a name that is a CEL reserved word → `__word__`.
// Names with other characters, or starting with a digit, cannot be reached from CEL.

/** CEL's reserved words (cel-spec's RESERVED set plus the literals and `in`). */
export const celReservedSymbols: ReadonlySet<string> = new Set([
  "true", "false", "null", "in",
  "as", "break", "const", "continue", "else",
  "for", "function", "if", "import", "let",
  "loop", "package", "namespace", "return",
  "var", "void", "while",
]);

const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const escapableName = /^[A-Za-z_./-][A-Za-z0-9_./-]*$/;
const toEscape = /__|[./-]/g;
const escapeSequence = /__[^_]+__/g;

/** The CEL identifier for a property name, or undefined when the name cannot be written in CEL. */
export function escapePropertyName(name: string): string | undefined {
  if (name.length === 0) return undefined;
  if (celReservedSymbols.has(name)) return `__${name}__`;
  if (plainName.test(name) && !name.includes("__")) return name;
  if (!escapableName.test(name)) return undefined;
  return name.replace(toEscape, (s) => (s === "__" ? "__underscores__" : s === "." ? "__dot__" : s === "-" ? "__dash__" : "__slash__"));
}

/**
 * The property name a CEL identifier stands for, or undefined when the identifier holds an
 * escape sequence Kubernetes does not know (`__illegal__`) or a reserved word that is not the
 * whole identifier (`__int__extra`).
 */
export function unescapePropertyName(escaped: string): string | undefined {
  if (!escaped.includes("__")) return escaped;
  let ok = true;
  const out = escaped.replace(escapeSequence, (s) => {
    const word = s.slice(2, -2);
    switch (word) {
      case "underscores":
        return "__";
      case "dot":
        return ".";
      case "dash":
        return "-";
      case "slash":
        return "/";
    }
    if (celReservedSymbols.has(word)) {
      if (s.length !== escaped.length) ok = false;
      return word;
    }
    ok = false;
    return "";
  });
  return ok ? out : undefined;
}
