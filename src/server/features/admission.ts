// The named admission plugins (--enable-admission-plugins, --disable-admission-plugins,
// --admission-control-config-file) and an embedding program's own plugins after them.
import { admissionStrategies } from "../../admission/strategies.js";
import { loadAdmissionConfiguration } from "../../admission/flags.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { buildAdmissionPlugins, enabledAdmissionPlugins } from "../../admission/plugins.js";
import { admissionFlags } from "./admission-flags.js";
import type { FeatureModule } from "./feature-module.js";

export function admissionPluginsFeature(): FeatureModule {
  return {
    name: "admission-plugins",
    flags: admissionFlags,
    // The rules of the webhook and policy configuration types live with their plugins.
    strategies: admissionStrategies,
    // Unknown or overlapping plugin names refuse the start before anything opens.
    checkFlags: (o) => void enabledAdmissionPlugins(o),
    setup({ options, gates, log }) {
      let named: AdmissionPlugin[] = [];
      return {
        admissionPlugins(ctx) {
          const configuration = loadAdmissionConfiguration(options.admissionControlConfigFile);
          named = buildAdmissionPlugins(options, {
            parts: () => ctx,
            namespaces: ctx.namespaces,
            authorizer: ctx.authorizer,
            gates,
            flags: options,
            configuration: (name) => configuration.get(name),
            log,
            ...(ctx.metrics ? { metrics: ctx.metrics.admission } : {}),
          });
          return [...named, ...(options.admissionPlugins ?? [])];
        },
        stop: () => {
          for (const p of named) p.stop?.();
        },
      };
    },
  };
}
