import { describe, expect, it } from "vitest";
import { eventRecord, type EventFields } from "./event-record.js";
import { formatMicroTime } from "./micro-time.js";

const at = Date.UTC(2025, 0, 2, 3, 4, 5, 678) * 1000 + 901;
const fields: EventFields = {
  level: "Metadata",
  auditID: "id-1",
  stage: "ResponseComplete",
  requestURI: "/api/v1/namespaces/ns/pods?limit=1&watch=true",
  verb: "list",
  user: { username: "alice", groups: ["a", "b"], extra: { "z.k8s.io/x": ["1"], "a.k8s.io/y": ["2"] } },
  impersonatedUser: { username: "bob", groups: ["g"] },
  sourceIPs: ["10.0.0.1"],
  userAgent: "kubectl/v1.34",
  objectRef: { resource: "pods", namespace: "ns", apiVersion: "v1" },
  responseStatus: { metadata: {}, status: "Failure", message: "m", reason: "Forbidden", details: { kind: "pods", name: "p", causes: [{ message: "c", reason: "r" }] }, code: 403 },
  requestReceived: at,
  stageTime: at + 1500,
  annotations: { "z/b": "2", "a/a": "1" },
};

describe("an audit event as written", () => {
  it("is upstream's JSON: field order, omitted empties, sorted maps, Go's escaping, microseconds", () => {
    const r = eventRecord(fields);
    expect(r.json).toBe(
      '{"level":"Metadata","auditID":"id-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/pods?limit=1\\u0026watch=true","verb":"list",' +
        '"user":{"username":"alice","groups":["a","b"],"extra":{"a.k8s.io/y":["2"],"z.k8s.io/x":["1"]}},"impersonatedUser":{"username":"bob","groups":["g"]},' +
        '"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.34","objectRef":{"resource":"pods","namespace":"ns","apiVersion":"v1"},' +
        '"responseStatus":{"metadata":{},"status":"Failure","message":"m","reason":"Forbidden","details":{"name":"p","kind":"pods","causes":[{"reason":"r","message":"c"}]},"code":403},' +
        '"requestReceivedTimestamp":"2025-01-02T03:04:05.678901Z","stageTimestamp":"2025-01-02T03:04:05.680401Z","annotations":{"a/a":"1","z/b":"2"}}',
    );
    expect(r.jsonLine()).toBe(`{"kind":"Event","apiVersion":"audit.k8s.io/v1",${r.json.slice(1)}\n`);
    expect(JSON.parse(r.jsonLine())).toMatchObject({ kind: "Event", requestURI: "/api/v1/namespaces/ns/pods?limit=1&watch=true" });
    expect(formatMicroTime(at)).toBe("2025-01-02T03:04:05.678901Z");
  });

  it("has upstream's legacy line", () => {
    const line = eventRecord(fields).legacy();
    expect(line).toMatch(/^\S+ AUDIT: /);
    expect(line.slice(line.indexOf(" AUDIT: "))).toBe(
      ' AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"a\\",\\"b\\"" as="bob" asgroups="\\"g\\"" user-agent="kubectl/v1.34" namespace="ns" uri="/api/v1/namespaces/ns/pods?limit=1&watch=true" response="403"',
    );
    const bare = eventRecord({ ...fields, user: {}, impersonatedUser: undefined, sourceIPs: [], objectRef: undefined, responseStatus: undefined, stage: "RequestReceived" }).legacy();
    expect(bare.slice(bare.indexOf(" AUDIT: "))).toBe(' AUDIT: id="id-1" stage="RequestReceived" ip="<unknown>" method="list" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.34" namespace="<none>" uri="/api/v1/namespaces/ns/pods?limit=1&watch=true" response="<deferred>"');
  });
});
