// Enumerations in the published OpenAPI documents: every built-in field whose Go type upstream
// marks +enum carries its values (`enum`) in /openapi/v3 (what kubectl explain reads and prints
// as ENUM), in /openapi/v2 JSON and in its gnostic protobuf form; custom resources keep the
// enums of their own schema.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Reader } from "../src/encoding/protobuf/wire.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { crontabCRD } from "./support/crd.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { whenSettled } from "./support/settle.js";

const kubectlBin = kubectlBinary(33);
let s: EmbeddedTestServer;
let dir: string;
let cacheN = 0;
const k = (args: string[]) => kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, `cache${cacheN++}`)}`, ...args]);

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), "kapi-openapi-enums-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
});

/** The ENUM block of `kubectl explain` plaintext output: the values, one per line. */
function explainedEnum(stdout: string): string[] {
  const m = /^ENUM:\n((?:[ \t]+\S.*\n)+)/m.exec(stdout);
  return m ? m[1].split("\n").map((l) => l.trim()).filter(Boolean) : [];
}

/** The `schemas` of a v3 document, by its index entry. */
async function v3Schemas(key: string): Promise<Record<string, any>> {
  const index = await req(s, "GET", "/openapi/v3");
  const url = index.json.paths[key].serverRelativeURL as string;
  return (await req(s, "GET", url)).json.components.schemas;
}

/** Walks gnostic protobuf: the enum values of one property of one definition of a v2 Document. */
function protoPropertyEnum(doc: Buffer, definition: string, property: string): unknown[] {
  const fields = (buf: Buffer, start: number, end: number, want: number): Array<[number, number]> => {
    const r = new Reader(buf, start, end);
    const out: Array<[number, number]> = [];
    while (r.pos < end) {
      const key = r.uvarint();
      const wire = key & 7;
      if (wire === 2) {
        const bodyEnd = r.lengthEnd();
        if (key >> 3 === want) out.push([r.pos, bodyEnd]);
        r.pos = bodyEnd;
      } else if (wire === 0) r.uvarint();
      else if (wire === 1) r.pos += 8;
      else if (wire === 5) r.pos += 4;
      else throw new Error(`wire type ${wire}`);
    }
    return out;
  };
  const str = (buf: Buffer, [a, b]: [number, number]) => buf.subarray(a, b).toString("utf8");
  /** NamedSchema entries (1: name, 2: Schema) under one container message. */
  const named = (start: number, end: number) =>
    fields(doc, start, end, 1).map(([a, b]) => ({ name: str(doc, fields(doc, a, b, 1)[0]!), schema: fields(doc, a, b, 2)[0]! }));
  const [defsStart, defsEnd] = fields(doc, 0, doc.length, 9)[0]!; // Document.definitions
  const def = named(defsStart, defsEnd).find((d) => d.name === definition);
  if (!def) throw new Error(`no definition ${definition}`);
  const [propsStart, propsEnd] = fields(doc, def.schema[0], def.schema[1], 25)[0]!; // Schema.properties
  const prop = named(propsStart, propsEnd).find((p) => p.name === property);
  if (!prop) throw new Error(`no property ${property}`);
  // Schema.enum (20) is a repeated Any whose yaml (2) holds the value
  return fields(doc, prop.schema[0], prop.schema[1], 20).map(([a, b]) => JSON.parse(str(doc, fields(doc, a, b, 2)[0]!)));
}

describe("enums in OpenAPI", () => {
  it.skipIf(!kubectlBin)("kubectl explain shows ENUM for built-in fields upstream marks +enum", async () => {
    const strategy = await k(["explain", "deployment.spec.strategy.type"]);
    expect(strategy.stderr).toBe("");
    expect(strategy.stdout).toContain("FIELD: type <string>");
    expect(explainedEnum(strategy.stdout)).toEqual(["Recreate", "RollingUpdate"]);
    const service = await k(["explain", "service.spec.type"]);
    expect(explainedEnum(service.stdout)).toEqual(["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]);
    const restart = await k(["explain", "pod.spec.restartPolicy"]);
    expect(explainedEnum(restart.stdout)).toEqual(["Always", "Never", "OnFailure"]);
    const protocol = await k(["explain", "pod.spec.containers.ports.protocol"]);
    expect(explainedEnum(protocol.stdout)).toEqual(["SCTP", "TCP", "UDP"]);
    // a field of a plain string type has none
    const image = await k(["explain", "pod.spec.containers.image"]);
    expect(image.stdout).not.toContain("ENUM:");
  });

  it("/openapi/v3 carries the values on fields, slice items and map values", async () => {
    const apps = await v3Schemas("apis/apps/v1");
    expect(apps["io.k8s.api.apps.v1.DeploymentStrategy"].properties.type).toEqual({ type: "string", enum: ["Recreate", "RollingUpdate"] });
    const core = await v3Schemas("api/v1");
    expect(core["io.k8s.api.core.v1.PersistentVolumeClaimSpec"].properties.accessModes.items.enum).toEqual(["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]);
    expect(core["io.k8s.api.core.v1.PersistentVolumeClaimStatus"].properties.allocatedResourceStatuses.additionalProperties.enum).toContain("ControllerResizeInProgress");
    // the empty string is a declared value of HostPathType, so it is listed
    expect(core["io.k8s.api.core.v1.HostPathVolumeSource"].properties.type.enum[0]).toBe("");
    // list markers beside the enum stay where they were
    expect(core["io.k8s.api.core.v1.ServiceSpec"].properties.ipFamilies).toMatchObject({ type: "array", "x-kubernetes-list-type": "atomic", items: { type: "string", enum: ["", "IPv4", "IPv6"] } });
  });

  it("/openapi/v2 carries them in JSON and in the protobuf form client-go reads", async () => {
    const json = await req(s, "GET", "/openapi/v2", { headers: { accept: "application/json" } });
    expect(json.json.definitions["io.k8s.api.core.v1.ServiceSpec"].properties.type.enum).toEqual(["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]);
    const proto = await req(s, "GET", "/openapi/v2", { headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
    expect(proto.status).toBe(200);
    expect(protoPropertyEnum(proto.body, "io.k8s.api.apps.v1.DeploymentStrategy", "type")).toEqual(["Recreate", "RollingUpdate"]);
    expect(protoPropertyEnum(proto.body, "io.k8s.api.apps.v1.DeploymentStrategy", "rollingUpdate")).toEqual([]);
  });

  it.skipIf(!kubectlBin)("custom resources keep their schema's enums", async () => {
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crontabCRD("enums.example.com") })).status).toBe(201);
    const color = await whenSettled(s, "the CRD's schema published", async () => {
      const entry = (await req(s, "GET", "/openapi/v3")).json.paths["apis/enums.example.com/v1"];
      return entry && (await req(s, "GET", entry.serverRelativeURL)).json.components.schemas["com.example.enums.v1.CronTab"]?.properties.spec.properties.color;
    });
    expect(color).toMatchObject({ type: "string", enum: ["red", "blue"] });
    const explained = await k(["explain", "crontab.spec.color", "--api-version=enums.example.com/v1"]);
    expect(explained.stderr).toBe("");
    expect(explainedEnum(explained.stdout)).toEqual(["red", "blue"]);
  });
});
