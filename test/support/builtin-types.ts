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
  /** A controller writes the object's status once it exists (a FlowSchema's Dangling condition): a read is compared without it. */
  statusByController?: true;
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
      if (c.statusByController) {
        // The status is the controller's by now: compare the rest.
        const { status: _s, metadata: m, ...read } = got.json;
        const { status: _created, ...written } = r.json;
        expect({ ...read, metadata: meta({ metadata: m }) }).toEqual({ ...written, metadata: meta(r.json) });
      } else expect(got.json).toEqual(r.json);
    });
  }
}

// What the default-on admission plugins add to every pod created (as kube-apiserver 1.34):
// ServiceAccount (the default account and its projected token volume, mounted in every
// container), Priority (0, PreemptLowerPriority without a class) and DefaultTolerationSeconds.
export const tokenVolumeName = expect.stringMatching(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
export const tokenMount = { name: tokenVolumeName, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
export const tokenVolume = {
  name: tokenVolumeName,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  },
};
export const defaultTolerations = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];
export const podAdmissionDefaults = {
  serviceAccountName: "default",
  serviceAccount: "default",
  priority: 0,
  preemptionPolicy: "PreemptLowerPriority",
  tolerations: defaultTolerations,
};
