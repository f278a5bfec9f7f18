// The CEL lexer: the token rules of cel-go's grammar (parser/gen/CEL.g4), hand-written. Like an
// ANTLR lexer it takes the longest match, falls back to the longest accepted prefix when a longer
// attempt fails (`""` before an unterminated `"""`, the identifier `b` before an unterminated
// `b"…`), and on a character no rule accepts reports "token recognition error at: '…'" (the text
// from the token start through the offending character) and resumes after that character.

/** Token kinds, in the order of the grammar's token types (ANTLR lists expected sets in this order). */
export const enum T {
  EOF = 0,
  EQUALS = 1,
  NOT_EQUALS,
  IN,
  LESS,
  LESS_EQUALS,
  GREATER_EQUALS,
  GREATER,
  LOGICAL_AND,
  LOGICAL_OR,
  LBRACKET,
  RBRACKET,
  LBRACE,
  RBRACE,
  LPAREN,
  RPAREN,
  DOT,
  COMMA,
  MINUS,
  EXCLAM,
  QUESTIONMARK,
  COLON,
  PLUS,
  STAR,
  SLASH,
  PERCENT,
  TRUE,
  FALSE,
  NULL,
  WHITESPACE,
  COMMENT,
  NUM_FLOAT,
  NUM_INT,
  NUM_UINT,
  STRING,
  BYTES,
  IDENTIFIER,
  ESC_IDENTIFIER,
}

/** How ANTLR names each token type in "expecting …" lists. */
export const tokenDisplayNames: readonly string[] = [
  "<EOF>",
  "'=='",
  "'!='",
  "'in'",
  "'<'",
  "'<='",
  "'>='",
  "'>'",
  "'&&'",
  "'||'",
  "'['",
  "']'",
  "'{'",
  "'}'",
  "'('",
  "')'",
  "'.'",
  "','",
  "'-'",
  "'!'",
  "'?'",
  "':'",
  "'+'",
  "'*'",
  "'/'",
  "'%'",
  "'true'",
  "'false'",
  "'null'",
  "WHITESPACE",
  "COMMENT",
  "NUM_FLOAT",
  "NUM_INT",
  "NUM_UINT",
  "STRING",
  "BYTES",
  "IDENTIFIER",
  "ESC_IDENTIFIER",
];

export interface Token {
  readonly kind: T;
  /** UTF-16 offset of the first character. */
  readonly start: number;
  /** UTF-16 offset just past the last character. */
  readonly end: number;
}

export interface LexError {
  readonly offset: number;
  readonly message: string;
}

const enum C {
  TAB = 9,
  LF = 10,
  FF = 12,
  CR = 13,
  SPACE = 32,
  BANG = 33,
  DQUOTE = 34,
  PERCENT = 37,
  AMP = 38,
  SQUOTE = 39,
  LPAREN = 40,
  RPAREN = 41,
  STAR = 42,
  PLUS = 43,
  COMMA = 44,
  MINUS = 45,
  DOT = 46,
  SLASH = 47,
  D0 = 48,
  D3 = 51,
  D7 = 55,
  D9 = 57,
  COLON = 58,
  LT = 60,
  EQ = 61,
  GT = 62,
  QUESTION = 63,
  A = 65,
  B = 66,
  E = 69,
  F = 70,
  R = 82,
  U = 85,
  X = 88,
  Z = 90,
  LBRACKET = 91,
  BACKSLASH = 92,
  RBRACKET = 93,
  UNDERSCORE = 95,
  BACKTICK = 96,
  a = 97,
  b = 98,
  e = 101,
  f = 102,
  n = 110,
  r = 114,
  t = 116,
  u = 117,
  v = 118,
  x = 120,
  z = 122,
  LBRACE = 123,
  PIPE = 124,
  RBRACE = 125,
}

function isLetter(c: number): boolean {
  return (c >= C.A && c <= C.Z) || (c >= C.a && c <= C.z);
}
function isDigit(c: number): boolean {
  return c >= C.D0 && c <= C.D9;
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= C.A && c <= C.F) || (c >= C.a && c <= C.f);
}
function isIdentPart(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === C.UNDERSCORE;
}

const keywords = new Map<string, T>([
  ["true", T.TRUE],
  ["false", T.FALSE],
  ["null", T.NULL],
  ["in", T.IN],
]);

/** ANTLR's display of offending text: newlines, carriage returns and tabs escaped. */
export function errorDisplay(text: string): string {
  return text.replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
}

/**
 * Scans a quoted string body starting at `i` (the opening quote). Returns the offset just past
 * the closing quote, or, on failure, `-(failIndex + 1)` where failIndex is the offending
 * character (or text.length at end of input).
 */
function scanString(text: string, i: number, raw: boolean): number {
  const len = text.length;
  const q = text.charCodeAt(i);
  const triple = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  if (triple) {
    let j = i + 3;
    for (;;) {
      if (j >= len) return -(len + 1);
      const c = text.charCodeAt(j);
      if (c === q && text.charCodeAt(j + 1) === q && text.charCodeAt(j + 2) === q) return j + 3;
      if (c === C.BACKSLASH && !raw) {
        const k = scanEscape(text, j);
        if (k < 0) return k;
        j = k;
      } else j++;
    }
  }
  let j = i + 1;
  for (;;) {
    if (j >= len) return -(len + 1);
    const c = text.charCodeAt(j);
    if (c === q) return j + 1;
    if (c === C.LF || c === C.CR) return -(j + 1);
    if (c === C.BACKSLASH && !raw) {
      const k = scanEscape(text, j);
      if (k < 0) return k;
      j = k;
    } else j++;
  }
}

/** An escape sequence at `j` (the backslash): offset past it, or -(failIndex + 1). */
function scanEscape(text: string, j: number): number {
  const len = text.length;
  if (j + 1 >= len) return -(len + 1);
  const c = text.charCodeAt(j + 1);
  switch (c) {
    case C.a:
    case C.b:
    case C.f:
    case C.n:
    case C.r:
    case C.t:
    case C.v:
    case C.DQUOTE:
    case C.SQUOTE:
    case C.BACKSLASH:
    case C.QUESTION:
    case C.BACKTICK:
      return j + 2;
    case C.x:
    case C.X:
      return hexRun(text, j + 2, 2);
    case C.u:
      return hexRun(text, j + 2, 4);
    case C.U:
      return hexRun(text, j + 2, 8);
  }
  if (c >= C.D0 && c <= C.D3) {
    for (let k = j + 2; k < j + 4; k++) {
      if (k >= len) return -(len + 1);
      const d = text.charCodeAt(k);
      if (d < C.D0 || d > C.D7) return -(k + 1);
    }
    return j + 4;
  }
  return -(j + 1 + 1);
}

function hexRun(text: string, k: number, n: number): number {
  for (let m = 0; m < n; m++, k++) {
    if (k >= text.length) return -(text.length + 1);
    if (!isHex(text.charCodeAt(k))) return -(k + 1);
  }
  return k;
}

/** Tokenizes `text` (hidden whitespace and comments dropped); always ends with an EOF token. */
export function tokenize(text: string, errors: LexError[]): Token[] {
  const tokens: Token[] = [];
  const len = text.length;
  let i = 0;
  const push = (kind: T, start: number, end: number) => {
    tokens.push({ kind, start, end });
    i = end;
  };
  const fail = (start: number, failIndex: number) => {
    // The offending character is part of the reported text; resume after it.
    let stop = failIndex;
    if (failIndex < len) {
      const cp = text.codePointAt(failIndex)!;
      stop = failIndex + (cp > 0xffff ? 2 : 1);
    }
    errors.push({
      offset: start,
      message: `token recognition error at: '${errorDisplay(text.slice(start, stop))}'`,
    });
    i = stop;
  };

  while (i < len) {
    const c = text.charCodeAt(i);
    // Whitespace and comments.
    if (c === C.SPACE || c === C.TAB || c === C.LF || c === C.CR || c === C.FF) {
      i++;
      continue;
    }
    if (c === C.SLASH && text.charCodeAt(i + 1) === C.SLASH) {
      while (i < len && text.charCodeAt(i) !== C.LF) i++;
      continue;
    }
    const start = i;
    // Identifiers and prefixed strings (r"…", b"…", br"…", …).
    if (isLetter(c) || c === C.UNDERSCORE) {
      let k = i;
      let kind = T.STRING;
      if (c === C.b || c === C.B) {
        kind = T.BYTES;
        k++;
      }
      let raw = false;
      const rc = text.charCodeAt(k);
      if (rc === C.r || rc === C.R) {
        raw = true;
        k++;
      }
      const qc = text.charCodeAt(k);
      if (k > i && (qc === C.DQUOTE || qc === C.SQUOTE)) {
        const end = scanString(text, k, raw);
        if (end > 0) {
          push(kind, start, end);
          continue;
        }
        if (text.charCodeAt(k + 1) === qc && text.charCodeAt(k + 2) === qc) {
          push(kind, start, k + 2);
          continue;
        }
        // Fall back to the identifier prefix (longest accepted match).
      }
      let j = i + 1;
      while (j < len && isIdentPart(text.charCodeAt(j))) j++;
      push(keywords.get(text.slice(start, j)) ?? T.IDENTIFIER, start, j);
      continue;
    }
    if (isDigit(c) || (c === C.DOT && isDigit(text.charCodeAt(i + 1)))) {
      push(...scanNumber(text, i));
      continue;
    }
    if (c === C.DQUOTE || c === C.SQUOTE) {
      const end = scanString(text, i, false);
      if (end > 0) {
        push(T.STRING, start, end);
        continue;
      }
      // `""` is a complete (empty) string even when a `"""` that follows never closes.
      if (text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) {
        push(T.STRING, start, i + 2);
        continue;
      }
      fail(start, -end - 1);
      continue;
    }
    if (c === C.BACKTICK) {
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (isIdentPart(d) || d === C.DOT || d === C.MINUS || d === C.SLASH || d === C.SPACE) j++;
        else break;
      }
      if (j > i + 1 && text.charCodeAt(j) === C.BACKTICK) {
        push(T.ESC_IDENTIFIER, start, j + 1);
        continue;
      }
      fail(start, j);
      continue;
    }
    const c2 = text.charCodeAt(i + 1);
    switch (c) {
      case C.EQ:
        if (c2 === C.EQ) push(T.EQUALS, start, i + 2);
        else fail(start, i + 1);
        continue;
      case C.BANG:
        if (c2 === C.EQ) push(T.NOT_EQUALS, start, i + 2);
        else push(T.EXCLAM, start, i + 1);
        continue;
      case C.LT:
        if (c2 === C.EQ) push(T.LESS_EQUALS, start, i + 2);
        else push(T.LESS, start, i + 1);
        continue;
      case C.GT:
        if (c2 === C.EQ) push(T.GREATER_EQUALS, start, i + 2);
        else push(T.GREATER, start, i + 1);
        continue;
      case C.AMP:
        if (c2 === C.AMP) push(T.LOGICAL_AND, start, i + 2);
        else fail(start, i + 1);
        continue;
      case C.PIPE:
        if (c2 === C.PIPE) push(T.LOGICAL_OR, start, i + 2);
        else fail(start, i + 1);
        continue;
      case C.LBRACKET:
        push(T.LBRACKET, start, i + 1);
        continue;
      case C.RBRACKET:
        push(T.RBRACKET, start, i + 1);
        continue;
      case C.LBRACE:
        push(T.LBRACE, start, i + 1);
        continue;
      case C.RBRACE:
        push(T.RBRACE, start, i + 1);
        continue;
      case C.LPAREN:
        push(T.LPAREN, start, i + 1);
        continue;
      case C.RPAREN:
        push(T.RPAREN, start, i + 1);
        continue;
      case C.DOT:
        push(T.DOT, start, i + 1);
        continue;
      case C.COMMA:
        push(T.COMMA, start, i + 1);
        continue;
      case C.MINUS:
        push(T.MINUS, start, i + 1);
        continue;
      case C.QUESTION:
        push(T.QUESTIONMARK, start, i + 1);
        continue;
      case C.COLON:
        push(T.COLON, start, i + 1);
        continue;
      case C.PLUS:
        push(T.PLUS, start, i + 1);
        continue;
      case C.STAR:
        push(T.STAR, start, i + 1);
        continue;
      case C.SLASH:
        push(T.SLASH, start, i + 1);
        continue;
      case C.PERCENT:
        push(T.PERCENT, start, i + 1);
        continue;
    }
    fail(start, i);
  }
  tokens.push({ kind: T.EOF, start: len, end: len });
  return tokens;
}

function scanNumber(text: string, i: number): [T, number, number] {
  const start = i;
  const len = text.length;
  if (text.charCodeAt(i) === C.D0 && text.charCodeAt(i + 1) === C.x && isHex(text.charCodeAt(i + 2))) {
    let j = i + 2;
    while (j < len && isHex(text.charCodeAt(j))) j++;
    const s = text.charCodeAt(j);
    if (s === C.u || s === C.U) return [T.NUM_UINT, start, j + 1];
    return [T.NUM_INT, start, j];
  }
  let j = i;
  while (j < len && isDigit(text.charCodeAt(j))) j++;
  let isFloat = false;
  if (text.charCodeAt(j) === C.DOT && isDigit(text.charCodeAt(j + 1))) {
    isFloat = true;
    j += 2;
    while (j < len && isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === C.e || e === C.E) {
    let k = j + 1;
    const sign = text.charCodeAt(k);
    if (sign === C.PLUS || sign === C.MINUS) k++;
    if (isDigit(text.charCodeAt(k))) {
      while (k < len && isDigit(text.charCodeAt(k))) k++;
      return [T.NUM_FLOAT, start, k];
    }
  }
  if (isFloat) return [T.NUM_FLOAT, start, j];
  const s = text.charCodeAt(j);
  if (s === C.u || s === C.U) return [T.NUM_UINT, start, j + 1];
  return [T.NUM_INT, start, j];
}
