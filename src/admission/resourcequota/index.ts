// The ResourceQuota plugin as the named-plugin factory makes it.
import type { AdmissionPluginContext } from "../plugins.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { resourceQuotaPlugin, storeQuotaAccess } from "./plugin.js";
import { parseQuotaConfiguration } from "./configuration.js";

export function resourceQuota(ctx: AdmissionPluginContext): AdmissionPlugin {
  const config = parseQuotaConfiguration(ctx.configuration("ResourceQuota"));
  return resourceQuotaPlugin(storeQuotaAccess(() => ctx.parts()), { config });
}
