// Built-in API capabilities that are neither authentication, authorization, admission nor a
// controller: the subresources that act rather than store, discovery and OpenAPI, and the
// system PriorityClasses.
import { systemPriorityClasses } from "../../admission/builtin/system-priority-classes.js";
import { bindingHandlers } from "../../handlers/pod-binding.js";
import { podConnectHandlers, podLogHandlers } from "../../handlers/pod-connect.js";
import { evictionHandlers } from "../../handlers/pod-eviction.js";
import { scaleHandlers } from "../../handlers/scale.js";
import { extraNonResourceHandlers } from "../extensions.js";
import type { FeatureModule } from "./feature-module.js";

/** The scale subresource, for every type that declares it. */
export function scaleFeature(): FeatureModule {
  return { name: "scale", setup: () => ({ subresources: { scale: scaleHandlers } }) };
}

/** Pod subresources: eviction, binding, log and the connect verbs (answered as kube-apiserver does without a kubelet). */
export function podSubresourcesFeature(): FeatureModule {
  return {
    name: "pod-subresources",
    setup: () => ({
      subresources: {
        eviction: evictionHandlers,
        binding: bindingHandlers,
        log: podLogHandlers,
        exec: podConnectHandlers("exec"),
        attach: podConnectHandlers("attach"),
        portforward: podConnectHandlers("portforward"),
      },
    }),
  };
}

/** Discovery documents and OpenAPI (loaded with their first request, off the start-up path). */
export function discoveryFeature(): FeatureModule {
  return { name: "discovery", setup: () => ({ nonResource: (parts) => extraNonResourceHandlers(parts) }) };
}

/** The system PriorityClasses (system-cluster-critical, system-node-critical), created when missing. */
export function systemPriorityClassesFeature(): FeatureModule {
  return {
    name: "system-priority-classes",
    setup: () => ({
      bootstrap: (core) => Promise.all(systemPriorityClasses.map((pc) => core.ensure(core.types.get("scheduling.k8s.io", "v1", "priorityclasses"), "", structuredClone(pc)))),
    }),
  };
}
