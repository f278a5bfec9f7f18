// The ResourceType of every served version of a CustomResourceDefinition: names (accepted names
// when the naming controller has set them), scope, verbs, subresources (status, scale with its
// paths), printer columns, selectable fields, JSON/YAML only (no protobuf, no strategic merge
// patch), and a schema of its own over the built-in ObjectMeta for field validation, apply and
// OpenAPI v3 (kubectl explain).
import type { SchemaNode } from "../apimachinery/schema.js";
import { ApiError } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import { defineResourceType, type ResourceType, type SubresourceDeclaration } from "../registry/resource-type.js";
import { layeredSchema, type TypeSchema } from "../registry/type-schema.js";
import { builtinSchema } from "../types/register.js";
import { customResourcePrinter, type PrinterColumn } from "./custom-resource-printer.js";
import { applyDefaults, prune, type JSONSchemaProps } from "./custom-resource-schema.js";
import { customResourceStrategy, type RulesValidator } from "./custom-resource-strategy.js";
import type { VersionConversion } from "../registry/resource-type.js";
import { ConversionError, conversionStatusError, createConverter, type Converter, type ConverterOptions } from "./conversion.js";
import { apiVersionOf, deprecationWarning, type CRDLike } from "./versions.js";

export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; uid?: string; deletionTimestamp?: string; resourceVersion?: string; generation?: number };
  spec: { group: string; names: CRDNames; scope: "Namespaced" | "Cluster"; versions: CRDVersion[]; conversion?: unknown; preserveUnknownFields?: boolean };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[]; acceptedNames?: CRDNames; storedVersions?: string[] };
}

export const customResourceVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] as const;

/** "stable.example.com" → "com.example.stable" (definition names as upstream's OpenAPI). */
export function reversedGroup(group: string): string {
  return group.split(".").reverse().join(".");
}

/** Kube-aware version order (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others alphabetically). */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0, minor: m[3] === undefined ? 0 : Number(m[3]) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/** The schema node of a CRD schema node, for decode/apply/OpenAPI (embedded resources keep their type fields). */
function toSchemaNode(s: JSONSchemaProps): SchemaNode {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "properties" && v && typeof v === "object") {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, JSONSchemaProps>).map(([pk, pv]) => [pk, toSchemaNode(pv)]));
    } else if ((k === "items" || k === "additionalProperties") && v && typeof v === "object" && !Array.isArray(v)) {
      out[k] = toSchemaNode(v as JSONSchemaProps);
    } else if ((k === "allOf" || k === "anyOf" || k === "oneOf") && Array.isArray(v)) {
      out[k] = v.map((x) => toSchemaNode(x as JSONSchemaProps));
    } else if (k === "not" && v && typeof v === "object") {
      out[k] = toSchemaNode(v as JSONSchemaProps);
    } else out[k] = v;
  }
  if (s["x-kubernetes-embedded-resource"]) {
    out.properties = { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, ...((out.properties as object) ?? {}) };
  }
  return out as SchemaNode;
}

/** The definitions of one version: the kind (over ObjectMeta) and its list. */
function versionSchema(group: string, version: string, names: CRDNames, schema: JSONSchemaProps | undefined): TypeSchema {
  const base = `${reversedGroup(group)}.${version}.`;
  const listKind = names.listKind ?? `${names.kind}List`;
  const kindDef = base + names.kind;
  const listDef = base + listKind;
  const root = schema ? toSchemaNode(schema) : ({ type: "object", "x-kubernetes-preserve-unknown-fields": true } as SchemaNode);
  const kindNode = {
    ...root,
    type: "object",
    properties: {
      ...(root.properties ?? {}),
      apiVersion: { type: "string", description: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources" },
      kind: { type: "string", description: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds" },
      metadata: { $ref: `${metaPrefix}ObjectMeta`, description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata" },
    },
    "x-kubernetes-group-version-kind": [{ group, version, kind: names.kind }],
  } as SchemaNode;
  const listNode = {
    type: "object",
    description: `${listKind} is a list of ${names.kind}`,
    required: ["items"],
    properties: {
      apiVersion: { type: "string" },
      items: { type: "array", description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: kindDef } },
      kind: { type: "string" },
      metadata: { $ref: `${metaPrefix}ListMeta` },
    },
    "x-kubernetes-group-version-kind": [{ group, version, kind: listKind }],
  } as SchemaNode;
  const layered = layeredSchema({ [kindDef]: kindNode, [listDef]: listNode }, { [`${group}/${version}/${names.kind}`]: kindDef, [`${group}/${version}/${listKind}`]: listDef }, builtinSchema);
  const pruneSchema = schema;
  return {
    ...layered,
    prune: (obj) => (pruneSchema ? prune(obj, pruneSchema, { isResourceRoot: true }).map((p) => p.replace(/^\./, "")) : []),
  };
}

/** The names served: the accepted names once the naming controller set them, else the spec's. */
export function servedNames(crd: CustomResourceDefinition): CRDNames {
  const accepted = crd.status?.acceptedNames;
  return accepted && accepted.plural && accepted.kind ? accepted : crd.spec.names;
}

/** Hooks the other modules provide per version (CEL rules). */
export interface VersionHooks {
  rules?(version: CRDVersion): RulesValidator | undefined;
  /** Options of the CRD's converter (service resolution, timeout). */
  converterOptions?: ConverterOptions;
}

/**
 * The conversion every served version of one CRD revision shares: one converter, built from this
 * revision's spec.conversion (a CRD update builds a new one). Failures answer upstream's 500.
 */
export function crdConversion(crd: CustomResourceDefinition, storage: string, options: ConverterOptions = {}): VersionConversion {
  let converter: Converter;
  try {
    converter = createConverter(crd as unknown as CRDLike, options);
  } catch (e) {
    const err = e instanceof Error ? e : new ConversionError(String(e));
    converter = { strategy: "Webhook", convert: () => Promise.reject(err) };
  }
  return {
    strategy: converter.strategy,
    storageApiVersion: apiVersionOf(crd.spec.group, storage),
    async convert(objects: readonly KObject[], toApiVersion: string): Promise<KObject[]> {
      try {
        return await converter.convert(objects, toApiVersion.slice(toApiVersion.indexOf("/") + 1));
      } catch (e) {
        throw conversionStatusError(e);
      }
    },
  };
}

/** Some node of the schema declares a `default` (else reading needs no defaulting pass). */
export function hasDefaults(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasDefaults);
  if (!s || typeof s !== "object") return false;
  const o = s as Record<string, unknown>;
  if ("default" in o) return true;
  for (const k of ["properties", "items", "additionalProperties", "allOf", "anyOf", "oneOf", "not"]) {
    const v = o[k];
    if (!v || typeof v !== "object") continue;
    if (k === "properties" ? Object.values(v).some(hasDefaults) : hasDefaults(v)) return true;
  }
  return false;
}

/** What changes about a served definition without rebuilding its types (serving keeps one per CRD). */
export interface DefinitionState {
  /** deletionTimestamp set or Terminating=True: creates are refused until the CRD goes. */
  terminating: boolean;
}

/** The CRD is being deleted (its custom objects are being removed by the finalizer controller). */
export function isTerminating(crd: CustomResourceDefinition): boolean {
  if (crd.metadata.deletionTimestamp) return true;
  return (crd.status?.conditions ?? []).some((c) => c.type === "Terminating" && c.status === "True");
}

/** upstream's refusal of a create while the definition terminates (405 MethodNotAllowed). */
export function terminatingCreateError(group: string, resource: string): ApiError {
  return new ApiError(405, "MethodNotAllowed", "create not allowed while custom resource definition is terminating", { group: group || undefined, kind: resource });
}

/** One ResourceType per served version. */
export function customResourceTypes(crd: CustomResourceDefinition, hooks: VersionHooks = {}, state: DefinitionState = { terminating: isTerminating(crd) }): ResourceType[] {
  const { group, scope } = crd.spec;
  const names = servedNames(crd);
  const served = crd.spec.versions.filter((v) => v.served);
  const storage = crd.spec.versions.find((v) => v.storage) ?? served[0];
  const preferred = [...served].sort((a, b) => compareKubeVersions(a.name, b.name))[0]?.name;
  const conversion = storage ? crdConversion(crd, storage.name, hooks.converterOptions) : undefined;
  // Stored objects are read with the storage version's defaults (upstream defaults while decoding
  // from storage): one hook for every version, as the versions share one watch cache.
  const storageSchema = storage?.schema?.openAPIV3Schema;
  const onDecode = storageSchema && hasDefaults(storageSchema) ? (obj: KObject) => applyDefaults(obj, storageSchema) : undefined;
  // Everything the shared watch cache is decoded and served with. Upstream tears the whole storage
  // down on any spec change (open watches end); we keep it, and open watches, when none of this
  // changed — printer columns, a non-storage version's schema, a new served version leave it alone.
  const cacheIdentity = JSON.stringify([
    crd.metadata.uid ?? "",
    scope,
    names.kind,
    storage?.name ?? "",
    onDecode ? storageSchema : null,
    crd.spec.conversion ?? null,
    served.filter((v) => (v.selectableFields ?? []).length > 0).map((v) => [v.name, v.selectableFields]),
  ]);
  return served.map((v) => {
    const schema = v.schema?.openAPIV3Schema;
    const subresources: SubresourceDeclaration[] = [];
    if (v.subresources?.status) subresources.push({ name: "status", kind: names.kind, verbs: ["get", "patch", "update"] });
    const scale = v.subresources?.scale;
    const selectable = (v.selectableFields ?? []).map((f) => f.jsonPath);
    const strategy = customResourceStrategy({ schema, hasStatus: !!v.subresources?.status, rules: hooks.rules?.(v), selectableFields: selectable });
    return defineResourceType({
      group,
      version: v.name,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced: scope === "Namespaced",
      verbs: customResourceVerbs,
      singularName: names.singular || names.kind.toLowerCase(),
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources,
      scale: scale ? { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, labelSelectorPath: scale.labelSelectorPath } : undefined,
      preferredVersion: preferred,
      storageVersion: storage ? { group, version: storage.name, kind: names.kind } : undefined,
      strategy,
      schema: versionSchema(group, v.name, names, schema),
      printer: customResourcePrinter(v.additionalPrinterColumns),
      selectableFields: selectable.length > 0 ? strategy.selectableFields : undefined,
      protobuf: false,
      strategicMergePatch: false,
      keyPrefix: `/registry/${group}/${crd.spec.names.plural}/`,
      conversion,
      // Upstream's custom resource handler signals a deprecated version on every subresource, with no removal release.
      deprecation: v.deprecated === true ? { warning: deprecationWarning(crd as unknown as CRDLike, v.name) || undefined, removedRelease: "", allSubresources: true } : undefined,
      onDecode,
      cacheIdentity,
      createRefused: () => (state.terminating ? terminatingCreateError(group, names.plural) : undefined),
    });
  });
}
