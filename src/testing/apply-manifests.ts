// Creating manifest objects in a starting server: CustomResourceDefinitions first, then — once
// they are served — Namespaces, then everything else. Each object is created through the store
// as the admin user would create it (defaulting, admission, validation), so a fixture is held to
// the same rules as a client's request and an invalid one fails the start.
//
// Create, not server-side apply: a fixture is the initial state, which create states exactly
// (generateName works, a duplicate is an error rather than a silent merge), and it is what
// envtest does with the CRDs it installs. Objects are owned by the field manager
// `kapi-manifests`, so a test that later applies the same fields with its own manager meets the
// conflict a real cluster would show.
import type { KObject } from "../apimachinery/object.js";
import { mastersGroup, authenticatedGroup, type UserInfo } from "../apimachinery/user.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { ManifestError, whereOf, type ManifestObject } from "./manifests.js";
import { whenServed } from "./served-types.js";

export interface ManifestTarget {
  stores: Stores;
  types: TypeRegistry;
}

export const manifestsFieldManager = "kapi-manifests";
const admin: UserInfo = { name: "kapi-admin", groups: [mastersGroup, authenticatedGroup] };

const isCrd = (m: ManifestObject) => m.object.kind === "CustomResourceDefinition" && m.object.apiVersion.startsWith("apiextensions.k8s.io/");
const isNamespace = (m: ManifestObject) => m.object.kind === "Namespace" && m.object.apiVersion === "v1";

export async function applyManifests(t: ManifestTarget, objects: readonly ManifestObject[]): Promise<void> {
  const crds = objects.filter(isCrd);
  await createAll(t, crds);
  const defined = crds.map((m) => {
    const spec = m.object.spec as { group?: string; names?: { plural?: string } };
    return { group: spec.group ?? "", resource: spec.names?.plural ?? "", crd: `${String(m.object.metadata.name)} (${whereOf(m)})` };
  });
  try {
    await whenServed(t.types, defined);
  } catch (e) {
    throw new ManifestError(`manifests: CustomResourceDefinitions ${(e as Error).message}`);
  }
  await createAll(t, objects.filter(isNamespace));
  await createAll(t, objects.filter((m) => !isCrd(m) && !isNamespace(m)));
}

/** Concurrently (their writes share commits); the first failure in manifest order is reported. */
async function createAll(t: ManifestTarget, objects: readonly ManifestObject[]): Promise<void> {
  const results = await Promise.allSettled(objects.map((m) => createOne(t, m)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

async function createOne(t: ManifestTarget, m: ManifestObject): Promise<void> {
  const { apiVersion, kind, metadata } = m.object;
  const name = typeof metadata.name === "string" ? metadata.name : typeof metadata.generateName === "string" ? `${metadata.generateName}*` : "(no name)";
  const type = t.types.all().find((x: ResourceType) => x.apiVersion === apiVersion && x.kind === kind && !x.virtual);
  if (!type) throw new ManifestError(`manifests: ${whereOf(m)}: ${kind} ${name}: no resource of kind ${JSON.stringify(kind)} is served in ${apiVersion}`);
  const namespace = type.namespaced ? (typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : "default") : "";
  try {
    await t.stores.for(type).create(namespace, structuredClone(m.object) as unknown as KObject, { dryRun: false, fieldManager: manifestsFieldManager, request: { user: admin, warnings: [], annotate: () => undefined } });
  } catch (e) {
    throw new ManifestError(`manifests: ${whereOf(m)}: ${kind} ${namespace ? `${namespace}/` : ""}${name}: ${(e as Error).message}`);
  }
}
