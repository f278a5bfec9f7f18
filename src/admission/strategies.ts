// The built-in types admission/ owns: webhook configurations and admission policies are
// validated by compiling their CEL (match conditions, validations, mutations) with admission's
// compilers, so their strategies are contributed to the type registry from this feature
// (types/ sits below admission/ and cannot import it).
import { kind as kindStrategy, type StrategyContributions } from "../types/strategies.js";
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from "./webhook/configuration-defaults.js";
import { validateWebhookConfiguration } from "./webhook/configuration-validation.js";
import { defaultAdmissionPolicy, defaultPolicyBinding, validateMutatingAdmissionPolicy, validateMutatingAdmissionPolicyBinding, validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from "./policy/api-validation.js";

export const admissionStrategies: StrategyContributions = {
  "mutatingwebhookconfigurations.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultMutatingWebhookConfiguration, validate: (o) => validateWebhookConfiguration(o, true), validateUpdate: (o, old) => validateWebhookConfiguration(o, true, old) }),
  "validatingwebhookconfigurations.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultValidatingWebhookConfiguration, validate: (o) => validateWebhookConfiguration(o, false), validateUpdate: (o, old) => validateWebhookConfiguration(o, false, old) }),
  // Admission policies (their defaults and validation live beside the plugins, src/admission/policy).
  "validatingadmissionpolicies.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultAdmissionPolicy, validate: (o) => validateValidatingAdmissionPolicy(o) }),
  "validatingadmissionpolicybindings.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultPolicyBinding, validate: (o) => validateValidatingAdmissionPolicyBinding(o) }),
  "mutatingadmissionpolicies.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultAdmissionPolicy, validate: (o) => validateMutatingAdmissionPolicy(o) }),
  "mutatingadmissionpolicybindings.admissionregistration.k8s.io": kindStrategy({ tracksGeneration: true }, { defaults: defaultPolicyBinding, validate: (o) => validateMutatingAdmissionPolicyBinding(o) }),
};
