// Shared by the test/builtin-types-*.test.ts files: one server per file, the pod template
// helpers of expected objects, and the runner of the "defaults on create" tables.
import { afterAll, beforeAll, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./client.js";

/** Starts one in-memory server for the calling test file; the getter is valid inside tests. */
export function serverPerFile(): () => TestServer {
  let s: TestServer | undefined;
  beforeAll(async () => void (s = await startTestServer({ storage: "memory" })));
  afterAll(async () => s?.stop());
  return () => s!;
}

export const ns = "default";

export const meta = (o: any) => {
  const { uid, creationTimestamp, resourceVersion, generation, managedFields, ...rest } = o.metadata;
  return rest;
};

export const container = {
  image: "nginx",
  imagePullPolicy: "Always",
  name: "c",
  resources: {},
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
};
export const podSpecDefaults = {
  dnsPolicy: "ClusterFirst",
  restartPolicy: "Always",
  schedulerName: "default-scheduler",
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};
export const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: "c", image: "nginx" }], ...extra },
});
export const defaultedTemplate = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [container], ...podSpecDefaults, ...extra },
});

export interface DefaultCase {
  name: string;
  path: string;
  body: any;
  /** Fields (beyond metadata) expected in the created object. */
  expected: Record<string, unknown>;
  labels?: Record<string, string>;
}

/** One test per case: the created object carries exactly the expected defaults, and a read answers the same. */
export function itCreatesWithDefaults(server: () => TestServer, cases: readonly DefaultCase[]): void {
  for (const c of cases) {
    it(c.name, async () => {
      const s = server();
      const r = await req(s, "POST", c.path, { body: c.body });
      expect(r.status, r.text).toBe(201);
      const { kind: _k, apiVersion: _a, metadata: _m, ...rest } = r.json;
      expect(rest).toEqual(c.expected);
      expect(meta(r.json).labels).toEqual(c.labels);
      const got = await req(s, "GET", `${c.path}/${r.json.metadata.name}`);
      expect(got.json).toEqual(r.json);
    });
  }
}
