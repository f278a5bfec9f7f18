import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { fakeParts, fakeWorld, podsType } from "./parts.testkit.js";
import { serviceAccountPlugin } from "./service-account.js";

const sa = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject => ({ metadata: { name, namespace: "ns", ...(annotations ? { annotations } : {}) }, ...extra });
const pod = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject => ({
  metadata: { name: "p", ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "c", image: "x" }], ...spec },
});
const attrs = (object: KObject, a: Partial<AdmissionAttributes> = {}) =>
  admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object, ...a });

function setup(accounts: KObject[]) {
  const world = fakeWorld({ "/serviceaccounts": accounts });
  return { world, plugin: serviceAccountPlugin(fakeParts(world), { retryMs: () => 1 }) };
}

async function admitted(plugin: ReturnType<typeof setup>["plugin"], object: KObject) {
  const a = attrs(object);
  await plugin.admit!(a);
  await plugin.validate!(a);
  return a.object as any;
}

describe("ServiceAccount admission", () => {
  it("runs the pod as the default account, mounting the projected token volume in every container", async () => {
    const { plugin } = setup([sa("default")]);
    const p = await admitted(plugin, pod({ initContainers: [{ name: "i", image: "x" }] }));
    expect(p.spec.serviceAccountName).toBe("default");
    expect(p.spec.serviceAccount).toBe("default");
    const volume = p.spec.volumes[0];
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected).toEqual({
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
      defaultMode: 420,
    });
    const mount = { name: volume.name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
    expect(p.spec.containers[0].volumeMounts).toEqual([mount]);
    expect(p.spec.initContainers[0].volumeMounts).toEqual([mount]);
  });

  it("leaves containers that mount the token path themselves alone, and adds no volume when none needs it", async () => {
    const { plugin } = setup([sa("default")]);
    const own = [{ name: "mine", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }];
    const p = await admitted(plugin, pod({ containers: [{ name: "c", image: "x", volumeMounts: own }], volumes: [{ name: "mine", emptyDir: {} }] }));
    expect(p.spec.containers[0].volumeMounts).toEqual(own);
    expect(p.spec.volumes).toEqual([{ name: "mine", emptyDir: {} }]);
  });

  it("honours automountServiceAccountToken: the pod's choice over the account's", async () => {
    const { plugin } = setup([sa("default", { automountServiceAccountToken: false }), sa("robot")]);
    expect((await admitted(plugin, pod())).spec.volumes).toBeUndefined();
    expect((await admitted(plugin, pod({ automountServiceAccountToken: true }))).spec.volumes).toHaveLength(1);
    expect((await admitted(plugin, pod({ serviceAccountName: "robot", automountServiceAccountToken: false }))).spec.volumes).toBeUndefined();
  });

  it("copies the account's image pull secrets into a pod without any", async () => {
    const { plugin } = setup([sa("default", { imagePullSecrets: [{ name: "reg" }] })]);
    expect((await admitted(plugin, pod())).spec.imagePullSecrets).toEqual([{ name: "reg" }]);
    expect((await admitted(plugin, pod({ imagePullSecrets: [{ name: "own" }] }))).spec.imagePullSecrets).toEqual([{ name: "own" }]);
  });

  it("rejects a missing account with upstream's words, after retrying the default one", async () => {
    const { plugin, world } = setup([]);
    await expect(plugin.admit!(attrs(pod({ serviceAccountName: "ghost" })))).rejects.toMatchObject({
      code: 403,
      message: 'pods "p" is forbidden: error looking up service account ns/ghost: serviceaccount "ghost" not found',
    });
    world.liveReads.length = 0;
    await expect(plugin.admit!(attrs(pod()))).rejects.toMatchObject({ message: 'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found' });
    expect(world.liveReads).toHaveLength(10);
  });

  it("finds an account the informer has not seen yet by reading it live", async () => {
    const { plugin, world } = setup([sa("default")]);
    world.informerLags = new Set(["default"]);
    expect((await admitted(plugin, pod())).spec.serviceAccountName).toBe("default");
  });

  it("enforces mountable secrets when the account asks for it", async () => {
    const enforced = { "kubernetes.io/enforce-mountable-secrets": "true" };
    const { plugin } = setup([sa("default", { secrets: [{ name: "ok" }] }, enforced)]);
    await expect(admitted(plugin, pod({ volumes: [{ name: "v", secret: { secretName: "ok" } }] }))).resolves.toBeDefined();
    await expect(admitted(plugin, pod({ volumes: [{ name: "v", secret: { secretName: "no" } }] }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: volume with secret.secretName="no" is not allowed because service account default does not reference that secret',
    });
    const env = [{ name: "E", valueFrom: { secretKeyRef: { name: "no", key: "k" } } }];
    await expect(admitted(plugin, pod({ containers: [{ name: "c", image: "x", env }] }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: container c with envVar E referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
    });
    await expect(admitted(plugin, pod({ initContainers: [{ name: "i", image: "x", envFrom: [{ secretRef: { name: "no" } }] }] }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: init container i with envFrom referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
    });
    await expect(admitted(plugin, pod({ imagePullSecrets: [{ name: "no" }] }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: imagePullSecrets[0].name="no" is not allowed because service account default does not reference that imagePullSecret',
    });
  });

  it("keeps mirror pods free of accounts, secrets and token projections", async () => {
    const { plugin } = setup([sa("default")]);
    const mirror = { "kubernetes.io/config.mirror": "abc" };
    const p = await admitted(plugin, pod({}, mirror));
    expect(p.spec.serviceAccountName).toBeUndefined();
    expect(p.spec.volumes).toBeUndefined();
    await expect(admitted(plugin, pod({ serviceAccountName: "default" }, mirror))).rejects.toMatchObject({ message: 'pods "p" is forbidden: a mirror pod may not reference service accounts' });
    await expect(admitted(plugin, pod({ volumes: [{ name: "v", secret: { secretName: "s" } }] }, mirror))).rejects.toMatchObject({ message: 'pods "p" is forbidden: a mirror pod may not reference secrets' });
  });

  it("names a pod with a generated name by its prefix, and ignores updates and other resources", async () => {
    const { plugin } = setup([]);
    const gen: KObject = { metadata: { generateName: "web-" }, spec: { containers: [], serviceAccountName: "x" } };
    await expect(plugin.admit!(attrs(gen, { name: "" }))).rejects.toMatchObject({ message: /^pods "web-" is forbidden: error looking up service account ns\/x/ });
    await expect(plugin.admit!(attrs(pod(), { operation: "UPDATE" }))).resolves.toBeUndefined();
    await expect(plugin.admit!(attrs(pod(), { subresource: "status" }))).resolves.toBeUndefined();
  });

  it("checks ephemeral containers added through pods/ephemeralcontainers against an enforcing account", async () => {
    const { plugin } = setup([sa("default", { secrets: [{ name: "ok" }] }, { "kubernetes.io/enforce-mountable-secrets": "true" })]);
    const debug = (secret: string) =>
      pod({ serviceAccountName: "default", ephemeralContainers: [{ name: "dbg", image: "busybox", env: [{ name: "T", valueFrom: { secretKeyRef: { name: secret, key: "k" } } }] }] });
    const update = (object: KObject) => plugin.validate!(attrs(object, { operation: "UPDATE", subresource: "ephemeralcontainers", oldObject: pod({ serviceAccountName: "default" }) }));
    await expect(update(debug("no"))).rejects.toMatchObject({
      code: 403,
      message: 'pods "p" is forbidden: ephemeral container dbg with envVar T referencing secret.secretName="no" is not allowed because service account default does not reference that secret',
    });
    await expect(update(debug("ok"))).resolves.toBeUndefined();
  });
});
