// The verdict Go's encoding/json gives on a JSON text before it decodes anything: kube-apiserver's
// decoders run that scan on every JSON body, so a body JSON.parse refuses, or one nested deeper
// than Go allows (10,000 levels), is answered with the scan's words ("invalid character 'x' after
// top-level value", "unexpected end of JSON input", "invalid character '[' exceeded max depth").
// Written from the behaviour of Go's byte-at-a-time scanner; only error paths and very deep
// bodies pay for it.
import { goQuote } from "./go-quote.js";

/** Go's limit on nested arrays and objects. */
export const maxNestingDepth = 10_000;

const enum Phase {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

const enum State {
  BeginValue,
  BeginValueOrEmpty,
  BeginStringOrEmpty,
  BeginString,
  EndValue,
  EndTop,
  InString,
  InStringEsc,
  InStringEscU,
  Neg,
  Int,
  Zero,
  Dot,
  Dot0,
  E,
  ESign,
  E0,
  Literal,
  Error,
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's SyntaxError text for `bytes`, or undefined when Go's scanner accepts it. */
export function goJsonSyntaxError(input: Uint8Array | string): string | undefined {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  const stack: Phase[] = [];
  let state = State.BeginValue;
  let endTop = false;
  let err: string | undefined;
  /** The literal being matched (true, false, null) and how much of it has been read. */
  let literal = "";
  let literalAt = 0;
  let hexLeft = 0;

  const fail = (c: number, context: string) => {
    state = State.Error;
    err = `invalid character ${quoteChar(c)} ${context}`;
  };
  const push = (c: number, phase: Phase) => {
    stack.push(phase);
    if (stack.length > maxNestingDepth) fail(c, "exceeded max depth");
  };
  const pop = () => {
    stack.pop();
    if (stack.length === 0) {
      state = State.EndTop;
      endTop = true;
    } else state = State.EndValue;
  };

  const endValue = (c: number): void => {
    const n = stack.length;
    if (n === 0) {
      state = State.EndTop;
      endTop = true;
      return endOfTop(c);
    }
    if (isSpace(c)) {
      state = State.EndValue;
      return;
    }
    switch (stack[n - 1]) {
      case Phase.ObjectKey:
        if (c === 0x3a /* : */) {
          stack[n - 1] = Phase.ObjectValue;
          state = State.BeginValue;
        } else fail(c, "after object key");
        return;
      case Phase.ObjectValue:
        if (c === 0x2c /* , */) {
          stack[n - 1] = Phase.ObjectKey;
          state = State.BeginString;
        } else if (c === 0x7d /* } */) pop();
        else fail(c, "after object key:value pair");
        return;
      case Phase.ArrayValue:
        if (c === 0x2c) state = State.BeginValue;
        else if (c === 0x5d /* ] */) pop();
        else fail(c, "after array element");
        return;
    }
  };
  // Go records the complaint and reads on: the next byte, or the end, reports it.
  const endOfTop = (c: number): void => {
    if (!isSpace(c)) fail(c, "after top-level value");
  };
  const beginValue = (c: number): void => {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b /* { */:
        state = State.BeginStringOrEmpty;
        return push(c, Phase.ObjectKey);
      case 0x5b /* [ */:
        state = State.BeginValueOrEmpty;
        return push(c, Phase.ArrayValue);
      case 0x22 /* " */:
        state = State.InString;
        return;
      case 0x2d /* - */:
        state = State.Neg;
        return;
      case 0x30 /* 0 */:
        state = State.Zero;
        return;
      case 0x74 /* t */:
      case 0x66 /* f */:
      case 0x6e /* n */:
        literal = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
        literalAt = 1;
        state = State.Literal;
        return;
    }
    if (c >= 0x31 && c <= 0x39) state = State.Int;
    else fail(c, "looking for beginning of value");
  };
  const beginKey = (c: number): void => {
    if (isSpace(c)) return;
    if (c === 0x22) state = State.InString;
    else fail(c, "looking for beginning of object key string");
  };
  const afterZero = (c: number): void => {
    if (c === 0x2e /* . */) state = State.Dot;
    else if (c === 0x65 || c === 0x45 /* e E */) state = State.E;
    else endValue(c);
  };
  const exponentSign = (c: number): void => {
    if (isDigit(c)) state = State.E0;
    else fail(c, "in exponent of numeric literal");
  };

  const step = (c: number): void => {
    switch (state) {
      case State.BeginValue:
        return beginValue(c);
      case State.BeginValueOrEmpty:
        if (isSpace(c)) return;
        return c === 0x5d ? endValue(c) : beginValue(c);
      case State.BeginStringOrEmpty:
        if (c !== 0x7d) return beginKey(c);
        stack[stack.length - 1] = Phase.ObjectValue;
        return endValue(c);
      case State.BeginString:
        return beginKey(c);
      case State.EndValue:
        return endValue(c);
      case State.EndTop:
        return endOfTop(c);
      case State.InString:
        if (c === 0x22) state = State.EndValue;
        else if (c === 0x5c /* \ */) state = State.InStringEsc;
        else if (c < 0x20) fail(c, "in string literal");
        return;
      case State.InStringEsc:
        if (c === 0x75 /* u */) {
          state = State.InStringEscU;
          hexLeft = 4;
        } else if ("bfnrt\\/\"".includes(String.fromCharCode(c))) state = State.InString;
        else fail(c, "in string escape code");
        return;
      case State.InStringEscU:
        if (!isHex(c)) return fail(c, "in \\u hexadecimal character escape");
        if (--hexLeft === 0) state = State.InString;
        return;
      case State.Neg:
        if (c === 0x30) state = State.Zero;
        else if (c >= 0x31 && c <= 0x39) state = State.Int;
        else fail(c, "in numeric literal");
        return;
      case State.Int:
        if (isDigit(c)) return;
        return afterZero(c);
      case State.Zero:
        return afterZero(c);
      case State.Dot:
        if (isDigit(c)) state = State.Dot0;
        else fail(c, "after decimal point in numeric literal");
        return;
      case State.Dot0:
        if (isDigit(c)) return;
        if (c === 0x65 || c === 0x45) state = State.E;
        else endValue(c);
        return;
      case State.E:
        if (c === 0x2b || c === 0x2d /* + - */) state = State.ESign;
        else exponentSign(c);
        return;
      case State.ESign:
        return exponentSign(c);
      case State.E0:
        if (isDigit(c)) return;
        return endValue(c);
      case State.Literal: {
        const want = literal.charCodeAt(literalAt);
        if (c !== want) return fail(c, `in literal ${literal} (expecting ${quoteChar(want)})`);
        if (++literalAt === literal.length) state = State.EndValue;
        return;
      }
      case State.Error:
        return;
    }
  };

  for (let i = 0; i < bytes.length && err === undefined; i++) step(bytes[i]!);
  if (err !== undefined) return err;
  if (endTop) return undefined;
  // The end of the input ends a number (or finds what is still open).
  step(0x20);
  if (err !== undefined) return err;
  return endTop ? undefined : "unexpected end of JSON input";
}

/**
 * Whether a JSON text could hold arrays or objects nested deeper than Go allows: it needs more
 * than maxNestingDepth opening brackets (inside strings or not; counted natively). Almost every
 * body is ruled out by its length alone.
 */
export function mayNestTooDeep(text: string): boolean {
  if (text.length <= 2 * maxNestingDepth) return false;
  let opening = 0;
  for (const bracket of ["[", "{"]) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opening > maxNestingDepth) return true;
    }
  }
  return false;
}

/** Go's quoteChar: a byte as a quoted character literal, as strconv.Quote writes the rune of that value. */
export function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}
