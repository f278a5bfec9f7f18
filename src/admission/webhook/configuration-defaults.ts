// admissionregistration.k8s.io/v1 webhook configuration defaults (upstream SetDefaults_*Webhook,
// SetDefaults_Rule, SetDefaults_ServiceReference).
import { arr, isObj, setDefault, setDefaultStr, type Obj } from "../../types/validation/helpers.js";

function defaultWebhook(hook: Obj, mutating: boolean): void {
  setDefaultStr(hook, "failurePolicy", "Fail");
  setDefaultStr(hook, "matchPolicy", "Equivalent");
  setDefault(hook, "namespaceSelector", {});
  setDefault(hook, "objectSelector", {});
  setDefault(hook, "timeoutSeconds", 10);
  if (mutating) setDefaultStr(hook, "reinvocationPolicy", "Never");
  for (const rule of arr(hook.rules)) if (isObj(rule)) setDefaultStr(rule, "scope", "*");
  const service = isObj(hook.clientConfig) && isObj(hook.clientConfig.service) ? hook.clientConfig.service : undefined;
  if (service) setDefault(service, "port", 443);
}

export function defaultMutatingWebhookConfiguration(o: Obj): void {
  for (const hook of arr(o.webhooks)) if (isObj(hook)) defaultWebhook(hook, true);
}

export function defaultValidatingWebhookConfiguration(o: Obj): void {
  for (const hook of arr(o.webhooks)) if (isObj(hook)) defaultWebhook(hook, false);
}
