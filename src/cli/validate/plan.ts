// In which order `kapi validate` sends the objects, and which are written for real: what other
// objects depend on — namespaces, CRDs (their custom resources become validatable), the params
// policies read, then the policies and their bindings — is created; everything else is a dry run.
import type { KObject } from "../../apimachinery/object.js";
import type { Manifest } from "./manifests.js";

export interface Step {
  manifest: Manifest & { object: KObject };
  /** Written for real (a later object depends on it), not dry run. */
  persist: boolean;
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0] : "");

function isKind(o: KObject, group: string, kind: string): boolean {
  return groupOf(o.apiVersion ?? "") === group && o.kind === kind;
}

const isNamespace = (o: KObject) => isKind(o, "", "Namespace");
const isCRD = (o: KObject) => isKind(o, "apiextensions.k8s.io", "CustomResourceDefinition");
const isPolicy = (o: KObject) => isKind(o, "admissionregistration.k8s.io", "ValidatingAdmissionPolicy") || isKind(o, "admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding");

/** The paramKinds the policies name, as "apiVersion/kind" keys. */
function paramKinds(objects: KObject[]): Set<string> {
  const out = new Set<string>();
  for (const o of objects) {
    const pk = (o as { spec?: { paramKind?: { apiVersion?: string; kind?: string } } }).spec?.paramKind;
    if (o.kind === "ValidatingAdmissionPolicy" && pk?.apiVersion && pk.kind) out.add(`${pk.apiVersion}/${pk.kind}`);
  }
  return out;
}

/** Phases in order; within a phase, the files' order. Manifests that are not objects are left out. */
export function planSteps(manifests: Manifest[]): Step[][] {
  const objects = manifests.filter((m): m is Manifest & { object: KObject } => m.object !== undefined);
  const params = paramKinds(objects.map((m) => m.object));
  const isParam = (o: KObject) => params.has(`${o.apiVersion}/${o.kind}`);
  const phases: ((o: KObject) => boolean)[] = [isNamespace, isCRD, isParam, isPolicy];
  const placed = new Set<Manifest>();
  const steps: Step[][] = phases.map((inPhase) =>
    objects.filter((m) => !placed.has(m) && inPhase(m.object)).map((m) => (placed.add(m), { manifest: m, persist: true })),
  );
  steps.push(objects.filter((m) => !placed.has(m)).map((m) => ({ manifest: m, persist: false })));
  return steps;
}
