// The variables each CEL user of the API server declares, typed as upstream types them:
// CRD validation rules (self/oldSelf from the schema), admission policies (object, oldObject,
// request, params, namespaceObject, authorizer, variables), structured authentication (claims,
// user) and authorization webhook match conditions (request, a SubjectAccessReviewSpec).
import type { CelEnvironment } from "./program.js";
import { kubernetesLibraries } from "./libraries.js";
import { jsonPatchLibrary } from "./library/jsonpatch.js";
import {
  BoolType,
  DynType,
  IntType,
  StringType,
  TimestampType,
  listOf,
  mapOf,
  opaque,
  optionalOf,
  type CelType,
  type ObjectType,
} from "./types.js";

function objectType(name: string, fields: Record<string, [CelType, boolean?]>): ObjectType {
  return {
    kind: "object",
    name,
    fields: new Map(Object.entries(fields).map(([k, [type, required]]) => [k, { type, required: required ?? false }])),
  };
}

const strings = listOf(StringType);
const extraType = mapOf(StringType, strings);

/** kubernetes.UserInfo, shared by admission's request.userInfo and authentication's user. */
export const userInfoType = objectType("kubernetes.UserInfo", {
  username: [StringType],
  uid: [StringType],
  groups: [strings],
  extra: [extraType],
});

const gvk = objectType("kubernetes.GroupVersionKind", { group: [StringType, true], version: [StringType, true], kind: [StringType, true] });
const gvr = objectType("kubernetes.GroupVersionResource", { group: [StringType, true], version: [StringType, true], resource: [StringType, true] });

/** AdmissionRequest without uid, object and oldObject (those are variables of their own). */
export const admissionRequestType = objectType("kubernetes.AdmissionRequest", {
  kind: [gvk, true],
  resource: [gvr, true],
  subResource: [StringType],
  requestKind: [gvk, true],
  requestResource: [gvr, true],
  requestSubResource: [StringType],
  name: [StringType, true],
  namespace: [StringType],
  operation: [StringType, true],
  userInfo: [userInfoType, true],
  dryRun: [BoolType],
  options: [DynType],
});

/** The parts of a Namespace admission policies may read as `namespaceObject`. */
export const namespaceType = objectType("kubernetes.Namespace", {
  metadata: [
    objectType("kubernetes.NamespaceMetadata", {
      name: [StringType, true],
      generateName: [StringType, true],
      namespace: [StringType, true],
      labels: [mapOf(StringType, StringType), true],
      annotations: [mapOf(StringType, StringType), true],
      UID: [StringType, true],
      creationTimestamp: [TimestampType, true],
      deletionGracePeriodSeconds: [IntType, true],
      deletionTimestamp: [TimestampType, true],
      generation: [IntType, true],
      resourceVersion: [StringType, true],
      finalizers: [strings, true],
    }),
    true,
  ],
  spec: [objectType("kubernetes.NamespaceSpec", { finalizers: [strings, true] }), true],
  status: [
    objectType("kubernetes.NamespaceStatus", {
      conditions: [
        listOf(
          objectType("kubernetes.NamespaceCondition", {
            status: [StringType, true],
            type: [StringType, true],
            lastTransitionTime: [TimestampType, true],
            message: [StringType, true],
            reason: [StringType, true],
          }),
        ),
        true,
      ],
      phase: [StringType, true],
    }),
    true,
  ],
});

const selectorRequirement = objectType("kubernetes.SelectorRequirement", { key: [StringType], operator: [StringType], values: [strings] });

/** SubjectAccessReviewSpec as `request` of an authorization webhook's matchConditions. */
export function subjectAccessReviewSpecType(authorizeWithSelectors: boolean): ObjectType {
  const resourceFields: Record<string, [CelType, boolean?]> = {
    namespace: [StringType],
    verb: [StringType],
    group: [StringType],
    version: [StringType],
    resource: [StringType],
    subresource: [StringType],
    name: [StringType],
  };
  if (authorizeWithSelectors) {
    resourceFields.fieldSelector = [objectType("kubernetes.FieldSelectorAttributes", { rawSelector: [StringType], requirements: [listOf(selectorRequirement)] })];
    resourceFields.labelSelector = [objectType("kubernetes.LabelSelectorAttributes", { rawSelector: [StringType], requirements: [listOf(selectorRequirement)] })];
  }
  return objectType("kubernetes.SubjectAccessReviewSpec", {
    resourceAttributes: [objectType("kubernetes.ResourceAttributes", resourceFields)],
    nonResourceAttributes: [objectType("kubernetes.NonResourceAttributes", { path: [StringType], verb: [StringType] })],
    user: [StringType],
    groups: [strings],
    extra: [extraType],
    uid: [StringType],
  });
}

export const authorizerType = opaque("kubernetes.authorization.Authorizer");
export const resourceCheckType = opaque("kubernetes.authorization.ResourceCheck");

/** A CRD validation rule at a schema node of type `self`; `oldSelf` optional when the rule says optionalOldSelf. */
export function crdRuleEnvironment(self: CelType, options: { optionalOldSelf?: boolean } = {}): CelEnvironment {
  return {
    name: "crd-validation",
    variables: { self, oldSelf: options.optionalOldSelf ? optionalOf(self) : self },
    costSizeRoot: self,
  };
}

/** ValidatingAdmissionPolicy / MutatingAdmissionPolicy expressions. */
export function admissionPolicyEnvironment(options: { hasParams: boolean; hasAuthorizer: boolean; variables?: CelType }): CelEnvironment {
  const variables: Record<string, CelType> = {
    object: DynType,
    oldObject: DynType,
    namespaceObject: namespaceType,
    request: admissionRequestType,
  };
  if (options.hasParams) variables.params = DynType;
  if (options.hasAuthorizer) {
    variables.authorizer = authorizerType;
    variables["authorizer.requestResource"] = resourceCheckType;
  }
  if (options.variables) variables.variables = options.variables;
  return { name: "admission-policy", variables };
}

/** MutatingAdmissionPolicy's JSONPatch message: one RFC 6902 operation. */
export const jsonPatchType = objectType("JSONPatch", { op: [StringType], path: [StringType], from: [StringType], value: [DynType] });

const mutationObjectTypes = new Map<string, ObjectType>();

/**
 * The message types a MutatingAdmissionPolicy constructs: `JSONPatch`, and `Object` with every
 * `Object.<field>...` under it, whose fields are any names of any type (the server checks that
 * nested type names follow the field path when the mutation is applied).
 */
export function mutationStructType(name: string): ObjectType | undefined {
  if (name === "JSONPatch") return jsonPatchType;
  if (name !== "Object" && !name.startsWith("Object.")) return undefined;
  let t = mutationObjectTypes.get(name);
  if (!t) {
    t = { kind: "object", name, fields: new Map(), openFields: DynType };
    if (mutationObjectTypes.size < 10_000) mutationObjectTypes.set(name, t);
  }
  return t;
}

/** An admission policy environment that also constructs mutations (MutatingAdmissionPolicy). */
export function withMutationTypes(env: CelEnvironment): CelEnvironment {
  return { ...env, name: "mutating-admission-policy", structTypes: mutationStructType, libraries: [...kubernetesLibraries, jsonPatchLibrary] };
}

/** Structured authentication: claim validation rules and claim mappings see `claims`. */
export const claimsEnvironment: CelEnvironment = { name: "authentication-claims", variables: { claims: mapOf(StringType, DynType) } };
/** Structured authentication: user validation rules see `user`. */
export const userEnvironment: CelEnvironment = { name: "authentication-user", variables: { user: userInfoType } };

/** Authorization configuration: a webhook's matchConditions see `request`. */
export function authorizationMatchEnvironment(authorizeWithSelectors: boolean): CelEnvironment {
  return { name: "authorization-match", variables: { request: subjectAccessReviewSpecType(authorizeWithSelectors) } };
}
