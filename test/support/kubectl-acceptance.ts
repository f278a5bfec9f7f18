// Unmodified kubectl against a real kapi: every command of the acceptance list, asserting what
// kubectl printed. One test file per kubectl minor version (test/kubectl-1.*.test.ts).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../../src/index.js";
import { kubectl, kubectlBinary } from "./kubectl.js";

const deploymentYaml = (image: string, withExtras: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 1
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
      - name: app
        image: ${image}
        ports:
        - containerPort: 80
${withExtras ? "        - containerPort: 8080\n" : ""}        env:
        - {name: A, value: "1"}
${withExtras ? '        - {name: B, value: "2"}\n' : ""}`;

/** The acceptance list with kubectl 1.<minor>; skipped when this machine does not have it. */
export function kubectlAcceptance(minor: number): void {
  describe.skipIf(!kubectlBinary(minor))(`kubectl 1.${minor}`, () => {
    let s: KapiServer;
    let dir: string;
    const bin = kubectlBinary(minor)!;
    const k = (...args: string[]) => kubectl(bin, s.kubeconfigPath!, args);
    const ok = async (...args: string[]) => {
      const r = await k(...args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
      return r.stdout;
    };
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "kapi-kubectl-"));
      s = await startServer({ dataDir: join(dir, "data") });
    });
    afterAll(async () => s?.stop());

    it("version, api-versions, api-resources", async () => {
      expect(await ok("version")).toMatch(/Server Version: v1\.34\./);
      const av = await ok("api-versions");
      for (const gv of ["v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1", "apiextensions.k8s.io/v1"]) expect(av.split("\n")).toContain(gv);
      const ar = await ok("api-resources");
      expect(ar).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
      expect(ar).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      expect(ar).toMatch(/^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m);
      expect(ar).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    });

    it("creates with protobuf bodies and gets in every output format", async () => {
      expect(await ok("create", "namespace", "team")).toBe("namespace/team created\n");
      const cm1 = await k("create", "configmap", "cm1", "--from-literal=a=b", "-n", "team", "-v=8");
      expect(cm1.stdout).toBe("configmap/cm1 created\n");
      // -v=8 logs the POST's request headers before its response: the body went as protobuf.
      const post = cm1.stderr.indexOf("POST");
      expect(cm1.stderr.slice(post, cm1.stderr.indexOf("Response", post))).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf/);
      expect(await ok("create", "secret", "generic", "s1", "--from-literal=k=v", "-n", "team")).toBe("secret/s1 created\n");
      expect(await ok("create", "deployment", "web", "--image=nginx:1.25", "--replicas=2", "-n", "team")).toBe("deployment.apps/web created\n");
      expect(await ok("create", "service", "clusterip", "svc1", "--tcp=80:8080", "-n", "team")).toBe("service/svc1 created\n");
      const table = await ok("get", "configmaps", "-n", "team");
      expect(table).toMatch(/^NAME\s+DATA\s+AGE\n/);
      expect(table).toMatch(/^cm1\s+1\s+\d+s$/m);
      const wide = await ok("get", "deploy", "web", "-n", "team", "-o", "wide");
      expect(wide).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
      expect(wide).toMatch(/^web\s+0\/2\s+0\s+0\s+\d+s\s+nginx\s+nginx:1\.25\s+app=web$/m);
      expect(await ok("get", "cm", "cm1", "-n", "team", "-o", "yaml")).toMatch(/^data:\n {2}a: b\nkind: ConfigMap\n/m);
      expect(JSON.parse(await ok("get", "secret", "s1", "-n", "team", "-o", "json")).data).toEqual({ k: Buffer.from("v").toString("base64") });
      // kube-root-ca.crt too, as in any namespace (published long before these commands ran).
      expect(await ok("get", "cm", "-n", "team", "-o", "name")).toBe("configmap/cm1\nconfigmap/kube-root-ca.crt\n");
      expect(await ok("get", "deploy", "web", "-n", "team", "-o", "jsonpath={.spec.replicas}")).toBe("2");
      // kubectl sends the template's empty creationTimestamp; 1.34 leaves a zero one out (omitzero).
      expect(JSON.parse(await ok("get", "deploy", "web", "-n", "team", "-o", "json")).spec.template.metadata).toEqual({ labels: { app: "web" } });
      const all = await ok("get", "cm", "-A");
      expect(all).toMatch(/^NAMESPACE\s+NAME\s+DATA\s+AGE$/m);
      expect(all).toMatch(/^team\s+cm1\s+1\s+/m);
    });

    it("applies twice with changes and removals, diffs, and applies server-side", async () => {
      const f = join(dir, `dep-${minor}.yaml`);
      writeFileSync(f, deploymentYaml("nginx:1.25", true));
      expect(await ok("apply", "-f", f)).toBe("deployment.apps/app created\n");
      writeFileSync(f, deploymentYaml("nginx:1.26", true));
      const diff = await k("diff", "-f", f);
      expect(diff.code).toBe(1); // 1 = differences found
      expect(diff.stdout).toContain("-        image: nginx:1.25");
      expect(diff.stdout).toContain("+        image: nginx:1.26");
      expect(await ok("apply", "-f", f)).toBe("deployment.apps/app configured\n");
      writeFileSync(f, deploymentYaml("nginx:1.26", false));
      expect(await ok("apply", "-f", f)).toBe("deployment.apps/app configured\n");
      const c = JSON.parse(await ok("get", "deploy", "app", "-o", "jsonpath={.spec.template.spec.containers[0]}"));
      expect(c).toMatchObject({ name: "app", image: "nginx:1.26", env: [{ name: "A", value: "1" }] });
      expect(c.ports.map((p: { containerPort: number }) => p.containerPort)).toEqual([80]);
      expect((await k("diff", "-f", f)).code).toBe(0);
      expect(await ok("apply", "--server-side", "-f", f)).toBe("deployment.apps/app serverside-applied\n");
    });

    it("applies server-side what create --dry-run=client wrote (creationTimestamp: null, status: {})", async () => {
      const f = join(dir, `ssa-${minor}.yaml`);
      writeFileSync(f, await ok("create", "deployment", "ssa", "--image=nginx", "--dry-run=client", "-o", "yaml"));
      expect(await ok("apply", "--server-side", "-f", f)).toBe("deployment.apps/ssa serverside-applied\n");
      const d = JSON.parse(await ok("get", "deploy", "ssa", "-o", "json", "--show-managed-fields"));
      // Stored as the typed object: the template's zero creationTimestamp left out.
      expect(d.spec.template.metadata).toEqual({ labels: { app: "ssa" } });
      // Owned as applied: a null in an apply configuration is a field the applier sets.
      const applied = d.metadata.managedFields.find((m: { operation: string }) => m.operation === "Apply");
      expect(applied.fieldsV1["f:spec"]["f:template"]["f:metadata"]).toEqual({ "f:creationTimestamp": {}, "f:labels": { "f:app": {} } });
    });

    it("creates from a manifest with nulls, stored as the Go types decode them", async () => {
      // What a Helm template renders from empty values: nulls where the Go types hold nil slices
      // and maps (left out), a struct held by value (its zero value, {}) and pointers (left out,
      // then defaulted).
      const f = join(dir, "nulls.yaml");
      writeFileSync(
        f,
        `apiVersion: apps/v1
kind: Deployment
metadata: {name: nulls, namespace: team, annotations: null}
spec:
  replicas: null
  strategy: null
  selector: {matchLabels: {app: nulls}}
  template:
    metadata: {labels: {app: nulls}, annotations: null, creationTimestamp: null}
    spec:
      securityContext: null
      containers:
      - {name: c, image: nginx, env: null, ports: null, resources: null, command: null}
`,
      );
      expect(await ok("create", "-f", f)).toBe("deployment.apps/nulls created\n");
      const d = JSON.parse(await ok("get", "deploy", "nulls", "-n", "team", "-o", "json"));
      expect(d.metadata.annotations).toBeUndefined();
      // The server's zero status, as a typed object writes it.
      expect(d.status).toEqual({});
      expect(d.spec.replicas).toBe(1);
      expect(d.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } });
      expect(d.spec.template.metadata).toEqual({ labels: { app: "nulls" } });
      expect(d.spec.template.spec.securityContext).toEqual({});
      expect(d.spec.template.spec.containers[0]).toEqual({
        name: "c",
        image: "nginx",
        resources: {},
        imagePullPolicy: "Always",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      });
    });

    it("labels, annotates, scales and deletes by name and by selector", async () => {
      await ok("create", "deployment", "sc", "--image=nginx");
      expect(await ok("label", "deploy", "sc", "tier=web")).toBe("deployment.apps/sc labeled\n");
      expect(await ok("annotate", "deploy", "sc", "note=hi")).toBe("deployment.apps/sc annotated\n");
      expect(await ok("scale", "deployment", "sc", "--replicas=3")).toBe("deployment.apps/sc scaled\n");
      expect(await ok("get", "deploy", "sc", "-o", "jsonpath={.spec.replicas} {.metadata.labels.tier} {.metadata.annotations.note}")).toBe("3 web hi");
      expect(await ok("delete", "deploy", "-l", "tier=web")).toBe('deployment.apps "sc" deleted\n');
      await ok("create", "configmap", "bye");
      expect(await ok("delete", "configmap", "bye")).toBe('configmap "bye" deleted\n');
      expect((await k("get", "configmap", "bye")).stderr).toContain('configmaps "bye" not found');
    });

    it("explains, whoami, can-i --list, raw readyz", async () => {
      const ex = await ok("explain", "pods.spec.containers");
      expect(ex).toContain("KIND:       Pod");
      expect(ex).toMatch(/FIELD:\s+containers <\[\]Container>/);
      expect(ex).toMatch(/^\s+image\s+<string>$/m);
      const who = await ok("auth", "whoami");
      expect(who).toMatch(/Username\s+kapi-admin/);
      expect(who).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
      const as = await ok("auth", "whoami", "--as=system:serviceaccount:default:robot");
      expect(as).toMatch(/Username\s+system:serviceaccount:default:robot/);
      expect(as).toMatch(/Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);
      expect(await ok("auth", "can-i", "create", "pods")).toBe("yes\n");
      const list = await ok("auth", "can-i", "--list");
      expect(list).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
      const raw = await ok("get", "--raw", "/readyz?verbose");
      expect(raw).toContain("[+]ping ok");
      expect(raw.trim().endsWith("readyz check passed")).toBe(true);
    });
  });
}
