// Versions of a CustomResourceDefinition: the storage version, the served versions, the
// apiVersion string of a group/version, and the Warning a deprecated version gives its clients
// (customresource_handler.go of apiextensions-apiserver).
import { compareKubeAwareVersions } from "../apimachinery/version-order.js";

/** The parts of a CRD (apiextensions.k8s.io/v1) these helpers read. */
export interface CRDVersionSpec {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string | null;
  [k: string]: unknown;
}

export interface CRDLike {
  metadata?: { name?: string; uid?: string; [k: string]: unknown };
  spec: {
    group: string;
    names: { kind: string; listKind?: string; plural?: string; [k: string]: unknown };
    scope?: string;
    versions: CRDVersionSpec[];
    conversion?: {
      strategy?: string;
      webhook?: {
        conversionReviewVersions?: string[];
        clientConfig?: {
          url?: string;
          caBundle?: string;
          service?: { namespace: string; name: string; path?: string; port?: number };
        };
      };
    };
    [k: string]: unknown;
  };
  status?: { storedVersions?: string[]; [k: string]: unknown };
}

/** `<group>/<version>`, or the bare version for the core group. */
export function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** The name of the version marked `storage: true` (validation allows exactly one). */
export function storageVersion(crd: CRDLike): string | undefined {
  return crd.spec.versions.find((v) => v.storage === true)?.name;
}

/** Names of the served versions, in the CRD's order. */
export function servedVersions(crd: CRDLike): string[] {
  return crd.spec.versions.filter((v) => v.served === true).map((v) => v.name);
}

export function hasServedVersion(crd: CRDLike, version: string): boolean {
  return crd.spec.versions.some((v) => v.name === version && v.served === true);
}

/** All version names of the CRD (served or not): the versions conversion accepts. */
export function allVersions(crd: CRDLike): string[] {
  return crd.spec.versions.map((v) => v.name);
}

/**
 * The Warning header text for requests to `version`, or undefined when the version is not
 * deprecated. An explicit `deprecationWarning` wins; otherwise upstream's default,
 * `<group>/<version> <Kind> is deprecated`, followed by `; use <group>/<v> <Kind>` naming the
 * highest-priority served, non-deprecated version that sorts after the deprecated one.
 */
export function deprecationWarning(crd: CRDLike, version: string): string | undefined {
  const v = crd.spec.versions.find((x) => x.name === version);
  if (!v || v.deprecated !== true) return undefined;
  if (typeof v.deprecationWarning === "string") return v.deprecationWarning;
  const { group } = crd.spec;
  const kind = crd.spec.names.kind;
  let msg = `${group}/${version} ${kind} is deprecated`;
  // compareKubeAwareVersions is negative when its first argument has the higher priority.
  const newer = crd.spec.versions
    .filter((x) => x.served === true && x.deprecated !== true && compareKubeAwareVersions(version, x.name) > 0)
    .map((x) => x.name)
    .sort(compareKubeAwareVersions);
  if (newer.length > 0) msg += `; use ${group}/${newer[0]} ${kind}`;
  return msg;
}
