// Values crossing into and out of CEL: JSON/YAML data becomes CEL input (integers as int, other
// numbers as double, objects as maps), and a CEL result is written back as a CEL literal — the
// form `kapi cel eval` prints and error messages quote.
import { isCelList, isCelMap, isCelType, isCelUint, type CelInput } from "@bufbuild/cel";

/** JSON data as CEL sees it: a whole number is an int (as Kubernetes' JSON decoding gives int64). */
export function celInput(value: unknown): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "bigint") return value;
  if (Array.isArray(value)) return value.map(celInput);
  if (value instanceof Uint8Array) return value;
  if (typeof value === "object") {
    const m = new Map<string, CelInput>();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) m.set(k, celInput(v));
    return m;
  }
  throw new TypeError(`no CEL value for a ${typeof value}`);
}

/** A CEL value as a CEL literal: `true`, `6`, `6u`, `1.5`, `"text"`, `b"\x00"`, `[1, 2]`, `{"k": 1}`. */
export function celLiteral(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "boolean":
      return String(v);
    case "bigint":
      return v.toString();
    case "number":
      return doubleLiteral(v);
    case "string":
      return stringLiteral(v);
  }
  if (v instanceof Uint8Array) return `b"${[...v].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("")}"`;
  if (isCelUint(v)) return `${v.value}u`;
  if (isCelList(v)) return `[${[...v].map(celLiteral).join(", ")}]`;
  if (isCelMap(v)) return `{${[...v].map(([k, x]) => `${celLiteral(k)}: ${celLiteral(x)}`).join(", ")}}`;
  if (isCelType(v)) return v.name;
  if (Array.isArray(v)) return `[${v.map(celLiteral).join(", ")}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${celLiteral(k)}: ${celLiteral(x)}`).join(", ")}}`;
  const message = v as { desc?: { typeName?: string }; toJson?: () => unknown };
  const typeName = message.desc?.typeName;
  if (typeName === "google.protobuf.Timestamp") return `timestamp(${stringLiteral(String(protoJson(v)))})`;
  if (typeName === "google.protobuf.Duration") return `duration(${stringLiteral(String(protoJson(v)))})`;
  return String(v);
}

function doubleLiteral(n: number): string {
  if (Number.isNaN(n)) return 'double("NaN")';
  if (!Number.isFinite(n)) return n > 0 ? 'double("Infinity")' : 'double("-Infinity")';
  const s = String(n);
  // A double always shows as one: 2.0, not 2 (which would read back as an int).
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function stringLiteral(s: string): string {
  return JSON.stringify(s); // CEL's double-quoted escapes are JSON's (\" \\ \n \t \uXXXX)
}

/** Timestamp and Duration messages in their JSON form (RFC 3339, "1.5s"). */
function protoJson(v: unknown): unknown {
  const m = v as { desc: { field: Record<string, unknown> }; get(f: unknown): unknown };
  const seconds = BigInt(m.get(m.desc.field.seconds) as bigint | number);
  const nanos = Number(m.get(m.desc.field.nanos));
  if ((v as { desc: { typeName: string } }).desc.typeName === "google.protobuf.Duration") {
    const frac = nanos === 0 ? "" : `.${String(Math.abs(nanos)).padStart(9, "0").replace(/0+$/, "")}`;
    return `${seconds}${frac}s`;
  }
  const ms = Number(seconds) * 1000;
  const iso = new Date(ms).toISOString().replace(/\.\d{3}Z$/, "");
  const frac = nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`;
  return `${iso}${frac}Z`;
}
