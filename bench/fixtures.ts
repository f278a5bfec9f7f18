// Realistic objects: a Deployment-owned pod with status, ~2.2 KiB of JSON as a client sends it.
// Real clusters are full of these, so per-object costs measured with them mean something.

/** Placeholders the load client fills in per request without re-serializing the object. */
export const NAME = "__NAME__";
export const SEQ = "__SEQ__";

const rs = "web-7c9f8d6b5";

/**
 * The pods' owner. It must really exist: kapi's garbage collector deletes pods whose owner is
 * missing, which would add deletions to every write benchmark and events to every watch.
 * Replicas 0: a ReplicaSet controller, should one ever run, must not add pods of its own.
 */
export function replicaSet(namespace: string): Record<string, unknown> {
  const labels = { app: "web", "pod-template-hash": "7c9f8d6b5" };
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: rs, namespace, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "registry.example.com/shop/web:1.27.3" }] } },
    },
  };
}

/**
 * A pod as the ReplicaSet controller of Deployment `web` would create it, with kubelet status. Like
 * real pods of one ReplicaSet, pods differ beyond their names: the service account volume's suffix
 * (here the pod's name, so an update keeps it) and the container's ID (here the seq).
 */
export function pod(name: string, namespace = "default", seq = "0", ownerUid = "6b3c1a5e-2f4d-4b8e-9a71-0c2d3e4f5a6b"): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      generateName: `${rs}-`,
      labels: { app: "web", "pod-template-hash": "7c9f8d6b5", tier: "frontend" },
      annotations: { "bench/seq": seq },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: rs, uid: ownerUid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      containers: [
        {
          name: "web",
          image: "registry.example.com/shop/web:1.27.3",
          imagePullPolicy: "IfNotPresent",
          ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
          env: [{ name: "LOG_LEVEL", value: "info" }],
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
          readinessProbe: { httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" }, periodSeconds: 10 },
          volumeMounts: [{ name: `kube-api-access-${name}`, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true }],
        },
      ],
      volumes: [
        {
          name: `kube-api-access-${name}`,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            ],
          },
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: "node-3",
      schedulerName: "default-scheduler",
      enableServiceLinks: true,
    },
    status: {
      phase: "Running",
      conditions: [
        { type: "Initialized", status: "True", lastTransitionTime: "2025-01-01T00:00:01Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2025-01-01T00:00:09Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2025-01-01T00:00:09Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2025-01-01T00:00:00Z" },
      ],
      hostIP: "10.0.3.17",
      podIP: "10.244.3.41",
      podIPs: [{ ip: "10.244.3.41" }],
      startTime: "2025-01-01T00:00:01Z",
      containerStatuses: [
        {
          name: "web",
          ready: true,
          started: true,
          restartCount: 0,
          image: "registry.example.com/shop/web:1.27.3",
          imageID: "registry.example.com/shop/web@sha256:3f1b2c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809",
          containerID: `containerd://9a8b7c6d5e4f30211a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e-${seq}`,
          state: { running: { startedAt: "2025-01-01T00:00:05Z" } },
          lastState: {},
        },
      ],
      qosClass: "Burstable",
    },
  };
}

/** The pod serialized once with NAME and SEQ placeholders, for cheap per-request bodies. */
export function podTemplate(namespace: string, ownerUid: string): string {
  return JSON.stringify(pod(NAME, namespace, SEQ, ownerUid));
}

/** Fill a template made by podTemplate (names and seqs contain no JSON-special characters). */
export function fillTemplate(tpl: string, name: string, seq = "0"): string {
  return tpl.replaceAll(NAME, name).replaceAll(SEQ, seq);
}
