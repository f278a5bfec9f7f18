// The OpenAPI v2 document in protobuf, as client-go asks for it (Accept:
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf): gnostic's openapi.v2.Document
// message. Field numbers are those of gnostic's OpenAPIv2.proto; vendor extensions, defaults,
// enums and examples are gnostic `Any` values carried as YAML text (JSON is YAML).
import { WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, Writer } from "../encoding/protobuf/wire.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

class ProtoWriter {
  readonly w = new Writer(1 << 20);

  private key(field: number, wire: number): void {
    this.w.uvarint(field * 8 + wire);
  }

  string(field: number, v: unknown): void {
    if (typeof v !== "string" || v === "") return;
    this.key(field, WIRE_LEN);
    this.w.string(v);
  }

  strings(field: number, v: unknown): void {
    if (!Array.isArray(v)) return;
    for (const s of v) {
      this.key(field, WIRE_LEN);
      this.w.string(String(s));
    }
  }

  bool(field: number, v: unknown): void {
    if (v !== true) return;
    this.key(field, WIRE_VARINT);
    this.w.uvarint(1);
  }

  int(field: number, v: unknown): void {
    if (typeof v !== "number" || v === 0) return;
    this.key(field, WIRE_VARINT);
    this.w.int(v);
  }

  double(field: number, v: unknown): void {
    if (typeof v !== "number" || v === 0) return;
    this.key(field, WIRE_FIXED64);
    this.w.double(v);
  }

  message(field: number, body: () => void): void {
    this.key(field, WIRE_LEN);
    const mark = this.w.beginLength();
    body();
    this.w.endLength(mark);
  }

  /** gnostic Any: the value as YAML text (field 2). */
  any(field: number, v: unknown): void {
    if (v === undefined) return;
    this.message(field, () => this.string(2, JSON.stringify(v)));
  }

  /** Repeated NamedAny of the object's x- keys. */
  vendorExtensions(field: number, o: Json): void {
    for (const [k, v] of Object.entries(o)) {
      if (!k.startsWith("x-")) continue;
      this.message(field, () => {
        this.string(1, k);
        this.any(2, v);
      });
    }
  }
}

function schema(p: ProtoWriter, s: Json): void {
  p.string(1, s.$ref);
  p.string(2, s.format);
  p.string(3, s.title);
  p.string(4, s.description);
  p.any(5, s.default);
  p.double(6, s.multipleOf);
  p.double(7, s.maximum);
  p.bool(8, s.exclusiveMaximum);
  p.double(9, s.minimum);
  p.bool(10, s.exclusiveMinimum);
  p.int(11, s.maxLength);
  p.int(12, s.minLength);
  p.string(13, s.pattern);
  p.int(14, s.maxItems);
  p.int(15, s.minItems);
  p.bool(16, s.uniqueItems);
  p.int(17, s.maxProperties);
  p.int(18, s.minProperties);
  p.strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) p.any(20, e);
  if (isObject(s.additionalProperties)) {
    const ap = s.additionalProperties;
    p.message(21, () => p.message(1, () => schema(p, ap)));
  } else if (typeof s.additionalProperties === "boolean") {
    const b = s.additionalProperties;
    p.message(21, () => {
      // A oneof's false is still written: it says which member is set.
      p.w.uvarint(2 * 8 + WIRE_VARINT);
      p.w.uvarint(b ? 1 : 0);
    });
  }
  if (s.type !== undefined) p.message(22, () => p.strings(1, Array.isArray(s.type) ? s.type : [s.type]));
  if (isObject(s.items)) {
    const items = s.items;
    p.message(23, () => p.message(1, () => schema(p, items)));
  }
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) p.message(24, () => schema(p, a));
  if (isObject(s.properties)) {
    const props = s.properties;
    p.message(25, () => {
      for (const [name, v] of Object.entries(props)) if (isObject(v)) p.message(1, () => named(p, name, () => schema(p, v)));
    });
  }
  p.string(26, s.discriminator);
  p.bool(27, s.readOnly);
  p.any(30, s.example);
  p.vendorExtensions(31, s);
}

function named(p: ProtoWriter, name: string, value: () => void): void {
  p.string(1, name);
  p.message(2, value);
}

function parameter(p: ProtoWriter, param: Json): void {
  // ParametersItem.parameter (1) → Parameter
  p.message(1, () => {
    if (param.in === "body") {
      p.message(1, () => {
        p.string(1, param.description);
        p.string(2, param.name);
        p.string(3, param.in);
        p.bool(4, param.required);
        if (isObject(param.schema)) {
          const s = param.schema;
          p.message(5, () => schema(p, s));
        }
      });
      return;
    }
    // NonBodyParameter: header 1, formData 2, query 3, path 4. Their sub-schemas share the first
    // four fields; type and uniqueItems sit one further on where allowEmptyValue comes first.
    const member = param.in === "header" ? 1 : param.in === "formData" ? 2 : param.in === "path" ? 4 : 3;
    const hasAllowEmpty = member === 2 || member === 3;
    p.message(2, () =>
      p.message(member, () => {
        p.bool(1, param.required);
        p.string(2, param.in);
        p.string(3, param.description);
        p.string(4, param.name);
        p.string(hasAllowEmpty ? 6 : 5, param.type);
        p.bool(hasAllowEmpty ? 20 : 19, param.uniqueItems);
      }),
    );
  });
}

function operation(p: ProtoWriter, op: Json): void {
  p.strings(1, op.tags);
  p.string(2, op.summary);
  p.string(3, op.description);
  p.string(5, op.operationId);
  p.strings(6, op.produces);
  p.strings(7, op.consumes);
  if (Array.isArray(op.parameters)) for (const param of op.parameters) if (isObject(param)) p.message(8, () => parameter(p, param));
  if (isObject(op.responses)) {
    const responses = op.responses;
    p.message(9, () => {
      for (const [code, r] of Object.entries(responses)) {
        if (!isObject(r)) continue;
        p.message(1, () =>
          named(p, code, () =>
            p.message(1, () => {
              p.string(1, r.description);
              if (isObject(r.schema)) {
                const s = r.schema;
                p.message(2, () => p.message(1, () => schema(p, s)));
              }
            }),
          ),
        );
      }
    });
  }
  p.strings(10, op.schemes);
  p.bool(11, op.deprecated);
  p.vendorExtensions(13, op);
}

const pathMethods: [string, number][] = [["get", 2], ["put", 3], ["post", 4], ["delete", 5], ["options", 6], ["head", 7], ["patch", 8]];

/** The gnostic openapi.v2.Document encoding of a v2 document. */
export function encodeOpenAPIV2Proto(doc: Json): Buffer {
  const p = new ProtoWriter();
  p.string(1, doc.swagger);
  if (isObject(doc.info)) {
    const info = doc.info;
    p.message(2, () => {
      p.string(1, info.title);
      p.string(2, info.version);
    });
  }
  if (isObject(doc.paths)) {
    const paths = doc.paths;
    p.message(8, () => {
      for (const [path, item] of Object.entries(paths)) {
        if (!isObject(item)) continue;
        p.message(2, () =>
          named(p, path, () => {
            for (const [m, field] of pathMethods) if (isObject(item[m])) p.message(field, () => operation(p, item[m] as Json));
            if (Array.isArray(item.parameters)) for (const param of item.parameters) if (isObject(param)) p.message(9, () => parameter(p, param));
          }),
        );
      }
    });
  }
  if (isObject(doc.definitions)) {
    const defs = doc.definitions;
    p.message(9, () => {
      for (const [name, s] of Object.entries(defs)) if (isObject(s)) p.message(1, () => named(p, name, () => schema(p, s)));
    });
  }
  if (Array.isArray(doc.security)) {
    for (const req of doc.security) {
      if (!isObject(req)) continue;
      p.message(12, () => {
        for (const [name, scopes] of Object.entries(req)) p.message(1, () => named(p, name, () => p.strings(1, scopes)));
      });
    }
  }
  if (isObject(doc.securityDefinitions)) {
    const defs = doc.securityDefinitions;
    p.message(13, () => {
      for (const [name, d] of Object.entries(defs)) {
        if (!isObject(d) || d.type !== "apiKey") continue;
        p.message(1, () =>
          named(p, name, () =>
            p.message(2, () => {
              p.string(1, d.type);
              p.string(2, d.name);
              p.string(3, d.in);
            }),
          ),
        );
      }
    });
  }
  return p.w.finish();
}
