// Shared by the strategic-merge-patch tests: a schema subset with upstream's patch markers and
// small helpers. Not part of the build (*.testkit.ts).
import type { SchemaDef, SchemaResolver } from "./schema.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

// A hand-made subset of the 1.34 definitions carrying the same patch markers as upstream.
const ref = (name: string): SchemaDef => ({ $ref: `#/definitions/${name}` });
const str: SchemaDef = { type: "string" };
const strMap: SchemaDef = { type: "object", additionalProperties: str };
const defs: Record<string, SchemaDef> = {
  "io.k8s.api.apps.v1.Deployment": {
    type: "object",
    properties: { apiVersion: str, kind: str, metadata: ref("meta.v1.ObjectMeta"), spec: ref("io.k8s.api.apps.v1.DeploymentSpec") },
  },
  "meta.v1.ObjectMeta": {
    type: "object",
    properties: {
      name: str,
      annotations: strMap,
      labels: strMap,
      finalizers: { type: "array", items: str, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set" },
    },
  },
  "io.k8s.api.apps.v1.DeploymentSpec": {
    type: "object",
    properties: {
      replicas: { type: "integer", format: "int32" },
      selector: ref("meta.v1.LabelSelector"),
      strategy: { ...ref("io.k8s.api.apps.v1.DeploymentStrategy"), "x-kubernetes-patch-strategy": "retainKeys" },
      template: ref("io.k8s.api.core.v1.PodTemplateSpec"),
    },
  },
  "meta.v1.LabelSelector": { type: "object", properties: { matchLabels: strMap }, "x-kubernetes-map-type": "atomic" },
  "io.k8s.api.apps.v1.DeploymentStrategy": {
    type: "object",
    properties: { type: str, rollingUpdate: { type: "object", properties: { maxSurge: str, maxUnavailable: str } } },
  },
  "io.k8s.api.core.v1.PodTemplateSpec": {
    type: "object",
    properties: { metadata: ref("meta.v1.ObjectMeta"), spec: ref("io.k8s.api.core.v1.PodSpec") },
  },
  "io.k8s.api.core.v1.PodSpec": {
    type: "object",
    properties: {
      containers: {
        type: "array",
        items: ref("io.k8s.api.core.v1.Container"),
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      },
      volumes: {
        type: "array",
        items: ref("io.k8s.api.core.v1.Volume"),
        "x-kubernetes-patch-strategy": "merge,retainKeys",
        "x-kubernetes-patch-merge-key": "name",
      },
      tolerations: { type: "array", items: ref("io.k8s.api.core.v1.Toleration"), "x-kubernetes-list-type": "atomic" },
      nodeSelector: strMap,
      securityContext: { type: "object", properties: { runAsUser: { type: "integer" } } },
      dnsPolicy: str,
    },
  },
  "io.k8s.api.core.v1.Container": {
    type: "object",
    properties: {
      name: str,
      image: str,
      args: { type: "array", items: str },
      ports: {
        type: "array",
        items: ref("io.k8s.api.core.v1.ContainerPort"),
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-patch-merge-key": "containerPort",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
      },
      env: { type: "array", items: ref("io.k8s.api.core.v1.EnvVar"), "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
    },
  },
  "io.k8s.api.core.v1.ContainerPort": { type: "object", properties: { containerPort: { type: "integer" }, protocol: str, name: str } },
  "io.k8s.api.core.v1.EnvVar": { type: "object", properties: { name: str, value: str } },
  "io.k8s.api.core.v1.Volume": {
    type: "object",
    properties: { name: str, configMap: { type: "object" }, secret: { type: "object" }, emptyDir: { type: "object" } },
  },
  "io.k8s.api.core.v1.Toleration": { type: "object", properties: { key: str, operator: str, effect: str } },
  "io.example.Unknown": { type: "object", "x-kubernetes-preserve-unknown-fields": true },
};
// Resolver keyed by bare names only: the engine must also accept "#/definitions/..." refs.
export const resolve: SchemaResolver = (r) => defs[r];
export const DEPLOYMENT = "io.k8s.api.apps.v1.Deployment";

export const smp = (doc: unknown, patch: unknown, root = DEPLOYMENT) => applyStrategicMergePatch(doc, patch, resolve, root);
export const podSpec = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The live Deployment after the first `kubectl apply`, with server defaults filled in. */
export function liveAfterFirstApply(): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "0b6f-uid",
      resourceVersion: "100",
      generation: 1,
      annotations: { [LAST_APPLIED]: '{"v":1}\n', "deployment.kubernetes.io/revision": "1" },
    },
    spec: {
      replicas: 2,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx:1.25",
              imagePullPolicy: "IfNotPresent",
              ports: [
                { containerPort: 80, protocol: "TCP" },
                { containerPort: 8080, protocol: "TCP" },
              ],
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
              resources: {},
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
            },
          ],
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
          schedulerName: "default-scheduler",
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: { observedGeneration: 1, replicas: 2 },
  };
}
