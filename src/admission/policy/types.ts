// The admissionregistration.k8s.io policy objects as the plugins read them (v1 ValidatingAdmission-
// Policy and its binding; v1alpha1/v1beta1 MutatingAdmissionPolicy and its binding). Only the
// fields admission acts on; the API server stores and serves the full objects.
import type { LabelSelectorObject } from "../../apimachinery/labels.js";
import type { MatchResources } from "../matching/index.js";

export type FailurePolicy = "Fail" | "Ignore";

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelectorObject;
  parameterNotFoundAction?: "Allow" | "Deny";
}

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface PolicyMeta {
  name: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
}

export interface ValidatingAdmissionPolicy {
  metadata: PolicyMeta;
  spec?: {
    paramKind?: ParamKind;
    matchConstraints?: MatchResources;
    validations?: Validation[];
    failurePolicy?: FailurePolicy;
    auditAnnotations?: AuditAnnotation[];
    matchConditions?: NamedExpression[];
    variables?: NamedExpression[];
  };
  status?: Record<string, unknown>;
}

export type ValidationAction = "Deny" | "Warn" | "Audit";

export interface PolicyBinding {
  metadata: PolicyMeta;
  spec?: {
    policyName?: string;
    paramRef?: ParamRef;
    matchResources?: MatchResources;
    validationActions?: ValidationAction[];
  };
}

export interface Mutation {
  patchType: "ApplyConfiguration" | "JSONPatch";
  applyConfiguration?: { expression: string };
  jsonPatch?: { expression: string };
}

export interface MutatingAdmissionPolicy {
  metadata: PolicyMeta;
  spec?: {
    paramKind?: ParamKind;
    matchConstraints?: MatchResources;
    variables?: NamedExpression[];
    mutations?: Mutation[];
    failurePolicy?: FailurePolicy;
    matchConditions?: NamedExpression[];
    reinvocationPolicy?: "Never" | "IfNeeded";
  };
}
