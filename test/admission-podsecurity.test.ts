// PodSecurity admission through real clients (kubectl, @kubernetes/client-node, raw HTTPS):
// enforce refuses with upstream's message, warn gives the Warning kubectl prints, workloads only
// warn (at the enforce level when no warn label is set), namespace labels are validated and
// tightening them lists the violating pods, defaults and exemptions come from the
// PodSecurityConfiguration in --admission-control-config-file.
// (Ephemeral containers are covered by the unit tests: kapi does not serve pods/ephemeralcontainers yet.)
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { req, withCredentials, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let server: KapiServer;
let s: TestServer;
let core: k8s.CoreV1Api;

const admissionConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      warn: baseline
    exemptions:
      namespaces: [exempt-ns]
      runtimeClasses: [trusted]
      usernames: [exempt-user]
`;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-podsecurity-"));
  const configPath = join(dir, "admission.yaml");
  writeFileSync(configPath, admissionConfig);
  server = await startServer({ storage: "sqlite", dataDir: join(dir, "data"), options: { admissionControlConfigFile: configPath } });
  s = withCredentials(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(async () => server?.stop());


/** A namespace with labels, ready for pods (its default ServiceAccount exists when a controller makes one). */
async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  const r = await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name, labels } } });
  expect(r.status, r.text).toBe(201);
  await server.settle();
}

const privilegedPodYaml = (name: string, ns: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  containers:
  - name: c
    image: nginx
    securityContext:
      privileged: true
`;

const restrictedPod = (name: string) => ({
  metadata: { name },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{ name: "c", image: "nginx", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
  },
});

const restrictedViolations =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

/** Warning header values of a response, decoded from `299 - "text"`. */
const warningsOf = (headers: Record<string, string | string[] | undefined>) => {
  const h = headers["warning"];
  const all = h === undefined ? [] : Array.isArray(h) ? h : [h];
  return all.flatMap((v) => v.split(/,\s*(?=299 )/)).map((v) => JSON.parse(v.replace(/^299 - /, "")) as string);
};

describe("enforce", () => {
  it.skipIf(!kubectlBin)("kubectl apply of a privileged pod into a restricted namespace shows upstream's error", async () => {
    await namespace("restricted-ns", { "pod-security.kubernetes.io/enforce": "restricted" });
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], privilegedPodYaml("priv", "restricted-ns"));
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(`Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${restrictedViolations}`);
    expect((await req(s, "GET", "/api/v1/namespaces/restricted-ns/pods/priv")).status).toBe(404);
  });

  it("answers a 403 Status through client-node, on dry run too, and admits a compliant pod", async () => {
    await namespace("restricted-2", { "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.30" });
    const body = { metadata: { name: "x" }, spec: { hostNetwork: true, containers: [{ name: "c", image: "nginx" }] } };
    for (const dryRun of [undefined, "All"]) {
      const e = await core.createNamespacedPod({ namespace: "restricted-2", body, dryRun }).catch((x) => x);
      expect(e).toBeInstanceOf(k8s.ApiException);
      const status = JSON.parse(e.body);
      expect(status).toMatchObject({
        kind: "Status",
        code: 403,
        reason: "Forbidden",
        details: { name: "x", kind: "pods" },
        message:
          'pods "x" is forbidden: violates PodSecurity "restricted:v1.30": host namespaces (hostNetwork), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
      });
    }
    const ok = await core.createNamespacedPod({ namespace: "restricted-2", body: restrictedPod("good") });
    expect(ok.metadata?.name).toBe("good");
  });

  it("checks ephemeral containers added through pods/ephemeralcontainers (what kubectl debug does)", async () => {
    await namespace("restricted-debug", { "pod-security.kubernetes.io/enforce": "restricted" });
    expect((await req(s, "POST", "/api/v1/namespaces/restricted-debug/pods", { body: restrictedPod("app") })).status).toBe(201);
    const ec = { name: "dbg", image: "busybox", terminationMessagePolicy: "File", imagePullPolicy: "Always" };
    const patch = (containers: unknown[]) =>
      req(s, "PATCH", "/api/v1/namespaces/restricted-debug/pods/app/ephemeralcontainers", { headers: { "content-type": "application/merge-patch+json" }, body: { spec: { ephemeralContainers: containers } } });
    const refused = await patch([ec]);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'pods "app" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "dbg" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "dbg" must set securityContext.capabilities.drop=["ALL"])',
    );
    const ok = await patch([{ ...ec, securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }]);
    expect(ok.status).toBe(200);
  });

  it("leaves exempt namespaces and runtime classes alone", async () => {
    await namespace("exempt-ns", { "pod-security.kubernetes.io/enforce": "restricted" });
    const r = await req(s, "POST", "/api/v1/namespaces/exempt-ns/pods", { body: { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }] } } });
    expect(r.status, r.text).toBe(201);
    // The class exists, so the RuntimeClass plugin (when enabled) lets the pod through to PodSecurity.
    const klass = await req(s, "POST", "/apis/node.k8s.io/v1/runtimeclasses", { body: { metadata: { name: "trusted" }, handler: "trusted" } });
    expect(klass.status, klass.text).toBe(201);
    const rc = await req(s, "POST", "/api/v1/namespaces/restricted-2/pods", {
      body: { metadata: { name: "trusted" }, spec: { runtimeClassName: "trusted", containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }] } },
    });
    expect(rc.status, rc.text).toBe(201);
    expect(warningsOf(rc.headers)).toEqual([]);
    // An exempt user (here by impersonation) creates pods unchecked; others do not.
    const privileged = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }] } });
    const as = (user: string) => ({ "impersonate-user": user, "impersonate-group": "system:masters" });
    const exempted = await req(s, "POST", "/api/v1/namespaces/restricted-2/pods", { headers: as("exempt-user"), body: privileged("by-exempt-user") });
    expect(exempted.status, exempted.text).toBe(201);
    const other = await req(s, "POST", "/api/v1/namespaces/restricted-2/pods", { headers: as("someone-else"), body: privileged("by-someone-else") });
    expect(other.status, other.text).toBe(403);
  });
});

describe("warn", () => {
  it.skipIf(!kubectlBin)("kubectl prints the warning of a warn label and the pod is created", async () => {
    await namespace("warn-ns", { "pod-security.kubernetes.io/warn": "restricted" });
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], privilegedPodYaml("priv", "warn-ns"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(`Warning: would violate PodSecurity "restricted:latest": ${restrictedViolations}`);
    expect(r.stdout.trim()).toBe("pod/priv created");
  });

  it.skipIf(!kubectlBin)("a Deployment in a warn namespace warns, and is created", async () => {
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["create", "deployment", "web", "--image=nginx", "-n", "warn-ns"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    expect(r.stdout.trim()).toBe("deployment.apps/web created");
  });

  it("warns about the pod template of every workload kind", async () => {
    const labels = { app: "w" };
    const template = { metadata: { labels }, spec: { hostIPC: true, containers: [{ name: "c", image: "busybox" }] } };
    const jobTemplate = { metadata: { labels }, spec: { ...template.spec, restartPolicy: "Never" } };
    const workloads: [string, Record<string, unknown>][] = [
      ["/apis/apps/v1/namespaces/warn-ns/replicasets", { metadata: { name: "rs" }, spec: { selector: { matchLabels: labels }, template } }],
      ["/apis/apps/v1/namespaces/warn-ns/statefulsets", { metadata: { name: "sts" }, spec: { serviceName: "sts", selector: { matchLabels: labels }, template } }],
      ["/apis/apps/v1/namespaces/warn-ns/daemonsets", { metadata: { name: "ds" }, spec: { selector: { matchLabels: labels }, template } }],
      ["/apis/batch/v1/namespaces/warn-ns/jobs", { metadata: { name: "job" }, spec: { template: jobTemplate } }],
      ["/apis/batch/v1/namespaces/warn-ns/cronjobs", { metadata: { name: "cj" }, spec: { schedule: "* * * * *", jobTemplate: { spec: { template: jobTemplate } } } }],
      ["/api/v1/namespaces/warn-ns/replicationcontrollers", { metadata: { name: "rc" }, spec: { selector: labels, template } }],
      ["/api/v1/namespaces/warn-ns/podtemplates", { metadata: { name: "pt" }, template }],
    ];
    for (const [path, body] of workloads) {
      const r = await req(s, "POST", path, { body });
      expect(r.status, `${path}: ${r.text}`).toBe(201);
      const warnings = warningsOf(r.headers);
      expect(warnings, path).toHaveLength(1);
      expect(warnings[0], path).toMatch(/^would violate PodSecurity "restricted:latest": host namespaces \(hostIPC\), allowPrivilegeEscalation != false /);
    }
  });

  it("never refuses a workload in an enforcing namespace (its pods are checked when made)", async () => {
    const r = await req(s, "POST", "/apis/batch/v1/namespaces/restricted-2/jobs", {
      body: { metadata: { name: "j" }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", securityContext: { privileged: true } }] } } } },
    });
    expect(r.status, r.text).toBe(201);
    // No warn label: warn takes the enforce label's level and version over the configured default (baseline).
    expect(warningsOf(r.headers)).toEqual([`would violate PodSecurity "restricted:v1.30": ${restrictedViolations}`]);
  });

  it.skipIf(!kubectlBin)("kubectl apply of a privileged Deployment into an enforce-only namespace warns at the enforce level; its pod is still refused", async () => {
    await namespace("enforce-only", { "pod-security.kubernetes.io/enforce": "restricted" });
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: priv
  namespace: enforce-only
spec:
  selector:
    matchLabels: {app: priv}
  template:
    metadata:
      labels: {app: priv}
    spec:
      containers:
      - name: c
        image: nginx
        securityContext:
          privileged: true
`;
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], deployment);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(`Warning: would violate PodSecurity "restricted:latest": ${restrictedViolations}`);
    expect(r.stdout.trim()).toBe("deployment.apps/priv created");
    const pod = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], privilegedPodYaml("priv", "enforce-only"));
    expect(pod.code).not.toBe(0);
    expect(pod.stderr.trim()).toBe(`Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${restrictedViolations}`);
  });

  it("applies the configured defaults to unlabelled namespaces", async () => {
    await namespace("plain");
    const r = await req(s, "POST", "/api/v1/namespaces/plain/pods", { body: { metadata: { name: "p" }, spec: { hostPID: true, containers: [{ name: "c", image: "nginx" }] } } });
    expect(r.status, r.text).toBe(201);
    expect(warningsOf(r.headers)).toEqual(['would violate PodSecurity "baseline:latest": host namespaces (hostPID)']);
  });
});

describe("namespace labels", () => {
  it("refuses invalid levels and versions with 422", async () => {
    const e = await core.createNamespace({ body: { metadata: { name: "bad-labels", labels: { "pod-security.kubernetes.io/enforce": "strict" } } } }).catch((x) => x);
    expect(e).toBeInstanceOf(k8s.ApiException);
    expect(JSON.parse(e.body)).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'Namespace "bad-labels" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
      details: { name: "bad-labels", kind: "Namespace", causes: [{ reason: "FieldValueInvalid", field: "metadata.labels[pod-security.kubernetes.io/enforce]" }] },
    });
    await namespace("relabel");
    const r = await req(s, "PATCH", "/api/v1/namespaces/relabel", {
      headers: { "content-type": "application/merge-patch+json" },
      body: { metadata: { labels: { "pod-security.kubernetes.io/audit-version": "1.30" } } },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('Namespace "relabel" is invalid: metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.30": must be "latest" or "v1.x"');
  });

  it.skipIf(!kubectlBin)("kubectl label with an invalid level shows the 422", async () => {
    await namespace("relabel-2");
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["label", "namespace", "relabel-2", "pod-security.kubernetes.io/warn=loud"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('The Namespace "relabel-2" is invalid: metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "loud": must be one of privileged, baseline, restricted');
  });

  it.skipIf(!kubectlBin)("kubectl label tightening enforce warns about the existing pods that would violate it", async () => {
    await namespace("tighten");
    for (const name of ["b", "a"]) {
      const r = await req(s, "POST", "/api/v1/namespaces/tighten/pods", { body: { metadata: { name }, spec: { containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }] } } });
      expect(r.status, r.text).toBe(201);
    }
    expect((await req(s, "POST", "/api/v1/namespaces/tighten/pods", { body: restrictedPod("fine") })).status).toBe(201);
    // The plugin reads pods from the shared informer: settled, it holds every pod written.
    await server.settle();
    const dry = await kubectl(kubectlBin!, server.kubeconfigPath!, ["label", "--dry-run=server", "namespace", "tighten", "pod-security.kubernetes.io/enforce=baseline"]);
    expect(dry.code, dry.stderr).toBe(0);
    const expected = [
      'Warning: existing pods in namespace "tighten" violate the new PodSecurity enforce level "baseline:latest"',
      "Warning: a (and 1 other pod): privileged",
    ];
    expect(dry.stderr.trim().split("\n")).toEqual(expected);
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["label", "namespace", "tighten", "pod-security.kubernetes.io/enforce=baseline"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split("\n")).toEqual(expected);
    expect(r.stdout.trim()).toBe("namespace/tighten labeled");
    // New privileged pods are now refused; the existing ones stay.
    const again = await req(s, "POST", "/api/v1/namespaces/tighten/pods", { body: { metadata: { name: "c" }, spec: { containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }] } } });
    expect(again.status).toBe(403);
    expect((await req(s, "GET", "/api/v1/namespaces/tighten/pods/a")).status).toBe(200);
    // Existing pods stay updatable where the checks read nothing new (labels); an image change is re-evaluated.
    const merge = { "content-type": "application/merge-patch+json" };
    const label = await req(s, "PATCH", "/api/v1/namespaces/tighten/pods/a", { headers: merge, body: { metadata: { labels: { tier: "web" } } } });
    expect(label.status, label.text).toBe(200);
    const image = await req(s, "PATCH", "/api/v1/namespaces/tighten/pods/a", {
      headers: { "content-type": "application/json-patch+json" },
      body: [{ op: "replace", path: "/spec/containers/0/image", value: "nginx:1.27" }],
    });
    expect(image.status, image.text).toBe(403);
    expect(image.json.message).toBe('pods "a" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  });

  it("warns that the labels of an exempt namespace are ignored", async () => {
    // Only a tightened enforce level is looked at: drop the label first, then set it.
    const drop = await req(s, "PATCH", "/api/v1/namespaces/exempt-ns", {
      headers: { "content-type": "application/merge-patch+json" },
      body: { metadata: { labels: { "pod-security.kubernetes.io/enforce": null } } },
    });
    expect(warningsOf(drop.headers)).toEqual([]);
    const r = await req(s, "PATCH", "/api/v1/namespaces/exempt-ns", {
      headers: { "content-type": "application/merge-patch+json" },
      body: { metadata: { labels: { "pod-security.kubernetes.io/enforce": "baseline" } } },
    });
    expect(r.status, r.text).toBe(200);
    expect(warningsOf(r.headers)).toEqual(['namespace "exempt-ns" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored']);
  });
});
