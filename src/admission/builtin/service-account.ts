// ServiceAccount (upstream plugin/pkg/admission/serviceaccount): a pod created without a
// service account runs as "default"; the account must exist; unless either says otherwise the
// pod gets the projected token volume `kube-api-access-<5>` mounted read-only in every (init)
// container at /var/run/secrets/kubernetes.io/serviceaccount; the account's image pull secrets
// fill an empty imagePullSecrets. Accounts annotated kubernetes.io/enforce-mountable-secrets=true
// limit the secrets the pod references to the account's. Mirror pods may reference no account,
// secret or token projection.
import { randomInt } from "node:crypto";
import { mirrorPodAnnotation } from "../../authz/node/references.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { admissionForbidden } from "./forbidden.js";
import { objectLookup } from "./lookup.js";
import { isObj, isPods, objs, podsOnly, podSpec, str, type Obj } from "./pod-shape.js";
import { parseGoBool } from "../../apimachinery/booleans.js";

export const defaultServiceAccountName = "default";
export const enforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets";
export const defaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
export const serviceAccountVolumeName = "kube-api-access";
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: the kubelet refreshes well before. */
const tokenExpirationSeconds = 3607;

/** names.SimpleNameGenerator: 5 characters from an alphabet without vowels and look-alikes. */
const alphabet = "bcdfghjklmnpqrstvwxz2456789";
export const randomSuffix = (): string => Array.from({ length: 5 }, () => alphabet[randomInt(alphabet.length)]).join("");

/** The projected volume upstream mounts (its exact shape: mode 420, then token, CA bundle, namespace). */
export function tokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
      defaultMode: 420,
    },
  };
}

export interface ServiceAccountOptions {
  /** Retry pause of the live lookups of the default account (upstream: 100–200 ms). */
  retryMs?: () => number;
}

export function serviceAccountPlugin(parts: () => AdmissionParts, opts: ServiceAccountOptions = {}): AdmissionPlugin {
  const accounts = objectLookup(parts, "", "serviceaccounts");
  const retryMs = opts.retryMs ?? (() => 100 + randomInt(100));

  /** The account from the informer, else read live: ten tries for "default" (its controller makes it soon). */
  async function account(ns: string, name: string): Promise<KObject> {
    const cached = await accounts.get(ns, name);
    if (cached) return cached;
    const attempts = name === defaultServiceAccountName ? 10 : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, retryMs()));
      const live = await accounts.get(ns, name, { live: true });
      if (live) return live;
    }
    throw new Error(`serviceaccount "${name}" not found`);
  }

  async function lookUp(a: AdmissionAttributes, name: string): Promise<KObject> {
    try {
      return await account(a.namespace, name);
    } catch (e) {
      throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: ${(e as Error).message}`);
    }
  }

  return {
    name: "ServiceAccount",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    async admit(a) {
      if (!isPods(a) || a.operation !== "CREATE" || !a.object) return;
      const pod = a.object as Obj & KObject;
      if (isMirror(pod)) return validateMirror(a, pod);
      const spec = podSpec(pod);
      if (!str(spec.serviceAccountName)) spec.serviceAccountName = defaultServiceAccountName;
      // The v1 form carries the deprecated twin of the field (defaulting mirrored any the client set).
      spec.serviceAccount = spec.serviceAccountName;
      const sa = await lookUp(a, str(spec.serviceAccountName));
      if (shouldAutomount(sa, spec)) mountToken(spec);
      const pullSecrets = objs((sa as Obj).imagePullSecrets);
      if (objs(spec.imagePullSecrets).length === 0 && pullSecrets.length > 0) {
        spec.imagePullSecrets = pullSecrets.map((s) => ({ name: str(s.name) }));
      }
    },
    async validate(a) {
      if (!isPods(a, "ephemeralcontainers") || !a.object) return;
      const pod = a.object as Obj & KObject;
      const spec = podSpec(pod);
      if (a.operation === "UPDATE" && a.subresource === "ephemeralcontainers") return checkEphemeral(a, pod, spec);
      if (a.operation !== "CREATE") return;
      if (isMirror(pod)) return validateMirror(a, pod);
      const name = str(spec.serviceAccountName);
      if (!name) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${str(pod.metadata.name)}`);
      const sa = await lookUp(a, name);
      if (!enforcesMountableSecrets(sa)) return;
      const problem = secretReferenceProblem(sa, spec);
      if (problem) throw admissionForbidden(a, problem);
    },
  };

  async function checkEphemeral(a: AdmissionAttributes, pod: KObject, spec: Obj): Promise<void> {
    const name = str(spec.serviceAccountName);
    if (!name) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${str(pod.metadata.name)}`);
    const sa = await lookUp(a, name);
    if (!enforcesMountableSecrets(sa)) return;
    const mountable = new Set(objs((sa as Obj).secrets).map((s) => str(s.name)));
    for (const c of objs(spec.ephemeralContainers)) {
      const problem = envProblem(c, mountable, "ephemeral container", str(sa.metadata.name));
      if (problem) throw admissionForbidden(a, problem);
    }
  }
}

const isMirror = (pod: KObject) => !!pod.metadata.annotations && Object.prototype.hasOwnProperty.call(pod.metadata.annotations, mirrorPodAnnotation);

function validateMirror(a: AdmissionAttributes, pod: Obj & KObject): void {
  const spec = isObj(pod.spec) ? pod.spec : {};
  if (str(spec.serviceAccountName)) throw admissionForbidden(a, "a mirror pod may not reference service accounts");
  if (podSecretNames(spec).length > 0) throw admissionForbidden(a, "a mirror pod may not reference secrets");
  for (const v of objs(spec.volumes)) {
    const projected = isObj(v.projected) ? v.projected : undefined;
    if (projected && objs(projected.sources).some((s) => isObj(s.serviceAccountToken))) {
      throw admissionForbidden(a, "a mirror pod may not use ServiceAccountToken volume projections");
    }
  }
}

/** The pod's preference wins, then the account's; on by default. */
function shouldAutomount(sa: KObject, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === "boolean") return spec.automountServiceAccountToken;
  const fromAccount = (sa as Obj).automountServiceAccountToken;
  return typeof fromAccount === "boolean" ? fromAccount : true;
}

function mountToken(spec: Obj): void {
  const volumes = objs(spec.volumes);
  // A pod that already has a kube-api-access-* volume (a copy of another pod's spec) keeps it.
  const existing = volumes.find((v) => str(v.name).startsWith(`${serviceAccountVolumeName}-`));
  const volumeName = existing ? str(existing.name) : `${serviceAccountVolumeName}-${randomSuffix()}`;
  let needed = false;
  for (const c of [...objs(spec.initContainers), ...objs(spec.containers)]) {
    const mounts = objs(c.volumeMounts);
    if (mounts.some((m) => m.mountPath === defaultAPITokenMountPath)) continue; // the pod's own mount wins
    c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath }];
    needed = true;
  }
  if (!existing && needed) spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), tokenVolume(volumeName)];
}

function enforcesMountableSecrets(sa: KObject): boolean {
  const v = sa.metadata.annotations?.[enforceMountableSecretsAnnotation];
  return v !== undefined && parseGoBool(v) === true;
}


function envProblem(c: Obj, mountable: ReadonlySet<string>, what: string, account: string): string | undefined {
  for (const e of objs(c.env)) {
    const ref = isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) ? e.valueFrom.secretKeyRef : undefined;
    if (ref && !mountable.has(str(ref.name))) {
      return `${what} ${str(c.name)} with envVar ${str(e.name)} referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${account} does not reference that secret`;
    }
  }
  for (const e of objs(c.envFrom)) {
    const ref = isObj(e.secretRef) ? e.secretRef : undefined;
    if (ref && !mountable.has(str(ref.name))) {
      return `${what} ${str(c.name)} with envFrom referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${account} does not reference that secret`;
    }
  }
  return undefined;
}

/** The first secret reference the account does not allow, as upstream words it. */
function secretReferenceProblem(sa: KObject, spec: Obj): string | undefined {
  const account = str(sa.metadata.name);
  const mountable = new Set(objs((sa as Obj).secrets).map((s) => str(s.name)));
  for (const v of objs(spec.volumes)) {
    if (!isObj(v.secret)) continue;
    const name = str(v.secret.secretName);
    if (!mountable.has(name)) return `volume with secret.secretName="${name}" is not allowed because service account ${account} does not reference that secret`;
  }
  for (const c of objs(spec.initContainers)) {
    const p = envProblem(c, mountable, "init container", account);
    if (p) return p;
  }
  for (const c of objs(spec.containers)) {
    const p = envProblem(c, mountable, "container", account);
    if (p) return p;
  }
  const pullable = new Set(objs((sa as Obj).imagePullSecrets).map((s) => str(s.name)));
  const refs = objs(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    const name = str(refs[i]!.name);
    if (!pullable.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${account} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** Every secret a pod spec names (podutil.VisitPodSecretNames over all containers). */
function podSecretNames(spec: Obj): string[] {
  const names: string[] = [];
  for (const r of objs(spec.imagePullSecrets)) names.push(str(r.name));
  for (const c of [...objs(spec.initContainers), ...objs(spec.containers), ...objs(spec.ephemeralContainers)]) {
    for (const e of objs(c.envFrom)) if (isObj(e.secretRef)) names.push(str(e.secretRef.name));
    for (const e of objs(c.env)) if (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef)) names.push(str(e.valueFrom.secretKeyRef.name));
  }
  for (const v of objs(spec.volumes)) {
    if (isObj(v.secret)) names.push(str(v.secret.secretName));
    if (isObj(v.projected)) for (const s of objs(v.projected.sources)) if (isObj(s.secret)) names.push(str(s.secret.name));
    for (const key of ["azureFile", "cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos", "csi"]) {
      const src = v[key];
      if (!isObj(src)) continue;
      if (key === "azureFile") names.push(str(src.secretName));
      else if (key === "csi" && isObj(src.nodePublishSecretRef)) names.push(str(src.nodePublishSecretRef.name));
      else if (isObj(src.secretRef)) names.push(str(src.secretRef.name));
    }
  }
  return names.filter((n) => n !== "");
}
