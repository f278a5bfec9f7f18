// Built-in kinds behave as kube-apiserver 1.34: defaults on create, validation causes,
// immutability on update, Service ClusterIP / NodePort allocation. Expected objects are written
// from upstream's defaulting and validation rules.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
});
afterAll(async () => {
  await s?.stop();
});

const ns = "default";
const meta = (o: any) => {
  const { uid, creationTimestamp, resourceVersion, generation, managedFields, ...rest } = o.metadata;
  return rest;
};

const container = {
  image: "nginx",
  imagePullPolicy: "Always",
  name: "c",
  resources: {},
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
};
const podSpecDefaults = {
  dnsPolicy: "ClusterFirst",
  restartPolicy: "Always",
  schedulerName: "default-scheduler",
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};
const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: "c", image: "nginx" }], ...extra },
});
const defaultedTemplate = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [container], ...podSpecDefaults, ...extra },
});

interface DefaultCase {
  name: string;
  path: string;
  body: any;
  /** Fields (beyond metadata) expected in the created object. */
  expected: Record<string, unknown>;
  labels?: Record<string, string>;
}

const defaultCases: DefaultCase[] = [
  {
    name: "Pod",
    path: `/api/v1/namespaces/${ns}/pods`,
    body: {
      metadata: { name: "p1" },
      spec: {
        containers: [
          { name: "a", image: "nginx:1.27", ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 80 } }, resources: { limits: { cpu: "0.5", memory: "128Mi" } } },
          { name: "b", image: "registry:5000/app", env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] },
          { name: "d", image: "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000" },
        ],
        volumes: [{ name: "s", secret: { secretName: "x" } }, { name: "e" }, { name: "cm", configMap: { name: "c" } }, { name: "h", hostPath: { path: "/tmp" } }],
      },
    },
    expected: {
      spec: {
        containers: [
          {
            name: "a",
            image: "nginx:1.27",
            imagePullPolicy: "IfNotPresent",
            ports: [{ containerPort: 80, protocol: "TCP" }],
            livenessProbe: { httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
            resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "500m", memory: "128Mi" } },
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
          },
          {
            name: "b",
            image: "registry:5000/app",
            imagePullPolicy: "Always",
            env: [{ name: "N", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }],
            resources: {},
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
          },
          {
            name: "d",
            image: "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            imagePullPolicy: "IfNotPresent",
            resources: {},
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
          },
        ],
        volumes: [
          { name: "s", secret: { secretName: "x", defaultMode: 420 } },
          { name: "e", emptyDir: {} },
          { name: "cm", configMap: { name: "c", defaultMode: 420 } },
          { name: "h", hostPath: { path: "/tmp", type: "" } },
        ],
        ...podSpecDefaults,
        enableServiceLinks: true,
        preemptionPolicy: "PreemptLowerPriority",
        priority: 0,
      },
      status: { phase: "Pending", qosClass: "Burstable" },
    },
  },
  {
    name: "Deployment",
    path: `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: { metadata: { name: "d1" }, spec: { selector: { matchLabels: { app: "d" } }, template: template({ app: "d" }) } },
    expected: {
      spec: {
        progressDeadlineSeconds: 600,
        replicas: 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: "d" } },
        strategy: { rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" }, type: "RollingUpdate" },
        template: defaultedTemplate({ app: "d" }),
      },
    },
  },
  {
    name: "ReplicaSet",
    path: `/apis/apps/v1/namespaces/${ns}/replicasets`,
    body: { metadata: { name: "rs1" }, spec: { selector: { matchLabels: { app: "r" } }, template: template({ app: "r" }) } },
    expected: { spec: { replicas: 1, selector: { matchLabels: { app: "r" } }, template: defaultedTemplate({ app: "r" }) }, status: { replicas: 0 } },
  },
  {
    name: "StatefulSet",
    path: `/apis/apps/v1/namespaces/${ns}/statefulsets`,
    body: {
      metadata: { name: "ss1" },
      spec: {
        serviceName: "ss",
        selector: { matchLabels: { app: "s" } },
        template: template({ app: "s" }),
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
      },
    },
    expected: {
      spec: {
        serviceName: "ss",
        podManagementPolicy: "OrderedReady",
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
        replicas: 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: "s" } },
        template: defaultedTemplate({ app: "s" }),
        updateStrategy: { rollingUpdate: { partition: 0 }, type: "RollingUpdate" },
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" },
            status: { phase: "Pending" },
          },
        ],
      },
      status: { availableReplicas: 0, replicas: 0 },
    },
  },
  {
    name: "DaemonSet",
    path: `/apis/apps/v1/namespaces/${ns}/daemonsets`,
    body: { metadata: { name: "ds1" }, spec: { selector: { matchLabels: { app: "x" } }, template: template({ app: "x" }) } },
    expected: {
      spec: {
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: "x" } },
        template: defaultedTemplate({ app: "x" }),
        updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: "RollingUpdate" },
      },
      status: { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 },
    },
  },
  {
    name: "CronJob",
    path: `/apis/batch/v1/namespaces/${ns}/cronjobs`,
    body: { metadata: { name: "cj1" }, spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: template({}, { restartPolicy: "OnFailure" }) } } } },
    expected: {
      spec: {
        concurrencyPolicy: "Allow",
        failedJobsHistoryLimit: 1,
        jobTemplate: {
          spec: {
            backoffLimit: 6,
            completionMode: "NonIndexed",
            completions: 1,
            parallelism: 1,
            podReplacementPolicy: "TerminatingOrFailed",
            suspend: false,
            template: defaultedTemplate({}, { restartPolicy: "OnFailure" }),
          },
        },
        schedule: "*/5 * * * *",
        successfulJobsHistoryLimit: 3,
        suspend: false,
      },
    },
  },
  {
    name: "ReplicationController",
    path: `/api/v1/namespaces/${ns}/replicationcontrollers`,
    body: { metadata: { name: "rc1" }, spec: { template: template({ app: "rc" }) } },
    labels: { app: "rc" },
    expected: { spec: { replicas: 1, selector: { app: "rc" }, template: defaultedTemplate({ app: "rc" }) }, status: { replicas: 0 } },
  },
  {
    name: "PodTemplate",
    path: `/api/v1/namespaces/${ns}/podtemplates`,
    body: { metadata: { name: "pt1" }, template: template({ a: "b" }) },
    expected: { template: defaultedTemplate({ a: "b" }) },
  },
  {
    name: "Service",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "svc-defaults" }, spec: { selector: { app: "x" }, ports: [{ port: 80 }] } },
    expected: {
      spec: {
        clusterIP: expect.stringMatching(/^10\.0\.0\.\d+$/),
        clusterIPs: [expect.stringMatching(/^10\.0\.0\.\d+$/)],
        internalTrafficPolicy: "Cluster",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
        selector: { app: "x" },
        sessionAffinity: "None",
        type: "ClusterIP",
      },
      status: { loadBalancer: {} },
    },
  },
  {
    name: "Secret",
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: { metadata: { name: "sec1" }, data: { a: "YQ==" }, stringData: { b: "hello", a: "over" } },
    expected: { data: { a: Buffer.from("over").toString("base64"), b: Buffer.from("hello").toString("base64") }, type: "Opaque" },
  },
  {
    name: "ServiceAccount",
    path: `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: { metadata: { name: "sa1" } },
    expected: {},
  },
  {
    name: "ConfigMap",
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { metadata: { name: "cm1" }, data: { k: "v" } },
    expected: { data: { k: "v" } },
  },
  {
    name: "PersistentVolumeClaim",
    path: `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
    body: { metadata: { name: "pvc1" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
    expected: { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" }, status: { phase: "Pending" } },
  },
  {
    name: "Namespace",
    path: `/api/v1/namespaces`,
    body: { metadata: { name: "ns-defaults" } },
    labels: { "kubernetes.io/metadata.name": "ns-defaults" },
    expected: { spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
  },
  {
    name: "Node",
    path: `/api/v1/nodes`,
    body: { metadata: { name: "node1" }, status: { capacity: { cpu: "4", memory: "8Gi" } } },
    expected: {
      spec: {},
      status: {
        allocatable: { cpu: "4", memory: "8Gi" },
        capacity: { cpu: "4", memory: "8Gi" },
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          architecture: "", bootID: "", containerRuntimeVersion: "", kernelVersion: "", kubeProxyVersion: "", kubeletVersion: "", machineID: "", operatingSystem: "", osImage: "", systemUUID: "",
        },
      },
    },
  },
  {
    name: "Event",
    path: `/api/v1/namespaces/${ns}/events`,
    body: { metadata: { name: "ev1" }, involvedObject: { kind: "Pod", name: "p" }, reason: "R", message: "m" },
    expected: {
      involvedObject: { kind: "Pod", name: "p" },
      reason: "R",
      message: "m",
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    },
  },
  {
    name: "Lease",
    path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
    body: { metadata: { name: "l1" } },
    expected: { spec: {} },
  },
  {
    name: "Ingress",
    path: `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
    body: { metadata: { name: "ing1" }, spec: { defaultBackend: { service: { name: "s", port: { number: 80 } } } } },
    expected: { spec: { defaultBackend: { service: { name: "s", port: { number: 80 } } } }, status: { loadBalancer: {} } },
  },
  {
    name: "NetworkPolicy",
    path: `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`,
    body: { metadata: { name: "np1" }, spec: { egress: [{ ports: [{ port: 53 }] }] } },
    expected: { spec: { egress: [{ ports: [{ port: 53, protocol: "TCP" }] }], podSelector: {}, policyTypes: ["Ingress", "Egress"] } },
  },
  {
    name: "PodDisruptionBudget",
    path: `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`,
    body: { metadata: { name: "pdb1" }, spec: { minAvailable: 1, selector: { matchLabels: { a: "b" } } } },
    expected: {
      spec: { minAvailable: 1, selector: { matchLabels: { a: "b" } } },
      status: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 },
    },
  },
  {
    name: "HorizontalPodAutoscaler",
    path: `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`,
    body: { metadata: { name: "hpa1" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" }, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } },
    expected: {
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" },
        maxReplicas: 5,
        minReplicas: 1,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
        behavior: {
          scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
          scaleUp: {
            stabilizationWindowSeconds: 0,
            selectPolicy: "Max",
            policies: [
              { type: "Pods", value: 4, periodSeconds: 15 },
              { type: "Percent", value: 100, periodSeconds: 15 },
            ],
          },
        },
      },
      status: { desiredReplicas: 0 },
    },
  },
  {
    name: "PriorityClass",
    path: `/apis/scheduling.k8s.io/v1/priorityclasses`,
    body: { metadata: { name: "pc1" }, value: 100 },
    expected: { value: 100, preemptionPolicy: "PreemptLowerPriority" },
  },
  {
    name: "StorageClass",
    path: `/apis/storage.k8s.io/v1/storageclasses`,
    body: { metadata: { name: "sc1" }, provisioner: "example.com/p" },
    expected: { provisioner: "example.com/p", reclaimPolicy: "Delete", volumeBindingMode: "Immediate" },
  },
  {
    name: "Role",
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
    body: { metadata: { name: "r1" } },
    expected: { rules: null },
  },
  {
    name: "ClusterRole",
    path: `/apis/rbac.authorization.k8s.io/v1/clusterroles`,
    body: { metadata: { name: "cr1" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] },
    expected: { rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] },
  },
  {
    name: "RoleBinding",
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
    body: { metadata: { name: "rb1" }, roleRef: { kind: "Role", name: "r1" }, subjects: [{ kind: "User", name: "u" }, { kind: "ServiceAccount", name: "sa", namespace: "default" }] },
    expected: {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r1" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "u" }, { kind: "ServiceAccount", name: "sa", namespace: "default" }],
    },
  },
  {
    name: "ClusterRoleBinding",
    path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`,
    body: { metadata: { name: "crb1" }, roleRef: { kind: "ClusterRole", name: "cr1", apiGroup: "rbac.authorization.k8s.io" }, subjects: [{ kind: "Group", name: "g" }] },
    expected: {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cr1" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "g" }],
    },
  },
  {
    name: "FlowSchema",
    path: `/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas`,
    body: { metadata: { name: "fs1" }, spec: { priorityLevelConfiguration: { name: "pl1" } } },
    expected: { spec: { matchingPrecedence: 1000, priorityLevelConfiguration: { name: "pl1" } } },
  },
  {
    name: "PriorityLevelConfiguration (unset shares)",
    path: `/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations`,
    body: { metadata: { name: "pl1" }, spec: { type: "Limited", limited: { limitResponse: { type: "Queuing", queuing: {} } } } },
    expected: {
      spec: {
        type: "Limited",
        limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: "Queuing", queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } },
      },
    },
  },
  {
    name: "PriorityLevelConfiguration (explicit 0)",
    path: `/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations`,
    body: { metadata: { name: "pl0" }, spec: { type: "Limited", limited: { nominalConcurrencyShares: 0, limitResponse: { type: "Reject" } } } },
    expected: { spec: { type: "Limited", limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: { type: "Reject" } } } },
  },
];

describe("defaults on create match kube-apiserver 1.34", () => {
  for (const c of defaultCases) {
    it(c.name, async () => {
      const r = await req(s, "POST", c.path, { body: c.body });
      expect(r.status, r.text).toBe(201);
      const { kind: _k, apiVersion: _a, metadata: _m, ...rest } = r.json;
      expect(rest).toEqual(c.expected);
      expect(meta(r.json).labels).toEqual(c.labels);
      // a read answers the same
      const got = await req(s, "GET", `${c.path}/${r.json.metadata.name}`);
      expect(got.json).toEqual(r.json);
    });
  }

  it("Job: generated selector and labels, job defaults", async () => {
    const r = await req(s, "POST", `/apis/batch/v1/namespaces/${ns}/jobs`, { body: { metadata: { name: "j1" }, spec: { template: template({ app: "j" }, { restartPolicy: "Never" }) } } });
    expect(r.status, r.text).toBe(201);
    const uid = r.json.metadata.uid;
    const labels = { app: "j", "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "j1", "controller-uid": uid, "job-name": "j1" };
    expect(r.json.metadata.labels).toEqual(labels);
    expect(r.json.spec).toEqual({
      backoffLimit: 6,
      completionMode: "NonIndexed",
      completions: 1,
      parallelism: 1,
      podReplacementPolicy: "TerminatingOrFailed",
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      suspend: false,
      template: defaultedTemplate(labels, { restartPolicy: "Never" }),
    });
  });

  it("Pod QoS classes", async () => {
    const mk = async (name: string, resources: unknown) =>
      (await req(s, "POST", `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name }, spec: { containers: [{ name: "c", image: "x", resources }] } } })).json.status.qosClass;
    expect(await mk("qos-be", undefined)).toBe("BestEffort");
    expect(await mk("qos-bu", { requests: { cpu: "100m" } })).toBe("Burstable");
    expect(await mk("qos-gu", { limits: { cpu: "1", memory: "1Gi" } })).toBe("Guaranteed");
  });
});

// ---------------------------------------------------------------------------------------------

interface InvalidCase {
  name: string;
  path: string;
  body: any;
  causes: { field?: string; message: string; reason: string }[];
}

const badPod = (spec: any, name = "bad") => ({ metadata: { name }, spec });

const invalidCases: InvalidCase[] = [
  {
    name: "Pod without containers",
    path: `/api/v1/namespaces/${ns}/pods`,
    body: badPod({}),
    causes: [{ reason: "FieldValueRequired", message: "Required value", field: "spec.containers" }],
  },
  {
    name: "Pod container names, image, ports",
    path: `/api/v1/namespaces/${ns}/pods`,
    body: badPod({
      containers: [
        { name: "Web", image: "nginx", ports: [{ containerPort: 70000 }] },
        { name: "b" },
        { name: "b", image: "x" },
      ],
    }),
    causes: [
      {
        reason: "FieldValueInvalid",
        field: "spec.containers[0].name",
        message:
          "Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      },
      { reason: "FieldValueInvalid", field: "spec.containers[0].ports[0].containerPort", message: "Invalid value: 70000: must be between 1 and 65535, inclusive" },
      { reason: "FieldValueRequired", field: "spec.containers[1].image", message: "Required value" },
      { reason: "FieldValueDuplicate", field: "spec.containers[2].name", message: 'Duplicate value: "b"' },
    ],
  },
  {
    name: "Pod volumes, restartPolicy, resources",
    path: `/api/v1/namespaces/${ns}/pods`,
    body: badPod({
      restartPolicy: "Sometimes",
      volumes: [{ name: "v" }, { name: "v" }],
      containers: [{ name: "c", image: "x", resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } }],
    }),
    causes: [
      { reason: "FieldValueDuplicate", field: "spec.volumes[1].name", message: 'Duplicate value: "v"' },
      { reason: "FieldValueInvalid", field: "spec.containers[0].resources.requests", message: 'Invalid value: "2": must be less than or equal to cpu limit of 1' },
      { reason: "FieldValueNotSupported", field: "spec.restartPolicy", message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' },
    ],
  },
  {
    name: "Deployment without selector",
    path: `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: { metadata: { name: "bad" }, spec: { replicas: -1, template: template({ app: "x" }) } },
    causes: [
      { reason: "FieldValueInvalid", field: "spec.replicas", message: "Invalid value: -1: must be greater than or equal to 0" },
      { reason: "FieldValueRequired", field: "spec.selector", message: "Required value" },
      { reason: "FieldValueInvalid", field: "spec.template.metadata.labels", message: 'Invalid value: {"app":"x"}: `selector` does not match template `labels`' },
    ],
  },
  {
    name: "Deployment selector mismatch and restartPolicy",
    path: `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: { metadata: { name: "bad" }, spec: { selector: { matchLabels: { app: "y" } }, template: template({ app: "x" }, { restartPolicy: "Never" }) } },
    causes: [
      { reason: "FieldValueInvalid", field: "spec.template.metadata.labels", message: 'Invalid value: {"app":"x"}: `selector` does not match template `labels`' },
      { reason: "FieldValueNotSupported", field: "spec.template.spec.restartPolicy", message: 'Unsupported value: "Never": supported values: "Always"' },
    ],
  },
  {
    name: "Job with default restartPolicy",
    path: `/apis/batch/v1/namespaces/${ns}/jobs`,
    body: { metadata: { name: "bad" }, spec: { template: template({}) } },
    causes: [{ reason: "FieldValueNotSupported", field: "spec.template.spec.restartPolicy", message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' }],
  },
  {
    name: "Service ports, type, clusterIP",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "bad" }, spec: { type: "Magic", clusterIP: "not-an-ip", ports: [{ port: 80 }, { name: "b", port: 80 }] } },
    causes: [
      { reason: "FieldValueRequired", field: "spec.ports[0].name", message: "Required value" },
      { reason: "FieldValueInvalid", field: "spec.clusterIPs[0]", message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
      { reason: "FieldValueNotSupported", field: "spec.type", message: 'Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"' },
      { reason: "FieldValueDuplicate", field: "spec.ports[1]", message: expect.stringMatching(/^Duplicate value: /) as unknown as string },
    ],
  },
  {
    name: "Service name is a DNS-1035 label",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "1abc" }, spec: { ports: [{ port: 80 }] } },
    causes: [
      {
        reason: "FieldValueInvalid",
        field: "metadata.name",
        message:
          "Invalid value: \"1abc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      },
    ],
  },
  {
    name: "NodePort out of range",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "np-bad" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] } },
    causes: [
      { reason: "FieldValueInvalid", field: "spec.ports[0].nodePort", message: "Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767" },
    ],
  },
  {
    name: "ClusterIP out of range",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "ip-bad" }, spec: { clusterIP: "192.168.0.1", ports: [{ port: 80 }] } },
    causes: [
      {
        reason: "FieldValueInvalid",
        field: "spec.clusterIPs",
        message: 'Invalid value: ["192.168.0.1"]: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
      },
    ],
  },
  {
    name: "TLS secret keys",
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: { metadata: { name: "bad" }, type: "kubernetes.io/tls", data: { "bad key": "eA==" } },
    causes: [
      {
        reason: "FieldValueInvalid",
        field: "data[bad key]",
        message:
          "Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      },
      { reason: "FieldValueRequired", field: "data[tls.crt]", message: "Required value" },
      { reason: "FieldValueRequired", field: "data[tls.key]", message: "Required value" },
    ],
  },
  {
    name: "dockerconfigjson secret",
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: { metadata: { name: "bad" }, type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": "nope" } },
    causes: [
      { reason: "FieldValueInvalid", field: "data[.dockerconfigjson]", message: "Invalid value: \"<secret contents redacted>\": invalid character 'o' in literal null (expecting 'u')" },
    ],
  },
  {
    name: "service-account-token secret",
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: { metadata: { name: "bad" }, type: "kubernetes.io/service-account-token" },
    causes: [{ reason: "FieldValueRequired", field: "metadata.annotations[kubernetes.io/service-account.name]", message: "Required value" }],
  },
  {
    name: "ConfigMap over 1 MiB",
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { metadata: { name: "big" }, data: { a: "x".repeat(1024 * 1024), b: "y" } },
    causes: [{ reason: "FieldValueTooLong", message: "Too long: may not be more than 1048576 bytes" }],
  },
  {
    name: "RoleBinding subjects and roleRef",
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
    body: { metadata: { name: "bad" }, roleRef: { kind: "Thing", name: "x", apiGroup: "example.com" }, subjects: [{ kind: "Robot", name: "r" }, { kind: "User", name: "u", apiGroup: "x" }] },
    causes: [
      { reason: "FieldValueNotSupported", field: "roleRef.apiGroup", message: 'Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"' },
      { reason: "FieldValueNotSupported", field: "roleRef.kind", message: 'Unsupported value: "Thing": supported values: "Role", "ClusterRole"' },
      { reason: "FieldValueNotSupported", field: "subjects[0].kind", message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"' },
      { reason: "FieldValueNotSupported", field: "subjects[1].apiGroup", message: 'Unsupported value: "x": supported values: "rbac.authorization.k8s.io"' },
    ],
  },
  {
    name: "ClusterRole rule without verbs",
    path: `/apis/rbac.authorization.k8s.io/v1/clusterroles`,
    body: { metadata: { name: "bad" }, rules: [{ resources: ["pods"] }] },
    causes: [
      { reason: "FieldValueRequired", field: "rules[0].verbs", message: "Required value: verbs must contain at least one value" },
      { reason: "FieldValueRequired", field: "rules[0].apiGroups", message: "Required value: resource rules must supply at least one api group" },
    ],
  },
];

describe("invalid objects are rejected with upstream causes", () => {
  for (const c of invalidCases) {
    it(c.name, async () => {
      const r = await req(s, "POST", c.path, { body: c.body });
      expect(r.status, r.text).toBe(422);
      expect(r.json.reason).toBe("Invalid");
      expect(r.json.details.causes).toEqual(c.causes);
    });
  }

  it("volume mounts must name a volume (Not found)", async () => {
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/pods`, {
      body: badPod({ containers: [{ name: "c", image: "x", volumeMounts: [{ name: "missing", mountPath: "/m" }] }] }),
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes[0]).toMatchObject({ reason: "FieldValueNotFound", field: "spec.containers[0].volumeMounts[0].name" });
  });
});

// ---------------------------------------------------------------------------------------------

describe("immutability on update", () => {
  const put = (path: string, body: unknown) => req(s, "PUT", path, { body });

  it("Pod spec: image may change, other fields may not", async () => {
    const path = `/api/v1/namespaces/${ns}/pods`;
    const p = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { containers: [{ name: "c", image: "nginx:1" }] } } })).json;
    const ok = await put(`${path}/imm`, { ...p, spec: { ...p.spec, containers: [{ ...p.spec.containers[0], image: "nginx:2" }], activeDeadlineSeconds: 60 } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.spec.containers[0].image).toBe("nginx:2");
    const bad = await put(`${path}/imm`, { ...ok.json, spec: { ...ok.json.spec, restartPolicy: "Never" } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toHaveLength(1);
    expect(bad.json.details.causes[0].field).toBe("spec");
    expect(bad.json.details.causes[0].reason).toBe("FieldValueForbidden");
    expect(bad.json.details.causes[0].message).toMatch(
      /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/,
    );
    const tol = await put(`${path}/imm`, { ...ok.json, spec: { ...ok.json.spec, tolerations: [{ key: "k", operator: "Exists" }] } });
    expect(tol.status, tol.text).toBe(200);
  });

  it("Deployment selector is immutable", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const d = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { selector: { matchLabels: { app: "a" } }, template: template({ app: "a", b: "c" }) } } })).json;
    const r = await put(`${path}/imm`, { ...d, spec: { ...d.spec, selector: { matchLabels: { app: "a", b: "c" } } } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.selector", message: 'Invalid value: {"matchLabels":{"app":"a","b":"c"}}: field is immutable' },
    ]);
  });

  it("StatefulSet: only the allowed fields change", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
    const d = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { serviceName: "a", selector: { matchLabels: { app: "a" } }, template: template({ app: "a" }) } } })).json;
    expect((await put(`${path}/imm`, { ...d, spec: { ...d.spec, replicas: 3 } })).status).toBe(200);
    const cur = (await req(s, "GET", `${path}/imm`)).json;
    const r = await put(`${path}/imm`, { ...cur, spec: { ...cur.spec, serviceName: "b" } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      {
        reason: "FieldValueForbidden",
        field: "spec",
        message:
          "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      },
    ]);
  });

  it("Job template is immutable", async () => {
    const path = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const j = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { template: template({}, { restartPolicy: "Never" }) } } })).json;
    const tpl = structuredClone(j.spec.template);
    tpl.spec.containers[0].image = "other";
    const r = await put(`${path}/imm`, { ...j, spec: { ...j.spec, template: tpl } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: any) => [c.field, c.reason])).toEqual([["spec.template", "FieldValueInvalid"]]);
    expect(r.json.details.causes[0].message).toMatch(/: field is immutable$/);
  });

  it("Service clusterIP may not change; omitting it keeps it", async () => {
    const path = `/api/v1/namespaces/${ns}/services`;
    const svc = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { ports: [{ port: 80 }] } } })).json;
    const { clusterIP: _ip, clusterIPs: _ips, ...specWithout } = svc.spec;
    const kept = await put(`${path}/imm`, { ...svc, spec: specWithout });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.spec.clusterIP).toBe(svc.spec.clusterIP);
    const other = svc.spec.clusterIP === "10.0.0.200" ? "10.0.0.201" : "10.0.0.200";
    const r = await put(`${path}/imm`, { ...kept.json, spec: { ...kept.json.spec, clusterIP: other, clusterIPs: [other] } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "spec.clusterIPs[0]", message: `Invalid value: ["${other}"]: may not change once set` }]);
  });

  it("immutable Secret and ConfigMap", async () => {
    const sp = `/api/v1/namespaces/${ns}/secrets`;
    const sec = (await req(s, "POST", sp, { body: { metadata: { name: "frozen" }, immutable: true, stringData: { a: "1" } } })).json;
    const r = await put(`${sp}/frozen`, { ...sec, data: { a: "Mg==" } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "data", message: "Forbidden: field is immutable when `immutable` is set" }]);
    const t = await put(`${sp}/frozen`, { ...sec, immutable: false });
    expect(t.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "immutable", message: "Forbidden: field is immutable when `immutable` is set" }]);

    const cp = `/api/v1/namespaces/${ns}/configmaps`;
    const cm = (await req(s, "POST", cp, { body: { metadata: { name: "frozen" }, immutable: true, data: { a: "1" } } })).json;
    const r2 = await put(`${cp}/frozen`, { ...cm, data: { a: "2" } });
    expect(r2.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "data", message: "Forbidden: field is immutable when `immutable` is set" }]);
    const lbl = await put(`${cp}/frozen`, { ...cm, metadata: { ...cm.metadata, labels: { ok: "yes" } } });
    expect(lbl.status).toBe(200);
  });

  it("Secret type is immutable", async () => {
    const sp = `/api/v1/namespaces/${ns}/secrets`;
    const sec = (await req(s, "POST", sp, { body: { metadata: { name: "typed" } } })).json;
    const r = await put(`${sp}/typed`, { ...sec, type: "example.com/other" });
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "type", message: 'Invalid value: "example.com/other": field is immutable' }]);
  });

  it("RBAC roleRef cannot change", async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    const rb = (await req(s, "POST", path, { body: { metadata: { name: "rr" }, roleRef: { kind: "Role", name: "a", apiGroup: "rbac.authorization.k8s.io" } } })).json;
    const r = await put(`${path}/rr`, { ...rb, roleRef: { ...rb.roleRef, name: "b" } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "roleRef", message: 'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"b"}: cannot change roleRef' },
    ]);
  });

  it("PVC spec is immutable", async () => {
    const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    const pvc = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } })).json;
    const r = await put(`${path}/imm`, { ...pvc, spec: { ...pvc.spec, accessModes: ["ReadWriteMany"] } });
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueForbidden", field: "spec", message: "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims" },
    ]);
  });

  it("StorageClass parameters are immutable", async () => {
    const path = `/apis/storage.k8s.io/v1/storageclasses`;
    const sc = (await req(s, "POST", path, { body: { metadata: { name: "imm" }, provisioner: "p", parameters: { a: "1" } } })).json;
    const r = await put(`${path}/imm`, { ...sc, parameters: { a: "2" } });
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "parameters", message: "Forbidden: updates to parameters are forbidden." }]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("Service allocation", () => {
  it("gives 20 Services distinct ClusterIPs in 10.0.0.0/24, never the first address", async () => {
    const ips = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: `alloc-${i}` }, spec: { ports: [{ port: 80 }] } } });
      expect(r.status, r.text).toBe(201);
      const ip = r.json.spec.clusterIP as string;
      expect(ip).toMatch(/^10\.0\.0\.(\d+)$/);
      const last = Number(ip.split(".")[3]);
      expect(last).toBeGreaterThan(1);
      expect(last).toBeLessThan(255);
      expect(r.json.spec.clusterIPs).toEqual([ip]);
      ips.add(ip);
    }
    expect(ips.size).toBe(20);
  });

  it("rejects a ClusterIP already in use", async () => {
    const a = (await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "taken-a" }, spec: { ports: [{ port: 80 }] } } })).json;
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "taken-b" }, spec: { clusterIP: a.spec.clusterIP, ports: [{ port: 80 }] } } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.clusterIPs", message: `Invalid value: ["${a.spec.clusterIP}"]: failed to allocate IP ${a.spec.clusterIP}: provided IP is already allocated` },
    ]);
  });

  it("allocates NodePorts for NodePort and LoadBalancer Services, distinct", async () => {
    const np = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, {
      body: { metadata: { name: "np1" }, spec: { type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 443 }] } },
    });
    expect(np.status, np.text).toBe(201);
    const ports = np.json.spec.ports.map((p: any) => p.nodePort);
    for (const p of ports) expect(p).toBeGreaterThanOrEqual(30000), expect(p).toBeLessThanOrEqual(32767);
    expect(new Set(ports).size).toBe(2);
    expect(np.json.spec.externalTrafficPolicy).toBe("Cluster");
    const lb = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "lb1" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } } });
    expect(lb.status, lb.text).toBe(201);
    expect(lb.json.spec.allocateLoadBalancerNodePorts).toBe(true);
    expect(ports).not.toContain(lb.json.spec.ports[0].nodePort);
    const dup = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, {
      body: { metadata: { name: "np2" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort: ports[0] }] } },
    });
    expect(dup.status).toBe(422);
    expect(dup.json.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "spec.ports[0].nodePort", message: `Invalid value: ${ports[0]}: provided port is already allocated` }]);
  });

  it("headless and ExternalName Services", async () => {
    const h = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "headless" }, spec: { clusterIP: "None", selector: { a: "b" } } } });
    expect(h.status, h.text).toBe(201);
    expect(h.json.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    const e = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "example.com" } } });
    expect(e.status, e.text).toBe(201);
    expect(e.json.spec).toEqual({ externalName: "example.com", sessionAffinity: "None", type: "ExternalName" });
  });
});

describe("Secret stringData", () => {
  it("is merged into data on create and update and never stored", async () => {
    const sp = `/api/v1/namespaces/${ns}/secrets`;
    const c = await req(s, "POST", sp, { body: { metadata: { name: "sd" }, stringData: { user: "admin" } } });
    expect(c.json.stringData).toBeUndefined();
    expect(c.json.data).toEqual({ user: Buffer.from("admin").toString("base64") });
    const u = await req(s, "PUT", `${sp}/sd`, { body: { ...c.json, stringData: { pass: "pw" } } });
    expect(u.json.data).toEqual({ user: Buffer.from("admin").toString("base64"), pass: Buffer.from("pw").toString("base64") });
    const g = await req(s, "GET", `${sp}/sd`);
    expect(g.json.stringData).toBeUndefined();
    expect(g.json.data.pass).toBe(Buffer.from("pw").toString("base64"));
  });
});

describe("bootstrap token secrets (the spec's format)", () => {
  let bs: TestServer;
  beforeAll(async () => {
    bs = await startTestServer({ storage: "memory" });
  });
  afterAll(async () => bs?.stop());
  const b64 = (v: string) => Buffer.from(v).toString("base64");
  const token = (name: string, data: Record<string, string>) => ({ metadata: { name }, type: "bootstrap.kubernetes.io/token", data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });

  it("accepts a well-formed token and rejects malformed ones with field causes", async () => {
    const ok = await req(bs, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-abcdef", { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token" }) });
    expect(ok.status).toBe(201);
    const bad = await req(bs, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-xyz", { "token-id": "ABC", "token-secret": "short", "expiration": "tomorrow", "auth-extra-groups": "admins" }) });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(["data[auth-extra-groups]", "data[expiration]", "data[token-id]", "data[token-secret]"]);
    const wrongName = await req(bs, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-other", { "token-id": "abcdef", "token-secret": "0123456789abcdef" }) });
    expect(wrongName.status).toBe(422);
    expect(wrongName.json.details.causes[0].field).toBe("metadata.name");
  });
});
