// Immutability on update of built-in kinds, with kube-apiserver 1.34's causes.
import { describe, expect, it } from "vitest";
import { deepClone } from "../src/apimachinery/json-value.js";
import { req } from "./support/client.js";
import { ns, serverPerFile, template } from "./support/builtin-types.js";

const server = serverPerFile();

describe("immutability on update", () => {
  const put = (path: string, body: unknown) => req(server(), "PUT", path, { body });

  it("Pod spec: image may change, other fields may not", async () => {
    const path = `/api/v1/namespaces/${ns}/pods`;
    const p = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { containers: [{ name: "c", image: "nginx:1" }] } } })).json;
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
    const d = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { selector: { matchLabels: { app: "a" } }, template: template({ app: "a", b: "c" }) } } })).json;
    const r = await put(`${path}/imm`, { ...d, spec: { ...d.spec, selector: { matchLabels: { app: "a", b: "c" } } } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.selector", message: 'Invalid value: {"matchLabels":{"app":"a","b":"c"}}: field is immutable' },
    ]);
  });

  it("StatefulSet: only the allowed fields change", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
    const d = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { serviceName: "a", selector: { matchLabels: { app: "a" } }, template: template({ app: "a" }) } } })).json;
    expect((await put(`${path}/imm`, { ...d, spec: { ...d.spec, replicas: 3 } })).status).toBe(200);
    const cur = (await req(server(), "GET", `${path}/imm`)).json;
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
    const j = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { template: template({}, { restartPolicy: "Never" }) } } })).json;
    const tpl = deepClone(j.spec.template);
    tpl.spec.containers[0].image = "other";
    const r = await put(`${path}/imm`, { ...j, spec: { ...j.spec, template: tpl } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: any) => [c.field, c.reason])).toEqual([["spec.template", "FieldValueInvalid"]]);
    expect(r.json.details.causes[0].message).toMatch(/: field is immutable$/);
  });

  it("Service clusterIP may not change; omitting it keeps it", async () => {
    const path = `/api/v1/namespaces/${ns}/services`;
    const svc = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { ports: [{ port: 80 }] } } })).json;
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
    const sec = (await req(server(), "POST", sp, { body: { metadata: { name: "frozen" }, immutable: true, stringData: { a: "1" } } })).json;
    const r = await put(`${sp}/frozen`, { ...sec, data: { a: "Mg==" } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "data", message: "Forbidden: field is immutable when `immutable` is set" }]);
    const t = await put(`${sp}/frozen`, { ...sec, immutable: false });
    expect(t.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "immutable", message: "Forbidden: field is immutable when `immutable` is set" }]);

    const cp = `/api/v1/namespaces/${ns}/configmaps`;
    const cm = (await req(server(), "POST", cp, { body: { metadata: { name: "frozen" }, immutable: true, data: { a: "1" } } })).json;
    const r2 = await put(`${cp}/frozen`, { ...cm, data: { a: "2" } });
    expect(r2.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "data", message: "Forbidden: field is immutable when `immutable` is set" }]);
    const lbl = await put(`${cp}/frozen`, { ...cm, metadata: { ...cm.metadata, labels: { ok: "yes" } } });
    expect(lbl.status).toBe(200);
  });

  it("Secret type is immutable", async () => {
    const sp = `/api/v1/namespaces/${ns}/secrets`;
    const sec = (await req(server(), "POST", sp, { body: { metadata: { name: "typed" } } })).json;
    const r = await put(`${sp}/typed`, { ...sec, type: "example.com/other" });
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "type", message: 'Invalid value: "example.com/other": field is immutable' }]);
  });

  it("RBAC roleRef cannot change", async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    const rb = (await req(server(), "POST", path, { body: { metadata: { name: "rr" }, roleRef: { kind: "Role", name: "a", apiGroup: "rbac.authorization.k8s.io" } } })).json;
    const r = await put(`${path}/rr`, { ...rb, roleRef: { ...rb.roleRef, name: "b" } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "roleRef", message: 'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"b"}: cannot change roleRef' },
    ]);
  });

  it("PVC spec is immutable", async () => {
    const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    const pvc = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } })).json;
    const r = await put(`${path}/imm`, { ...pvc, spec: { ...pvc.spec, accessModes: ["ReadWriteMany"] } });
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueForbidden", field: "spec", message: "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims" },
    ]);
  });

  it("StorageClass parameters are immutable", async () => {
    const path = `/apis/storage.k8s.io/v1/storageclasses`;
    const sc = (await req(server(), "POST", path, { body: { metadata: { name: "imm" }, provisioner: "p", parameters: { a: "1" } } })).json;
    const r = await put(`${path}/imm`, { ...sc, parameters: { a: "2" } });
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "parameters", message: "Forbidden: updates to parameters are forbidden." }]);
  });
});
