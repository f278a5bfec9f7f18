// The one conformance suite every codec runs (JSON, YAML, protobuf, CBOR), as storage backends,
// authenticators and authorizers have theirs: what a codec encodes it decodes to the same value
// (pretty or not), the same value always gives the same bytes, a watch stream of several events
// reads back as those events in order, negotiation finds the codec by its media type, and bad
// input is a DecodeError (a 400 to the client) and never any other exception.
import { describe, expect, it } from "vitest";
import type { Codec } from "./codec.js";
import { DecodeError } from "./decode-error.js";
import { CodecSet, negotiateInput, negotiateOutput } from "./negotiate.js";
import { parseMediaType } from "./media-type.js";

export interface CodecConformanceCase {
  readonly codec: Codec;
  /** Objects the codec must carry unchanged (the shared built-in samples are always added). */
  readonly samples?: readonly Record<string, unknown>[];
  /** How a client reads this codec's watch framing back into events. */
  decodeWatchStream(bytes: Buffer): { type: string; object: unknown }[];
}

/** Built-in objects every codec carries, protobuf included (so only kinds with a message). */
export const builtinSamples: readonly Record<string, unknown>[] = [
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "default", labels: { app: "web", "example.com/tier": "front" }, annotations: { note: "naïve — ünïcödé ✓ 日本" }, resourceVersion: "42", uid: "5f0c1b8e-2a4e-4c8e-9d55-0b1a7c1e2f33" },
    data: { "a.conf": "line one\nline two\n", empty: "", quoted: 'say "hi"\t\\' },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0", namespace: "apps", generateName: "web-", finalizers: ["example.com/keep"] },
    spec: {
      containers: [{ name: "c", image: "nginx:1.27", ports: [{ containerPort: 8080, protocol: "TCP" }], args: ["--a", "-b=1"], stdin: true }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      nodeSelector: { "kubernetes.io/os": "linux" },
    },
  },
  { apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message: 'configmaps "x" not found', reason: "NotFound", details: { name: "x", kind: "configmaps" }, code: 404 },
  {
    apiVersion: "v1",
    kind: "ConfigMapList",
    metadata: { resourceVersion: "7", continue: "token" },
    items: [
      { metadata: { name: "one", namespace: "ns" }, data: { k: "v" } },
      { metadata: { name: "two", namespace: "ns" } },
    ],
  },
];

/** Deterministic pseudo-random bytes (a failing input can be reproduced). */
function noise(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Decodes, and lets a DecodeError through as `undefined`; any other exception fails the test. */
function decodeOrDecodeError(codec: Codec, body: Buffer): { value: unknown } | undefined {
  try {
    return { value: codec.decode(body) };
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw new Error(`${codec.mediaType}: decoding bad input threw ${(e as Error)?.name}: ${(e as Error)?.message} (only DecodeError is a 400)`);
  }
}

export function codecConformance(c: CodecConformanceCase): void {
  const { codec } = c;
  const samples = [...builtinSamples, ...(c.samples ?? [])];
  const title = (o: Record<string, unknown>) => `${String(o.kind)} ${String((o.metadata as { name?: string } | undefined)?.name ?? "")}`.trim();

  describe(`${codec.mediaType}: codec conformance`, () => {
    it("declares concrete media types that negotiation finds it by", () => {
      expect(parseMediaType(codec.mediaType)).toBeDefined();
      expect(parseMediaType(codec.streamContentType)).toBeDefined();
      const set = new CodecSet([codec]);
      expect(set.get(codec.mediaType)).toBe(codec);
      expect(negotiateInput(codec.mediaType, set)).toBe(codec);
      expect(negotiateOutput(codec.mediaType, set).codec).toBe(codec);
    });

    for (const sample of samples) {
      it(`carries ${title(sample)} unchanged, pretty or not, in the same bytes every time`, () => {
        const bytes = codec.encode(structuredClone(sample));
        expect(Buffer.isBuffer(bytes)).toBe(true);
        expect(codec.decode(bytes)).toEqual(sample);
        expect(codec.decode(codec.encode(structuredClone(sample), true))).toEqual(sample);
        expect(codec.encode(structuredClone(sample)).equals(bytes)).toBe(true);
      });

      it(`never decodes half of ${title(sample)} to the whole, and fails only with DecodeError`, () => {
        const bytes = codec.encode(sample);
        const half = decodeOrDecodeError(codec, bytes.subarray(0, Math.floor(bytes.length / 2)));
        if (half) expect(half.value).not.toEqual(sample);
      });
    }

    it("frames a watch stream that reads back as its events, in order", () => {
      const [first, second] = builtinSamples;
      const status = builtinSamples.find((o) => o.kind === "Status")!;
      const events = [
        { type: "ADDED", object: first },
        { type: "MODIFIED", object: second },
        { type: "DELETED", object: first },
        { type: "BOOKMARK", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "99" } } },
        { type: "ERROR", object: status },
      ];
      const stream = Buffer.concat(events.map((e) => codec.encodeWatchEvent(e.type, structuredClone(e.object))));
      expect(c.decodeWatchStream(stream)).toEqual(events);
    });

    it("answers bad input with DecodeError only", () => {
      const inputs = [Buffer.alloc(0), Buffer.from([0xff, 0xfe, 0x00]), Buffer.from("{\"a\":"), ...Array.from({ length: 64 }, (_, i) => noise(i + 1, 1 + ((i * 37) % 200)))];
      for (const sample of samples) {
        const bytes = codec.encode(sample);
        // Corrupt single bytes through the whole encoding.
        for (let at = 0; at < bytes.length; at += Math.max(1, Math.floor(bytes.length / 16))) {
          const bad = Buffer.from(bytes);
          bad[at] ^= 0xa5;
          inputs.push(bad);
        }
      }
      for (const input of inputs) decodeOrDecodeError(codec, input);
    });
  });
}
