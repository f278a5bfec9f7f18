// An expression's text and how a position in it is reported: upstream prints
// `ERROR: <input>:1:5: message`, the line, and a caret under the column.
export class Source {
  private readonly lineStarts: number[] = [0];

  constructor(
    readonly text: string,
    readonly description = "<input>",
  ) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  /** 1-based line, 1-based column counted in code points, as cel-go counts them. */
  location(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const start = this.lineStarts[lo]!;
    return { line: lo + 1, column: [...this.text.slice(start, offset)].length + 1 };
  }

  lineText(line: number): string {
    const start = this.lineStarts[line - 1] ?? this.text.length;
    const end = this.lineStarts[line] !== undefined ? this.lineStarts[line]! - 1 : this.text.length;
    return this.text.slice(start, end);
  }
}

/** One compile-time problem: where, and what. */
export interface CelIssue {
  readonly offset: number;
  readonly message: string;
}

/**
 * cel-go's report of compile errors, one block per issue:
 * `ERROR: <input>:1:6: undeclared reference to 'x' (in container '')`, then ` | <line>` and
 * ` | .....^`.
 */
export function formatIssues(source: Source, issues: readonly CelIssue[]): string {
  return issues
    .map((issue) => {
      // Limits hit before any position is known (recursion depth, code point count): cel-go
      // reports them at -1:0 with no excerpt.
      if (issue.offset < 0) return `ERROR: ${source.description}:-1:0: ${issue.message}`;
      const { line, column } = source.location(issue.offset);
      const text = source.lineText(line);
      const caret = ".".repeat(Math.max(0, column - 1)) + "^";
      return `ERROR: ${source.description}:${line}:${column}: ${issue.message}\n | ${text}\n | ${caret}`;
    })
    .join("\n");
}

/** The expression does not compile (parse or type errors); `message` is cel-go's report of every issue. */
export class CelCompileError extends Error {
  override readonly name = "CelCompileError";
  constructor(
    readonly source: Source,
    readonly issues: readonly CelIssue[],
  ) {
    super(formatIssues(source, issues));
  }
}

/**
 * Creating the program failed after a clean compile, as cel-go's `env.Program` can (a constant
 * `find` / `findAll` pattern that does not compile); `message` is cel-go's error text, which
 * Kubernetes reports as "program instantiation failed: <message>".
 */
export class CelProgramError extends Error {
  override readonly name = "CelProgramError";
}
