import { describe, expect, it } from "vitest";
import { DecodeError } from "../decode-error.js";
import { getProtoMessage, protoMessageForDefinition, protoMessageForGVK } from "../schema/protobuf-facts.js";
import { definitionNames, getDefinition, resolveRef, type SchemaFacts } from "../schema/schema-facts.js";
import { ProtobufNotSupportedError, decodeWatchStream, isProtobufAvailable, protobufCodec } from "./index.js";

// Bodies POSTed by kubectl 1.32.4 (`kubectl create configmap x --from-literal=a=b`,
// `create deployment d --image=nginx --replicas=0`, `create secret generic s --from-literal=k=v`,
// all with -n default) to a scratch HTTP server that saved the request bodies.
const KUBECTL_CONFIGMAP = "azhzAAoPCgJ2MRIJQ29uZmlnTWFwEiIKGAoBeBIAGgdkZWZhdWx0IgAqADIAOABCABIGCgFhEgFiGgAiAA==";
const KUBECTL_DEPLOYMENT =
  "azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EqoBCiIKAWQSABoHZGVmYXVsdCIAKgAyADgAQgBaCAoDYXBwEgFkEnYIABIKCggKA2FwcBIBZBpeChoKABIAGgAiACoAMgA4AEIAWggKA2FwcBIBZBJAEiIKBW5naW54EgVuZ2lueCoAQgBqAHIAgAEAiAEAkAEAogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA";
const KUBECTL_SECRET = "azhzAAoMCgJ2MRIGU2VjcmV0EiQKGAoBcxIAGgdkZWZhdWx0IgAqADIAOABCABIGCgFrEgF2GgAaACIA";

const b64 = (s: string) => Buffer.from(s, "base64");
const ascii = (s: string) => [...Buffer.from(s)];

function decodeError(body: Buffer): DecodeError {
  try {
    protobufCodec.decode(body);
  } catch (e) {
    expect(e).toBeInstanceOf(DecodeError);
    return e as DecodeError;
  }
  throw new Error("decoded without error");
}

// ------------------------------------------------------------------ sample objects

const SPECIAL_DEFS: Record<string, (n: number, depth: number) => unknown> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": () => "2024-01-02T03:04:05Z",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": () => "2024-01-02T03:04:05.123456Z",
  "io.k8s.apimachinery.pkg.api.resource.Quantity": () => "100m",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": (n) => (n % 2 === 0 ? 8080 : "http"),
  "io.k8s.apimachinery.pkg.runtime.RawExtension": () => ({ apiVersion: "v1", kind: "Thing", spec: { a: [1, "b"] } }),
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": () => ({ "f:metadata": { "f:labels": { ".": {} } } }),
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": () => ({ any: ["json", 1, true] }),
};
const PROPS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
const PROPS_OR: Record<string, (n: number, depth: number) => unknown> = {
  [`${PROPS}OrArray`]: (n, d) => (n % 2 === 0 ? sample(PROPS, d + 1) : [sample(PROPS, d + 1), sample(PROPS, d + 1)]),
  [`${PROPS}OrBool`]: (n, d) => (n % 2 === 0 ? false : sample(PROPS, d + 1)),
  [`${PROPS}OrStringArray`]: (n, d) => (n % 2 === 0 ? ["a", "b"] : sample(PROPS, d + 1)),
};
const MAX_DEPTH = 7;
let counter = 0;

/** JSON keys a message accepts (inline members flattened). */
function messageKeys(message: string): Set<string> {
  const keys = new Set<string>();
  for (const f of getProtoMessage(message)?.fields ?? []) {
    if (f.inline) for (const k of messageKeys(f.type)) keys.add(k);
    else keys.add(f.jsonName ?? f.name);
  }
  return keys;
}

function sample(node: SchemaFacts | string, depth: number): unknown {
  const schema: SchemaFacts = typeof node === "string" ? { $ref: node } : node;
  const n = counter++;
  if (schema.$ref !== undefined) {
    const special = SPECIAL_DEFS[schema.$ref] ?? PROPS_OR[schema.$ref];
    if (special !== undefined) return special(n, depth);
    const def = resolveRef(schema);
    const message = protoMessageForDefinition(schema.$ref);
    if (def.type === "object" && def.properties !== undefined && message !== undefined) {
      if (depth >= MAX_DEPTH) return {};
      const keys = messageKeys(message);
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(def.properties)) {
        if (!keys.has(k)) continue; // e.g. apiVersion/kind of a nested DeleteOptions: not in the message
        out[k] = sample(p, depth + 1);
      }
      return out;
    }
    return sample(def, depth);
  }
  switch (schema.type) {
    case "string":
      if (schema.format === "byte") return "aGVsbG8=";
      return `s${n}`;
    case "integer":
      return n % 3 === 0 ? -5 : 7 + n;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "array":
      return [sample(schema.items!, depth + 1), sample(schema.items!, depth + 1)];
    case "object":
      if (typeof schema.additionalProperties === "object") {
        return { k1: sample(schema.additionalProperties, depth + 1), k2: sample(schema.additionalProperties, depth + 1) };
      }
      return {};
  }
  return `s${n}`;
}

interface KindCase {
  apiVersion: string;
  kind: string;
  definition: string;
}

function kindsWithMessages(): KindCase[] {
  const out: KindCase[] = [];
  for (const def of definitionNames()) {
    for (const gvk of getDefinition(def)!["x-kubernetes-group-version-kind"] ?? []) {
      if (protoMessageForGVK(gvk.group, gvk.version, gvk.kind) !== protoMessageForDefinition(def)) continue;
      if (protoMessageForDefinition(def) === undefined) continue;
      out.push({ apiVersion: gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`, kind: gvk.kind, definition: def });
    }
  }
  return out;
}

function sampleObject(c: KindCase): Record<string, unknown> {
  const obj = sample(c.definition, 0) as Record<string, unknown>;
  return { ...obj, apiVersion: c.apiVersion, kind: c.kind };
}

// ------------------------------------------------------------------ tests

describe("protobuf codec", () => {
  it("has the upstream media types", () => {
    expect(protobufCodec.mediaType).toBe("application/vnd.kubernetes.protobuf");
    expect(protobufCodec.streamContentType).toBe("application/vnd.kubernetes.protobuf;stream=watch");
  });

  it("encodes a tiny ConfigMap to hand-computed bytes", () => {
    const bytes = protobufCodec.encode({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", namespace: "default" },
      data: { a: "b" },
      unknownField: "dropped",
    });
    const expected = [
      0x6b, 0x38, 0x73, 0x00, // magic
      0x0a, 0x0f, // Unknown.typeMeta, 15 bytes
      0x0a, 0x02, ...ascii("v1"), // apiVersion
      0x12, 0x09, ...ascii("ConfigMap"), // kind
      0x12, 0x16, // Unknown.raw, 22 bytes: the ConfigMap message
      0x0a, 0x0c, // ConfigMap.metadata (1), 12 bytes
      0x0a, 0x01, ...ascii("x"), // ObjectMeta.name (1)
      0x1a, 0x07, ...ascii("default"), // ObjectMeta.namespace (3)
      0x12, 0x06, // ConfigMap.data (2), one map entry of 6 bytes
      0x0a, 0x01, ...ascii("a"), // key
      0x12, 0x01, ...ascii("b"), // value
      0x1a, 0x00, // Unknown.contentEncoding "" (Go always writes it)
      0x22, 0x00, // Unknown.contentType ""
    ];
    expect([...bytes]).toEqual(expected);
  });

  it("writes the zero values Go writes when they are present in JSON, so Go's bytes are reproduced", () => {
    // kubectl's body carries every non-pointer ObjectMeta field plus an empty creationTimestamp;
    // the same fields given in JSON give the same bytes except for the zero Time (JSON null is skipped).
    const ours = protobufCodec.encode({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", generateName: "", namespace: "default", selfLink: "", uid: "", resourceVersion: "", generation: 0 },
      data: { k: "dg==" },
      type: "",
    });
    const go = b64(KUBECTL_SECRET);
    // kubectl's metadata ends "38 00 42 00" (generation 0, empty creationTimestamp) at offset 42.
    expect(go.subarray(42, 46).toString("hex")).toBe("38004200");
    const expected = Buffer.concat([go.subarray(0, 44), go.subarray(46)]);
    expected[19] -= 2; // Unknown.raw length
    expected[21] -= 2; // ConfigMap.metadata length
    expect(ours.toString("hex")).toBe(expected.toString("hex"));
  });

  it("decodes bodies sent by kubectl 1.32", () => {
    expect(protobufCodec.decode(b64(KUBECTL_CONFIGMAP))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", namespace: "default", creationTimestamp: null },
      data: { a: "b" },
    });
    expect(protobufCodec.decode(b64(KUBECTL_SECRET))).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "default", creationTimestamp: null },
      data: { k: "dg==" },
    });
    // Zero values of non-pointer fields are dropped (Go's JSON omits them); pointer fields such
    // as spec.replicas keep an explicit zero; empty non-pointer structs stay as {}.
    expect(protobufCodec.decode(b64(KUBECTL_DEPLOYMENT))).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", namespace: "default", creationTimestamp: null, labels: { app: "d" } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "d" } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: "d" } },
          spec: { containers: [{ name: "nginx", image: "nginx", resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  const kinds = kindsWithMessages();
  it("finds every kind with a protobuf message", () => {
    expect(kinds.length).toBeGreaterThan(250);
    expect(kinds.map((k) => `${k.apiVersion}/${k.kind}`)).toEqual(
      expect.arrayContaining(["v1/Pod", "v1/PodList", "v1/Status", "apps/v1/Deployment", "apiextensions.k8s.io/v1/CustomResourceDefinition"]),
    );
  });

  it.each(kinds.map((k) => [`${k.apiVersion} ${k.kind}`, k] as const))("round-trips %s", (_name, k) => {
    counter = 0;
    const obj = sampleObject(k);
    const bytes = protobufCodec.encode(obj);
    expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(protobufCodec.decode(bytes)).toEqual(obj);
    // Deterministic: same object, same bytes.
    expect(protobufCodec.encode(obj).equals(bytes)).toBe(true);
  });

  it("writes fields in number order and map entries sorted by key", () => {
    const a = protobufCodec.encode({ kind: "ConfigMap", apiVersion: "v1", data: { b: "2", a: "1" }, metadata: { labels: { z: "1", y: "2" }, name: "n" } });
    const b = protobufCodec.encode({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "n", labels: { y: "2", z: "1" } }, data: { a: "1", b: "2" } });
    expect(a.equals(b)).toBe(true);
    const hex = a.toString("hex");
    expect(hex.indexOf(Buffer.from("y").toString("hex") + "1201")).toBeLessThan(hex.indexOf(Buffer.from("z").toString("hex") + "1201"));
  });

  it("encodes special types as upstream does", () => {
    const ev = protobufCodec.encode({
      apiVersion: "v1",
      kind: "Service",
      spec: { ports: [{ port: 80, targetPort: "http" }, { port: 81, targetPort: 8081 }] },
      metadata: { creationTimestamp: "2024-01-02T03:04:05Z" },
    });
    const hex = ev.toString("hex");
    // creationTimestamp (8): {seconds=1704164645, nanos=0}
    expect(hex).toContain("4208" + "08a5facdac06" + "1000");
    // IntOrString string form {type=1, intVal=0, strVal="http"}; int form {type=0, intVal=8081, strVal=""}
    expect(hex).toContain("220a" + "0801" + "1000" + "1a04" + Buffer.from("http").toString("hex"));
    expect(hex).toContain("2207" + "0800" + "10913f" + "1a00");
    const back = protobufCodec.decode(ev) as { spec: { ports: { targetPort: unknown }[] } };
    expect(back.spec.ports.map((p) => p.targetPort)).toEqual(["http", 8081]);

    const mt = protobufCodec.encode({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", spec: { renewTime: "2024-01-02T03:04:05.123456789Z", leaseDurationSeconds: -1 } });
    expect(protobufCodec.decode(mt)).toEqual({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", spec: { renewTime: "2024-01-02T03:04:05.123456Z", leaseDurationSeconds: -1 } });
    // negative int32: ten-byte varint
    expect(mt.toString("hex")).toContain("10ffffffffffffffffff01");
  });

  it("encodes lists and Status", () => {
    const list = { apiVersion: "v1", kind: "PodList", metadata: { resourceVersion: "5" }, items: [{ metadata: { name: "a" } }, { metadata: { name: "b" }, spec: { containers: [{ name: "c", image: "i" }] } }] };
    expect(protobufCodec.decode(protobufCodec.encode(list))).toEqual(list);
    const status = { apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message: "nope", reason: "NotFound", details: { name: "x", kind: "pods" }, code: 404 };
    expect(protobufCodec.decode(protobufCodec.encode(status))).toEqual(status);
  });

  it("refuses kinds without a protobuf message (Table, custom resources)", () => {
    expect(() => protobufCodec.encode({ apiVersion: "meta.k8s.io/v1", kind: "Table", rows: [] })).toThrow(ProtobufNotSupportedError);
    expect(() => protobufCodec.encode({ apiVersion: "example.com/v1", kind: "Widget" })).toThrow(/cannot be encoded to a protobuf message/);
    expect(isProtobufAvailable("v1", "Pod")).toBe(true);
    expect(isProtobufAvailable("meta.k8s.io/v1", "PartialObjectMetadataList")).toBe(true);
    expect(isProtobufAvailable("meta.k8s.io/v1", "Table")).toBe(false);
    expect(isProtobufAvailable("example.com/v1", "Widget")).toBe(false);
  });

  it("frames watch events as upstream does", () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", resourceVersion: "7" } };
    const frame = protobufCodec.encodeWatchEvent("ADDED", pod);
    const enveloped = protobufCodec.encode(pod);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    // WatchEvent{type=1 "ADDED", object=2 RawExtension{raw=1 <prefix + Unknown>}}, no envelope around the event
    const expected = Buffer.concat([
      Buffer.from([0x0a, 0x05]),
      Buffer.from("ADDED"),
      Buffer.from([0x12, enveloped.length + 2, 0x0a, enveloped.length]),
      enveloped,
    ]);
    expect(frame.subarray(4).toString("hex")).toBe(expected.toString("hex"));
    const status = { apiVersion: "v1", kind: "Status", status: "Failure", code: 410, reason: "Expired", message: "too old" };
    const stream = Buffer.concat([frame, protobufCodec.encodeWatchEvent("ERROR", status), protobufCodec.encodeWatchEvent("DELETED", pod)]);
    expect(decodeWatchStream(stream)).toEqual([
      { type: "ADDED", object: pod },
      { type: "ERROR", object: status },
      { type: "DELETED", object: pod },
    ]);
    expect(() => decodeWatchStream(stream.subarray(0, stream.length - 1))).toThrow(DecodeError);
  });

  it("rejects malformed input with DecodeError", () => {
    expect(decodeError(Buffer.alloc(0)).message).toBe("empty data");
    expect(decodeError(Buffer.from('{"kind":"Pod"}')).message).toBe(
      "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
    );
    expect(decodeError(Buffer.from([0x6b, 0x38])).message).toMatch(/expected prefix/);
    expect(decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00])).message).toBe("empty body");
    const good = b64(KUBECTL_DEPLOYMENT);
    // Every cut inside typeMeta or raw (offset 27 is the field boundary between them: valid protobuf).
    for (let i = 5; i < good.length - 4; i++) if (i !== 27) expect(() => protobufCodec.decode(good.subarray(0, i)), `cut at ${i}`).toThrow(DecodeError);
    // A length far past the end.
    decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]));
    // Truncated varint.
    decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x08, 0x80]));
    // Bad wire types (3, 4, 6, 7) and wrong wire type for a known field.
    for (const wt of [3, 4, 6, 7]) decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x28 | wt, 0x00]));
    decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x08, 0x01]));
    // Unknown kind, missing kind.
    const env = (apiVersion: string, kind: string, raw: number[]) =>
      Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 4 + apiVersion.length + kind.length, 0x0a, apiVersion.length, ...ascii(apiVersion), 0x12, kind.length, ...ascii(kind), 0x12, raw.length, ...raw]);
    expect(decodeError(env("v1", "Nope", [])).message).toMatch(/no kind "Nope" is registered/);
    expect(decodeError(env("v1", "", [])).message).toMatch(/Kind/);
    // Malformed raw: a nested length past its parent, wrong wire type inside an object.
    decodeError(env("v1", "ConfigMap", [0x0a, 0x05, 0x0a, 0x09, 0x61]));
    decodeError(env("v1", "ConfigMap", [0x0a, 0x02, 0x08, 0x01]));
    // Unknown field numbers are skipped.
    expect(protobufCodec.decode(env("v1", "ConfigMap", [0xf8, 0x06, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x78]))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x" },
    });
  });

  it("never throws anything but DecodeError on random or corrupted input", () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const good = protobufCodec.encode((() => {
      counter = 0;
      return sampleObject({ apiVersion: "v1", kind: "Pod", definition: "io.k8s.api.core.v1.Pod" });
    })());
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.from(good);
      const flips = 1 + Math.floor(rnd() * 4);
      for (let j = 0; j < flips; j++) b[4 + Math.floor(rnd() * (b.length - 4))] = Math.floor(rnd() * 256);
      try {
        protobufCodec.decode(b);
      } catch (e) {
        expect(e).toBeInstanceOf(DecodeError);
      }
    }
    for (let i = 0; i < 500; i++) {
      const b = Buffer.from([0x6b, 0x38, 0x73, 0x00, ...Array.from({ length: Math.floor(rnd() * 64) }, () => Math.floor(rnd() * 256))]);
      try {
        protobufCodec.decode(b);
      } catch (e) {
        expect(e).toBeInstanceOf(DecodeError);
      }
    }
  });
});
