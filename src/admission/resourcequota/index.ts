// The ResourceQuota plugin as the named-plugin factory makes it.
import type { AdmissionPluginContext } from "../plugins.js";
import type { AdmissionPlugin } from "../interface.js";
import { resourceQuotaPlugin, storeQuotaAccess } from "./plugin.js";

export function resourceQuota(ctx: AdmissionPluginContext): AdmissionPlugin {
  return resourceQuotaPlugin(storeQuotaAccess(() => ctx.parts()));
}
