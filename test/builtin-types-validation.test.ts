// Invalid objects of built-in kinds are rejected with the causes kube-apiserver 1.34 gives.
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { ns, serverPerFile, template } from "./support/builtin-types.js";

const server = serverPerFile();

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
      const r = await req(server(), "POST", c.path, { body: c.body });
      expect(r.status, r.text).toBe(422);
      expect(r.json.reason).toBe("Invalid");
      expect(r.json.details.causes).toEqual(c.causes);
    });
  }

  it("volume mounts must name a volume (Not found)", async () => {
    const r = await req(server(), "POST", `/api/v1/namespaces/${ns}/pods`, {
      body: badPod({ containers: [{ name: "c", image: "x", volumeMounts: [{ name: "missing", mountPath: "/m" }] }] }),
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes[0]).toMatchObject({ reason: "FieldValueNotFound", field: "spec.containers[0].volumeMounts[0].name" });
  });
});
