// Defaults on create of the kinds in API groups (apps, batch, networking, policy, rbac, ...)
// match kube-apiserver 1.34; expected objects are written from upstream's defaulting rules.
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { defaultedTemplate, itCreatesWithDefaults, ns, serverPerFile, template, type DefaultCase } from "./support/builtin-types.js";

const server = serverPerFile();

const groupCases: DefaultCase[] = [
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
      status: {},
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
      status: {},
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
      // v2's zero status: currentMetrics is a list Go writes without omitempty.
      status: { currentMetrics: null, desiredReplicas: 0 },
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
    expected: { spec: { matchingPrecedence: 1000, priorityLevelConfiguration: { name: "pl1" } }, status: {} },
    statusByController: true,
  },
  {
    name: "PriorityLevelConfiguration (unset shares)",
    path: `/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations`,
    body: { metadata: { name: "pl1" }, spec: { type: "Limited", limited: { limitResponse: { type: "Queue", queuing: {} } } } },
    expected: {
      spec: {
        type: "Limited",
        limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: "Queue", queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } },
      },
      status: {},
    },
  },
  {
    name: "PriorityLevelConfiguration (explicit 0)",
    path: `/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations`,
    body: { metadata: { name: "pl0" }, spec: { type: "Limited", limited: { nominalConcurrencyShares: 0, limitResponse: { type: "Reject" } } } },
    expected: { spec: { type: "Limited", limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: { type: "Reject" } } }, status: {} },
  },
];

describe("defaults on create of group kinds match kube-apiserver 1.34", () => {
  itCreatesWithDefaults(server, groupCases);

  it("Job: generated selector and labels, job defaults", async () => {
    const r = await req(server(), "POST", `/apis/batch/v1/namespaces/${ns}/jobs`, { body: { metadata: { name: "j1" }, spec: { template: template({ app: "j" }, { restartPolicy: "Never" }) } } });
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
});
