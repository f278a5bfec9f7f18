// A resource type as the server serves it: the one declaration every part of the server reads
// (routing, the generic store, field selectors, Table output, field validation, patch and apply,
// discovery and OpenAPI). Built-in types and custom resources are declared the same way, through
// `defineResourceType`; nothing generic looks a type up in a built-in table.
import type { ApiError, GroupResource } from "../apimachinery/errors.js";
import type { GroupVersionKind } from "../apimachinery/schema.js";
import type { KObject } from "../apimachinery/object.js";
import { defaultStrategy, type Strategy } from "./strategy.js";
import { defaultTablePrinter, type TablePrinter } from "./table-printer.js";
import { noSchema, type TypeSchema } from "./type-schema.js";

export type { TablePrinter, TableColumnDefinition } from "./table-printer.js";
export type { TypeSchema } from "./type-schema.js";

/** One subresource as discovery lists it (status, scale, log, exec, ...). */
export interface SubresourceDeclaration {
  readonly name: string;
  /** Kind sent and received on it (e.g. "Scale", "Eviction", "PodExecOptions"). */
  readonly kind: string;
  /** Group of `kind` when it differs from the parent resource's group-version (e.g. "autoscaling"). */
  readonly group?: string;
  /** Version of `kind` when it differs from the parent resource's group-version. */
  readonly version?: string;
  readonly verbs: readonly string[];
}

/**
 * Where the /scale subresource finds its numbers, as dot paths into the object (what a CRD's
 * `subresources.scale` declares). The selector may be a string (a serialised selector), a
 * LabelSelector object, or a plain label map (ReplicationController).
 */
export interface ScaleDeclaration {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/**
 * Conversion between the versions of a group-resource whose versions differ in more than their
 * apiVersion (custom resources): objects are stored in `storageVersion` and served in the
 * requested version through `convert`. Absent for built-ins (an apiVersion rewrite).
 */
export interface VersionConversion {
  /**
   * "None": an apiVersion rewrite (custom resources without a webhook). "Webhook" (custom
   * resources) and "Builtin" (a built-in type stored as another group's kind: events.k8s.io/v1
   * Events are core/v1 Events in storage): stored objects keep their apiVersion until converted.
   */
  readonly strategy: "None" | "Webhook" | "Builtin";
  /** The apiVersion (`group/version`) objects are written in. */
  readonly storageApiVersion: string;
  /** The objects (each in its own apiVersion) in `toApiVersion`; throws the ApiError to answer. */
  convert(objects: readonly KObject[], toApiVersion: string): Promise<KObject[]>;
}

/** Graceful deletion (pods): the grace period (seconds; 0 = now) given what a DELETE asked for. */
export type GracePeriodPolicy = (obj: KObject, requested: number | undefined) => number;

/** The fields a field selector may name for a type, and their values on an object. */
export interface FieldSelectors {
  readonly names: ReadonlySet<string>;
  values(obj: KObject): Record<string, string>;
}

export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  gr: GroupResource;
  /** "v1" or "apps/v1". */
  apiVersion: string;
  /** Storage key prefix shared by all versions of the group-resource, ending in "/". */
  keyPrefix: string;
  strategy: Strategy;
  hasStatus: boolean;
  verbs: ReadonlySet<string>;
  /** Types whose objects are only POSTed and answered (reviews): nothing is stored. */
  virtual: boolean;
  /** Graceful deletion (pods): how long a DELETE waits for the owning agent. */
  gracePeriod?: GracePeriodPolicy;

  /** Lowercase singular name (discovery, kubectl). */
  singularName: string;
  shortNames: readonly string[];
  categories: readonly string[];
  /** Subresources in discovery's order (by name). */
  subresources: readonly SubresourceDeclaration[];
  /** Set when the type has a /scale subresource. */
  scale?: ScaleDeclaration;
  /** The version in-process readers use for this group-resource (all versions share storage). */
  preferredVersion: string;
  /** The group-version-kind objects are persisted as (discovery's storageVersionHash); absent for types that store nothing. */
  storageVersion?: GroupVersionKind;

  /** Definitions for field validation, strategic merge patch, apply and OpenAPI. */
  schema: TypeSchema;
  /** Server-side Table output (kubectl get). */
  printer: TablePrinter;
  fieldSelectors: FieldSelectors;
  /** Objects have a protobuf encoding (built-ins); custom resources are JSON/YAML only. */
  protobuf: boolean;
  /** application/strategic-merge-patch+json is accepted (built-ins; never for custom resources). */
  strategicMergePatch: boolean;
  /** Storage-version conversion (custom resources). */
  conversion?: VersionConversion;
  /** This version is deprecated: every request to it is signalled (see Deprecation). */
  deprecation?: Deprecation;
  /**
   * Applied in place to every object decoded from storage (custom resources: the structural
   * defaults of the stored version, so an object stored before a `default` was added is read
   * with it). Absent for built-ins: their reads serve the stored bytes untouched.
   */
  onDecode?: (obj: KObject) => void;
  /**
   * Asked before a create (POST) of the type: an error refuses it (custom resources of a
   * definition being deleted: 405 `create not allowed while custom resource definition is
   * terminating`). Absent for built-ins.
   */
  createRefused?: () => ApiError | undefined;
  /**
   * What the group-resource's watch cache is decoded with (kind, scope, storage version and its
   * defaults, conversion, selectable fields), as a comparable string. An update of the type that
   * keeps it keeps the cache and its open watches; absent (built-ins): every update drops it.
   */
  cacheIdentity?: string;
}

/**
 * A deprecated API version (upstream's deprecation signals): each request to it gets the Warning
 * header `warning` (when there is one), the audit annotations k8s.io/deprecated and
 * k8s.io/removed-release, and raises the apiserver_requested_deprecated_apis gauge.
 */
export interface Deprecation {
  warning?: string;
  /** "<major>.<minor>" it stops being served in; "" when none is planned (custom resources). */
  removedRelease: string;
  /**
   * Every subresource shares it (custom resources); otherwise only those served with the type's
   * own kind (status), not those with a kind of their own (scale, eviction).
   */
  allSubresources?: boolean;
}

/** What a type module (built-ins) or a definition (custom resources) says; the rest is derived. */
export interface ResourceTypeDeclaration {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** Default: `<kind>List`. */
  listKind?: string;
  namespaced: boolean;
  verbs: readonly string[];
  /** Default: the lowercase kind. */
  singularName?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  subresources?: readonly SubresourceDeclaration[];
  scale?: ScaleDeclaration;
  /** Default: `version`. */
  preferredVersion?: string;
  storageVersion?: GroupVersionKind;
  /** Default: the default strategy. */
  strategy?: Strategy;
  /** Default: no definitions (every field is accepted as sent). */
  schema?: TypeSchema;
  /** Default: name and creation time. */
  printer?: TablePrinter;
  /** Field selector values beyond metadata.name and metadata.namespace. */
  selectableFields?: (obj: KObject) => Record<string, string>;
  protobuf?: boolean;
  strategicMergePatch?: boolean;
  virtual?: boolean;
  gracePeriod?: GracePeriodPolicy;
  /** See ResourceType.onDecode. */
  onDecode?: (obj: KObject) => void;
  /** See ResourceType.createRefused. */
  createRefused?: () => ApiError | undefined;
  /** Default: /registry/<group>/<resource>/ (core: /registry/<resource>/). */
  keyPrefix?: string;
  conversion?: VersionConversion;
  deprecation?: Deprecation;
  /** See ResourceType.cacheIdentity. */
  cacheIdentity?: string;
}

/** The /scale subresource as upstream serves it for every scalable type. */
const scaleSubresource: SubresourceDeclaration = { name: "scale", kind: "Scale", group: "autoscaling", version: "v1", verbs: ["get", "patch", "update"] };

export function defineResourceType(d: ResourceTypeDeclaration): ResourceType {
  const declared = d.subresources ?? [];
  const withScale = d.scale && !declared.some((s) => s.name === "scale") ? [...declared, scaleSubresource] : declared;
  const subresources = [...withScale].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    group: d.group,
    version: d.version,
    resource: d.resource,
    kind: d.kind,
    listKind: d.listKind ?? `${d.kind}List`,
    namespaced: d.namespaced,
    gr: { group: d.group, resource: d.resource },
    apiVersion: d.group ? `${d.group}/${d.version}` : d.version,
    keyPrefix: d.keyPrefix ?? `/registry/${d.group ? `${d.group}/` : ""}${d.resource}/`,
    strategy: d.strategy ?? defaultStrategy,
    hasStatus: subresources.some((s) => s.name === "status"),
    verbs: new Set(d.verbs),
    virtual: d.virtual ?? false,
    gracePeriod: d.gracePeriod,
    singularName: d.singularName ?? d.kind.toLowerCase(),
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
    subresources,
    scale: d.scale,
    preferredVersion: d.preferredVersion ?? d.version,
    storageVersion: d.storageVersion,
    schema: d.schema ?? noSchema,
    printer: d.printer ?? defaultTablePrinter,
    fieldSelectors: fieldSelectors(d.namespaced, d.selectableFields),
    protobuf: d.protobuf ?? false,
    strategicMergePatch: d.strategicMergePatch ?? false,
    ...(d.conversion ? { conversion: d.conversion } : {}),
    ...(d.deprecation ? { deprecation: d.deprecation } : {}),
    ...(d.onDecode ? { onDecode: d.onDecode } : {}),
    ...(d.createRefused ? { createRefused: d.createRefused } : {}),
    ...(d.cacheIdentity !== undefined ? { cacheIdentity: d.cacheIdentity } : {}),
  };
}

function fieldSelectors(namespaced: boolean, extra: ((obj: KObject) => Record<string, string>) | undefined): FieldSelectors {
  const values = (obj: KObject): Record<string, string> => {
    const f: Record<string, string> = { "metadata.name": obj.metadata.name ?? "" };
    if (namespaced) f["metadata.namespace"] = obj.metadata.namespace ?? "";
    return extra ? Object.assign(f, extra(obj)) : f;
  };
  // The names are those an empty object yields: selectable fields are always present, "" when unset.
  return { names: new Set(Object.keys(values({ metadata: {} }))), values };
}

export function storageKey(t: ResourceType, namespace: string, name: string): string {
  return t.namespaced ? `${t.keyPrefix}${namespace}/${name}` : `${t.keyPrefix}${name}`;
}

/** Prefix for a list: one namespace, or all of them ("" namespace). */
export function storagePrefix(t: ResourceType, namespace: string): string {
  return t.namespaced && namespace ? `${t.keyPrefix}${namespace}/` : t.keyPrefix;
}

/** Stored objects keep their own apiVersion until converted (webhook and built-in conversion). */
export function convertsOnRead(t: ResourceType): boolean {
  return t.conversion !== undefined && t.conversion.strategy !== "None";
}
