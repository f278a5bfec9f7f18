// OpenAPI v3 documents, one per served group-version (plus the small root documents), built from
// the generated structural schemas. kubectl reads them to: find a kind's schema by its
// x-kubernetes-group-version-kind (explain, client-side apply); decide strategic merge patch
// support (the PATCH operation of the GVK lists application/strategic-merge-patch+json in its
// requestBody); decide server-side field validation (the PATCH operation has a `fieldValidation`
// query parameter, inline, not by reference). We ship no upstream prose: no descriptions.
import { deepClone } from "../apimachinery/json-value.js";
import type { DefinitionLookup, SchemaNode } from "../apimachinery/schema.js";
import type { ResourceType, SubresourceDeclaration } from "../registry/resource-type.js";
import type { TypeSchema } from "../registry/type-schema.js";
import type { ServedGroup, ServedVersion } from "./model.js";

type Json = Record<string, unknown>;

const meta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const schemaPrefix = "#/components/schemas/";

export const patchMediaTypes = [
  "application/apply-patch+yaml",
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
] as const;

/** What a GET can answer in (the codecs of the resource handlers), with and without protobuf. */
interface MediaTypes {
  object: readonly string[];
  list: readonly string[];
  watch: readonly string[];
  patch: readonly string[];
}

const builtinMediaTypes: MediaTypes = {
  object: ["application/json", "application/vnd.kubernetes.protobuf", "application/yaml"],
  list: ["application/json", "application/vnd.kubernetes.protobuf", "application/yaml", "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"],
  watch: ["application/json", "application/json;stream=watch", "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf;stream=watch", "application/yaml"],
  patch: patchMediaTypes,
};

const isProtobuf = (m: string) => m.includes("protobuf");

/** A type's media types: protobuf only where it has a protobuf form, strategic merge only where accepted. */
function mediaTypesOf(t: ResourceType): MediaTypes {
  if (t.protobuf && t.strategicMergePatch) return builtinMediaTypes;
  const drop = (list: readonly string[]) => (t.protobuf ? list : list.filter((m) => !isProtobuf(m)));
  return {
    object: drop(builtinMediaTypes.object),
    list: drop(builtinMediaTypes.list),
    watch: drop(builtinMediaTypes.watch),
    patch: t.strategicMergePatch ? patchMediaTypes : patchMediaTypes.filter((m) => m !== "application/strategic-merge-patch+json"),
  };
}

// ---------------------------------------------------------------- parameters

function queryParam(name: string, type: "string" | "integer" | "boolean"): Json {
  return { name, in: "query", schema: { type, uniqueItems: true } };
}

function pathParam(name: string): Json {
  return { name, in: "path", required: true, schema: { type: "string", uniqueItems: true } };
}

const p = {
  allowWatchBookmarks: queryParam("allowWatchBookmarks", "boolean"),
  continue: queryParam("continue", "string"),
  dryRun: queryParam("dryRun", "string"),
  fieldManager: queryParam("fieldManager", "string"),
  fieldSelector: queryParam("fieldSelector", "string"),
  fieldValidation: queryParam("fieldValidation", "string"),
  force: queryParam("force", "boolean"),
  gracePeriodSeconds: queryParam("gracePeriodSeconds", "integer"),
  ignoreStoreRead: queryParam("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean"),
  labelSelector: queryParam("labelSelector", "string"),
  limit: queryParam("limit", "integer"),
  orphanDependents: queryParam("orphanDependents", "boolean"),
  pretty: queryParam("pretty", "string"),
  propagationPolicy: queryParam("propagationPolicy", "string"),
  resourceVersion: queryParam("resourceVersion", "string"),
  resourceVersionMatch: queryParam("resourceVersionMatch", "string"),
  sendInitialEvents: queryParam("sendInitialEvents", "boolean"),
  timeoutSeconds: queryParam("timeoutSeconds", "integer"),
  watch: queryParam("watch", "boolean"),
  name: pathParam("name"),
  namespace: pathParam("namespace"),
};

const listParams = [
  p.allowWatchBookmarks, p.continue, p.fieldSelector, p.labelSelector, p.limit,
  p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds, p.watch,
];
const writeParams = [p.dryRun, p.fieldManager, p.fieldValidation];
const deleteParams = [p.dryRun, p.gracePeriodSeconds, p.ignoreStoreRead, p.orphanDependents, p.propagationPolicy];
const deleteCollectionParams = [
  p.continue, p.dryRun, p.fieldSelector, p.gracePeriodSeconds, p.ignoreStoreRead, p.labelSelector, p.limit,
  p.orphanDependents, p.propagationPolicy, p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds,
];

// ---------------------------------------------------------------- operations

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

function ref(name: string): Json {
  return { $ref: schemaPrefix + name };
}

function content(types: readonly string[], schema: Json): Json {
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function response(types: readonly string[], schema: Json): Json {
  return { description: "OK", content: content(types, schema) };
}

/** The schema a GVK's body uses, when the type's definitions know it. */
function kindSchema(schema: TypeSchema, gvk: Gvk): Json {
  const name = schema.nameOf(gvk.group, gvk.version, gvk.kind);
  return name ? ref(name) : { type: "object" };
}

function camel(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "apps" → "Apps", "rbac.authorization.k8s.io" → "RbacAuthorization", core → "Core". */
function groupWord(group: string): string {
  return group === "" ? "Core" : group.replace(/\.k8s\.io$/, "").split(".").map(camel).join("");
}

/**
 * Upstream's operationId: verb, group and version in camel case, "Collection" for
 * deletecollection, "Namespaced", the kind, the subresource, and a suffix ("List",
 * "ForAllNamespaces", "APIResources").
 */
function operationId(verb: string, gv: Gvk, kind: string, namespaced: boolean, sub: string, suffix = "", collection = false): string {
  return `${verb}${groupWord(gv.group)}${camel(gv.version)}${collection ? "Collection" : ""}${namespaced ? "Namespaced" : ""}${kind}${camel(sub)}${suffix}`;
}

function operation(id: string, action: string, gvk: Gvk, fields: Json): Json {
  const op: Json = { tags: [], operationId: id, ...fields };
  op.responses = { ...(fields.responses as Json), "401": { description: "Unauthorized" } };
  op["x-kubernetes-action"] = action;
  op["x-kubernetes-group-version-kind"] = { group: gvk.group, version: gvk.version, kind: gvk.kind };
  return op;
}

/** Upstream tags: "core_v1", "apps_v1", "rbacAuthorization_v1". */
function groupTag(group: string): string {
  const w = groupWord(group);
  return w.charAt(0).toLowerCase() + w.slice(1);
}

function tagFor(gv: Gvk): string {
  return gv.version ? `${groupTag(gv.group)}_${gv.version}` : groupTag(gv.group);
}

/** Connect subresources (exec, attach, portforward, proxy) answer with a stream, not an object. */
function isConnect(s: SubresourceDeclaration): boolean {
  return s.kind.endsWith("Options");
}

interface PathItems {
  [path: string]: Json;
}

function addOp(paths: PathItems, path: string, params: Json[], method: string, op: Json): void {
  const item = (paths[path] ??= { parameters: params });
  item[method] = op;
}

function resourcePaths(paths: PathItems, gv: Gvk, prefix: string, t: ResourceType): void {
  const verbs = t.verbs;
  const gvk: Gvk = { group: t.group, version: t.version, kind: t.kind };
  const obj = kindSchema(t.schema, gvk);
  const list = kindSchema(t.schema, { ...gvk, kind: t.listKind });
  const media = mediaTypesOf(t);
  const objectMediaTypes = media.object;
  const listMediaTypes = media.list;
  const watchMediaTypes = media.watch;
  const tags = [tagFor(gv)];
  const ns = t.namespaced;
  const collection = ns ? `${prefix}/namespaces/{namespace}/${t.resource}` : `${prefix}/${t.resource}`;
  const item = `${collection}/{name}`;
  const collParams = ns ? [p.namespace, p.pretty] : [p.pretty];
  const itemParams = ns ? [p.name, p.namespace, p.pretty] : [p.name, p.pretty];
  const id = (verb: string, sub = "", suffix = "") => operationId(verb, gv, t.kind, ns, sub, suffix);
  const status = ref(`${meta}Status`);
  const watchEvent = ref(`${meta}WatchEvent`);

  if (verbs.has("list")) {
    addOp(paths, collection, collParams, "get", operation(id("list"), "list", gvk, { tags, parameters: listParams, responses: { "200": response(listMediaTypes, list) } }));
    if (ns) {
      const all = `${prefix}/${t.resource}`;
      addOp(paths, all, [p.pretty], "get", operation(operationId("list", gv, t.kind, false, "", "ForAllNamespaces"), "list", gvk, { tags, parameters: listParams, responses: { "200": response(listMediaTypes, list) } }));
      if (verbs.has("watch")) {
        addOp(paths, `${prefix}/watch/${t.resource}`, [p.pretty], "get", operation(operationId("watch", gv, t.kind, false, "", "ListForAllNamespaces"), "watchlist", gvk, { tags, parameters: listParams, responses: { "200": response(watchMediaTypes, watchEvent) } }));
      }
    }
  }
  if (verbs.has("create")) {
    addOp(paths, collection, collParams, "post", operation(id("create"), "post", gvk, {
      tags,
      parameters: writeParams,
      requestBody: { content: content(["*/*"], obj), required: true },
      responses: { "200": response(objectMediaTypes, obj), "201": { description: "Created", content: content(objectMediaTypes, obj) }, "202": { description: "Accepted", content: content(objectMediaTypes, obj) } },
    }));
  }
  if (verbs.has("deletecollection")) {
    addOp(paths, collection, collParams, "delete", operation(operationId("delete", gv, t.kind, ns, "", "", true), "deletecollection", gvk, {
      tags,
      parameters: deleteCollectionParams,
      requestBody: { content: content(["*/*"], ref(`${meta}DeleteOptions`)) },
      responses: { "200": response(objectMediaTypes, status) },
    }));
  }
  if (verbs.has("watch")) {
    const wcoll = ns ? `${prefix}/watch/namespaces/{namespace}/${t.resource}` : `${prefix}/watch/${t.resource}`;
    addOp(paths, wcoll, collParams, "get", operation(id("watch", "", "List"), "watchlist", gvk, { tags, parameters: listParams, responses: { "200": response(watchMediaTypes, watchEvent) } }));
    addOp(paths, `${wcoll}/{name}`, itemParams, "get", operation(id("watch"), "watch", gvk, { tags, parameters: listParams, responses: { "200": response(watchMediaTypes, watchEvent) } }));
  }
  if (verbs.has("get")) {
    addOp(paths, item, itemParams, "get", operation(id("read"), "get", gvk, { tags, responses: { "200": response(objectMediaTypes, obj) } }));
  }
  if (verbs.has("update")) {
    addOp(paths, item, itemParams, "put", operation(id("replace"), "put", gvk, {
      tags,
      parameters: writeParams,
      requestBody: { content: content(["*/*"], obj), required: true },
      responses: { "200": response(objectMediaTypes, obj), "201": { description: "Created", content: content(objectMediaTypes, obj) } },
    }));
  }
  if (verbs.has("patch")) addOp(paths, item, itemParams, "patch", patchOperation(id("patch"), gvk, obj, tags, media));
  if (verbs.has("delete")) {
    addOp(paths, item, itemParams, "delete", operation(id("delete"), "delete", gvk, {
      tags,
      parameters: deleteParams,
      requestBody: { content: content(["*/*"], ref(`${meta}DeleteOptions`)) },
      responses: { "200": response(objectMediaTypes, status), "202": { description: "Accepted", content: content(objectMediaTypes, status) } },
    }));
  }

  for (const s of t.subresources) {
    const subGvk: Gvk = { group: s.group ?? t.group, version: s.version ?? t.version, kind: s.kind };
    const path = `${item}/${s.name}`;
    const sid = (verb: string) => id(verb, s.name);
    if (isConnect(s)) {
      const methods: Record<string, string> = { get: "get", create: "post", update: "put", patch: "patch", delete: "delete" };
      const verbName: Record<string, string> = { get: "connectGet", create: "connectPost", update: "connectPut", patch: "connectPatch", delete: "connectDelete" };
      for (const v of s.verbs) {
        const method = methods[v];
        if (!method) continue;
        addOp(paths, path, ns ? [p.name, p.namespace] : [p.name], method, operation(id(verbName[v], s.name), "connect", subGvk, { tags, responses: { "200": response(["*/*"], { type: "string" }) } }));
      }
      continue;
    }
    // pods/log streams text; every other subresource reads and writes its kind.
    const body = s.name === "log" ? { type: "string" } : kindSchema(t.schema, subGvk);
    const types = s.name === "log" ? ["text/plain", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf"] : objectMediaTypes;
    for (const v of s.verbs) {
      if (v === "get") addOp(paths, path, itemParams, "get", operation(sid("read"), "get", subGvk, { tags, responses: { "200": response(types, body) } }));
      else if (v === "update") {
        addOp(paths, path, itemParams, "put", operation(sid("replace"), "put", subGvk, {
          tags,
          parameters: writeParams,
          requestBody: { content: content(["*/*"], body), required: true },
          responses: { "200": response(types, body), "201": { description: "Created", content: content(types, body) } },
        }));
      } else if (v === "patch") addOp(paths, path, itemParams, "patch", patchOperation(sid("patch"), subGvk, body, tags, media));
      else if (v === "create") {
        addOp(paths, path, itemParams, "post", operation(sid("create"), "post", subGvk, {
          tags,
          parameters: writeParams,
          requestBody: { content: content(["*/*"], body), required: true },
          responses: { "200": response(types, body), "201": { description: "Created", content: content(types, body) }, "202": { description: "Accepted", content: content(types, body) } },
        }));
      }
    }
  }
}

/** PATCH: the patch media types the type accepts (a CRD's lack strategic merge) and `force` for apply. */
function patchOperation(id: string, gvk: Gvk, obj: Json, tags: string[], media: MediaTypes): Json {
  return operation(id, "patch", gvk, {
    tags,
    parameters: [...writeParams, p.force],
    requestBody: { content: content(media.patch, ref(`${meta}Patch`)), required: true },
    responses: { "200": response(media.object, obj), "201": { description: "Created", content: content(media.object, obj) } },
  });
}

// ---------------------------------------------------------------- schemas

/** Converts a generated schema node to OpenAPI v3: JSON-pointer refs, refs with siblings wrapped in allOf. */
function toV3(s: SchemaNode, seen: Set<string>, queue: string[]): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref") continue;
    if (k === "properties") {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, SchemaNode>).map(([pk, pv]) => [pk, toV3(pv, seen, queue)]));
    } else if (k === "items") {
      out.items = toV3(v as SchemaNode, seen, queue);
    } else if (k === "additionalProperties" && typeof v === "object") {
      out.additionalProperties = toV3(v as SchemaNode, seen, queue);
    } else {
      out[k] = deepClone(v);
    }
  }
  if (s.$ref === undefined) return out;
  const target = s.$ref.replace(/^#\/definitions\//, "");
  if (!seen.has(target)) {
    seen.add(target);
    queue.push(target);
  }
  const r = ref(target);
  // OpenAPI 3.0 ignores siblings of $ref, so a ref with markers (patch strategy, list type…)
  // is wrapped, as upstream's builder does: {allOf: [{$ref}], ...markers}.
  return Object.keys(out).length === 0 ? r : { allOf: [r], ...out };
}

/**
 * Types whose v3 schema upstream generates differently from v2 (their OpenAPIV3OneOfTypes):
 * a oneOf of the accepted JSON types instead of `type: string`. Besides being what upstream
 * serves, it makes kubectl explain name them (<IntOrString>, <Quantity>) rather than <string>.
 */
const v3Overrides: Readonly<Record<string, Json>> = {
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { format: "int-or-string", oneOf: [{ type: "integer" }, { type: "string" }] },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": { oneOf: [{ type: "string" }, { type: "number" }] },
};

/**
 * Every schema reachable from the roots, converted, keyed by definition name (sorted). Each root
 * names the lookup it (and what it references) is resolved with: one document may hold types
 * whose definitions come from different sources.
 */
export function reachableSchemas(roots: ReadonlyMap<string, DefinitionLookup>): Record<string, Json> {
  const out: Record<string, Json> = {};
  // A name reached once is not followed again, whichever lookup reached it first.
  const seen = new Set<string>();
  for (const [root, lookup] of roots) {
    if (seen.has(root) || !lookup(root)) continue;
    seen.add(root);
    const queue = [root];
    while (queue.length > 0) {
      const name = queue.shift()!;
      const def = lookup(name);
      if (!def) continue;
      out[name] = v3Overrides[name] ? deepClone(v3Overrides[name]) : toV3(def, seen, queue);
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---------------------------------------------------------------- documents

export const openapiInfo = { title: "Kubernetes", version: "v1.34.0" };

function document(paths: PathItems, schemaRoots: ReadonlyMap<string, DefinitionLookup>): Json {
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: "3.0.0",
    info: openapiInfo,
    paths: sorted,
    components: { schemas: reachableSchemas(schemaRoots), securitySchemes: { BearerToken: { type: "apiKey", name: "authorization", in: "header" } } },
    security: [{ BearerToken: [] }],
  };
}

function discoveryGet(id: string, tag: string, schemaName: string): Json {
  return { get: { tags: [tag], operationId: id, responses: { "200": response(builtinMediaTypes.object, ref(schemaName)), "401": { description: "Unauthorized" } } } };
}

/** The document of one group-version ("api/v1" or "apis/<group>/<version>"); `metaDefinitions` resolves the meta/v1 kinds. */
export function groupVersionDocument(group: string, v: ServedVersion, metaDefinitions: DefinitionLookup): Json {
  const gv: Gvk = { group, version: v.version, kind: "" };
  const prefix = group === "" ? "/api/v1" : `/apis/${group}/${v.version}`;
  const paths: PathItems = {};
  const tag = tagFor(gv);
  paths[`${prefix}/`] = discoveryGet(operationId("get", gv, "", false, "", "APIResources"), tag, `${meta}APIResourceList`);
  const roots = new Map<string, DefinitionLookup>();
  for (const t of v.resources) {
    resourcePaths(paths, gv, prefix, t);
    const root = (group: string, version: string, kind: string) => {
      const n = t.schema.nameOf(group, version, kind);
      if (n && !roots.has(n)) roots.set(n, t.schema.definition);
    };
    root(t.group, t.version, t.kind);
    root(t.group, t.version, t.listKind);
    for (const s of t.subresources) root(s.group ?? t.group, s.version ?? t.version, s.kind);
  }
  for (const n of [`${meta}APIResourceList`, `${meta}DeleteOptions`, `${meta}Patch`, `${meta}Status`, `${meta}WatchEvent`]) roots.set(n, metaDefinitions);
  return document(paths, roots);
}

/** "api": GET /api/ (APIVersions). */
export function coreRootDocument(metaDefinitions: DefinitionLookup): Json {
  return document({ "/api/": discoveryGet("getCoreAPIVersions", "core", `${meta}APIVersions`) }, new Map([[`${meta}APIVersions`, metaDefinitions]]));
}

/** "apis": GET /apis/ (APIGroupList). */
export function apisRootDocument(metaDefinitions: DefinitionLookup): Json {
  return document({ "/apis/": discoveryGet("getAPIVersions", "apis", `${meta}APIGroupList`) }, new Map([[`${meta}APIGroupList`, metaDefinitions]]));
}

/** "apis/<group>": GET /apis/<group>/ (APIGroup). */
export function groupDocument(g: ServedGroup, metaDefinitions: DefinitionLookup): Json {
  const gv: Gvk = { group: g.name, version: "", kind: "" };
  const tag = tagFor(gv);
  const id = operationId("get", gv, "", false, "", "APIGroup");
  return document({ [`/apis/${g.name}/`]: discoveryGet(id, tag, `${meta}APIGroup`) }, new Map([[`${meta}APIGroup`, metaDefinitions]]));
}

/** "version": GET /version/. */
export function versionDocument(metaDefinitions: DefinitionLookup): Json {
  const info = "io.k8s.apimachinery.pkg.version.Info";
  return document({ "/version/": discoveryGet("getCodeVersion", "version", info) }, new Map([[info, metaDefinitions]]));
}
