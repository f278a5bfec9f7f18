import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ApiError } from "../apimachinery/errors.js";
import { jsonCodec, yamlCodec } from "../encoding/codec.js";
import { CodecSet } from "../encoding/negotiate.js";
import { protobufCodec } from "../encoding/protobuf/index.js";
import { warningHeader, writeStatus } from "./respond.js";
import { recordingExchange } from "./recording-exchange.testkit.js";

const codecs = new CodecSet([jsonCodec, yamlCodec, protobufCodec]);
const notFound = () => new ApiError(404, "NotFound", 'pods "x" not found', { name: "x", kind: "pods" });

describe("writeStatus", () => {
  it("writes JSON when the client asks for JSON or anything", () => {
    for (const accept of [undefined, "application/json", "*/*"]) {
      const rec = recordingExchange({ headers: accept ? { accept } : {} });
      writeStatus(rec.ex, notFound(), codecs);
      expect(rec.status).toBe(404);
      expect(rec.headers["content-type"]).toBe("application/json");
      expect(rec.json()).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    }
  });

  it("writes YAML when Accept negotiates YAML", () => {
    const rec = recordingExchange({ headers: { accept: "application/yaml" } });
    writeStatus(rec.ex, notFound(), codecs);
    expect(rec.headers["content-type"]).toBe("application/yaml");
    expect(parse(rec.body())).toMatchObject({ kind: "Status", reason: "NotFound", message: 'pods "x" not found', code: 404 });
  });

  it("writes the protobuf envelope when Accept negotiates protobuf", () => {
    const rec = recordingExchange({ headers: { accept: "application/vnd.kubernetes.protobuf" } });
    writeStatus(rec.ex, notFound(), codecs);
    expect(rec.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(protobufCodec.decode(Buffer.concat(rec.chunks))).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
  });

  it("falls back to JSON rather than hide the error behind a 406", () => {
    const rec = recordingExchange({ headers: { accept: "text/html" } });
    writeStatus(rec.ex, notFound(), codecs);
    expect(rec.status).toBe(404);
    expect(rec.headers["content-type"]).toBe("application/json");
    expect(rec.json().reason).toBe("NotFound");
  });

  it("skips as=Table in Accept (errors are never tables)", () => {
    const rec = recordingExchange({ headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/yaml" } });
    writeStatus(rec.ex, notFound(), codecs);
    expect(rec.headers["content-type"]).toBe("application/yaml");
  });

  it("adds Retry-After from the Status details, warnings, and the error's own headers", () => {
    const rec = recordingExchange();
    writeStatus(rec.ex, new ApiError(429, "TooManyRequests", "slow down", { retryAfterSeconds: 3 }, { "x-extra": "1" }), codecs, { warnings: ["careful"] });
    expect(rec.headers["retry-after"]).toBe("3");
    expect(rec.headers["x-extra"]).toBe("1");
    expect(rec.headers["warning"]).toEqual(['299 - "careful"']);
    const plain = recordingExchange();
    writeStatus(plain.ex, notFound(), codecs);
    expect(plain.headers["retry-after"]).toBeUndefined();
  });
});

describe("warningHeader", () => {
  it("quotes as strconv.Quote does and sends UTF-8 bytes Node can put in a header", () => {
    const [ascii, tab, other] = warningHeader(['unknown field "spec.x"', "a\tb\u0001", 'unknown field "m\uFFFD\u00e9"']);
    expect(ascii).toBe('299 - "unknown field \\"spec.x\\""');
    expect(tab).toBe('299 - "a\\tb\\x01"');
    // U+FFFD and é as their UTF-8 bytes, one Latin-1 character each.
    expect(Buffer.from(other!, "latin1").toString("utf8")).toBe('299 - "unknown field \\"m\uFFFD\u00e9\\""');
    expect(/^[\x20-\xff]*$/.test(other!)).toBe(true);
  });
});
