// A create or update body that is not JSON, or nested deeper than Go's decoder takes (10,000
// levels), is answered as kube-apiserver answers it: 400 BadRequest in the words of Go's JSON
// scanner, wrapped as the JSON serializer's kind lookup and the handlers' transformDecodeError
// wrap them; a body as deep as Go takes is served. kubectl sends the raw bytes (`create --raw`).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const configMaps = "/api/v1/namespaces/default/configmaps";

let s: EmbeddedTestServer;
let dir: string;
let kubeconfigPath: string;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  dir = mkdtempSync(join(tmpdir(), "kapi-json-body-"));
  kubeconfigPath = join(dir, "kubeconfig");
  writeFileSync(kubeconfigPath, s.kubeconfig);
});
afterAll(async () => s?.stop());

/** `kubectl create --raw` of `body` to the ConfigMaps of default. */
async function createRaw(name: string, body: string) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, body);
  return kubectl(kubectlBin!, kubeconfigPath, ["create", "--raw", configMaps, "-f", file]);
}

/** A ConfigMap whose unknown field `x` holds arrays nested so that the body is `levels` deep. */
const nested = (name: string, levels: number) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;

const unrecognized = (scanner: string) => `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${scanner} ({"apiVersion":"v1","kind":"Con ...)`;

describe.skipIf(!kubectlBin)("JSON bodies Go's scanner refuses, through kubectl", () => {
  it("serves a body 10,000 levels deep and refuses one level more with Go's words", async () => {
    const deepest = await createRaw("deepest", nested("deepest", 10_000));
    expect(deepest.code, deepest.stderr).toBe(0);
    expect(JSON.parse(deepest.stdout).metadata.name).toBe("deepest");

    const deeper = await createRaw("deeper", nested("deeper", 10_001));
    expect(deeper.code).not.toBe(0);
    expect(deeper.stderr.trim()).toBe(`Error from server (BadRequest): ${unrecognized("invalid character '[' exceeded max depth")}`);
    // Far past it, the same answer, not a crash.
    const far = await createRaw("far", nested("far", 200_000));
    expect(far.stderr.trim()).toBe(`Error from server (BadRequest): ${unrecognized("invalid character '[' exceeded max depth")}`);
  });

  it("answers a truncated body and trailing bytes with Go's words", async () => {
    const truncated = await createRaw("truncated", '{"apiVersion":"v1","kind":"ConfigMap",');
    expect(truncated.stderr.trim()).toBe(`Error from server (BadRequest): ${unrecognized("unexpected end of JSON input")}`);
    const trailing = await createRaw("trailing", '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"}}x');
    expect(trailing.stderr.trim()).toBe(`Error from server (BadRequest): ${unrecognized("invalid character 'x' after top-level value")}`);
  });
});

describe("JSON bodies Go's scanner refuses, over HTTPS", () => {
  it("an update gets the same Status, and a body not starting as an object is summarised in hex", async () => {
    expect((await req(s, "POST", configMaps, { body: { metadata: { name: "kept" } } })).status).toBe(201);
    const put = await req(s, "PUT", `${configMaps}/kept`, { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kept"},"data":{"a":"b",}}' });
    expect(put.status).toBe(400);
    expect(put.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400, message: unrecognized("invalid character '}' looking for beginning of object key string") });
    const list = await req(s, "POST", configMaps, { body: "[1 2]" });
    expect(list.json.message).toBe("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '2' after array element (5b3120325d)");
    const empty = await req(s, "POST", configMaps, { body: "", headers: { "content-type": "application/json" } });
    expect(empty.json.message).toBe("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)");
  });
});

describe("patch documents Go's scanner refuses, over HTTPS", () => {
  const patch = (type: string, body: string, query = "") => req(s, "PATCH", `${configMaps}/patched${query}`, { body, headers: { "content-type": `application/${type}` } });

  it("answers each patch type in its patcher's words, per field validation", async () => {
    expect((await req(s, "POST", configMaps, { body: { metadata: { name: "patched" }, data: { a: "b" } } })).status).toBe(201);
    const tooDeep = `{"data":{"a":"c"},"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    const cases: [string, string, string, string][] = [
      ["merge-patch+json", tooDeep, "", "error decoding patch: invalid character '[' exceeded max depth"],
      ["merge-patch+json", '{"data":', "?fieldValidation=Strict", "error decoding patch: unexpected end of JSON input"],
      ["merge-patch+json", '{"data":', "?fieldValidation=Ignore", "Invalid JSON Patch"],
      ["json-patch+json", `[{"op":"add","path":"/data/z","value":${"[".repeat(20_000)}]}]`, "", "error decoding patch: invalid character '[' exceeded max depth"],
      ["json-patch+json", "[{]", "?fieldValidation=Ignore", "invalid character ']' looking for beginning of object key string"],
      ["strategic-merge-patch+json", tooDeep, "", "invalid character '[' exceeded max depth"],
      ["strategic-merge-patch+json", '{"data":{"a":"c"}} {}', "", "invalid character '{' after top-level value"],
    ];
    for (const [type, body, query, message] of cases) {
      const r = await patch(type, body, query);
      expect([r.status, r.json?.reason, r.json?.message], `${type}${query}`).toEqual([400, "BadRequest", message]);
    }
    // The object is as it was, and a good patch still applies.
    const ok = await patch("merge-patch+json", '{"data":{"a":"d"}}');
    expect([ok.status, ok.json.data]).toEqual([200, { a: "d" }]);
  });
});

describe.skipIf(!kubectlBin)("an unknown field named in bytes that are not UTF-8", () => {
  it("is created with upstream's warning, in UTF-8, and the connection stays up", async () => {
    // {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd-key"},"m\xff\xfe":1}: Go reads
    // each invalid byte as U+FFFD, so the field is named "m\uFFFD\uFFFD".
    const file = join(dir, "odd-key.json");
    writeFileSync(file, Buffer.concat([Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd-key"},"m'), Buffer.from([0xff, 0xfe]), Buffer.from('":1}')]));
    const k = await kubectl(kubectlBin!, kubeconfigPath, ["create", "--raw", configMaps, "-f", file]);
    expect(k.code, k.stderr).toBe(0);
    expect(JSON.parse(k.stdout).metadata.name).toBe("odd-key");
    expect(k.stderr).toContain('Warning: unknown field "m\uFFFD\uFFFD"');
  });
});
