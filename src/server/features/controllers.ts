// The in-process controllers the API itself depends on, one feature module each (--controllers
// chooses among them by name; see src/controller-runtime/controllers-flag.ts).
import { startTypeCheckingStatus } from "../../admission/policy/validating/status-controller.js";
import { startCrdServing } from "../../apiextensions/serving.js";
import { apiextensionsStrategies } from "../../apiextensions/strategies.js";
import {
  controllerEnabled,
  defaultControllers,
  garbageCollectorController,
  namespaceController,
  resourceQuotaController,
  validatingAdmissionPolicyStatusController,
} from "../../controller-runtime/controllers-flag.js";
import { startCRDControllers } from "../../controllers/crd/index.js";
import { startGarbageCollector } from "../../controllers/garbage-collector.js";
import { startNamespaceController } from "../../controllers/namespace.js";
import { startResourceQuotaController } from "../../controllers/resourcequota/controller.js";
import { startRootCAPublishing } from "../../controllers/root-ca-publisher.js";
import { startStorageProtection } from "../../controllers/storage-protection.js";
import type { FeatureOptions, FeatureModule } from "./feature-module.js";

const enabledList = (o: FeatureOptions) => o.controllers ?? defaultControllers;

/** Custom resources: the CRD type's rules, every established CRD served (src/apiextensions/serving.ts), the CRD controllers. */
export function customResourcesFeature(): FeatureModule {
  return {
    name: "custom-resources",
    strategies: apiextensionsStrategies,
    setup: ({ options }) => ({
      replicaControllers: (core) => [startCrdServing(core)],
      controllers: (core) => startCRDControllers(core, enabledList(options)),
    }),
  };
}

/** Namespace lifecycle: a deleted namespace's content is removed before the namespace goes. */
export function namespaceLifecycleFeature(): FeatureModule {
  return { name: "namespace-lifecycle", setup: ({ options }) => ({ controllers: (core) => (controllerEnabled(namespaceController, enabledList(options)) ? [startNamespaceController(core)] : []) }) };
}

/**
 * The protection finalizers of PersistentVolumeClaims and PersistentVolumes in use. Started once
 * serving: its pod informer would otherwise read the first page of every stored pod before the
 * server listens (the finalizers are added by admission; this controller only removes them).
 */
export function storageProtectionFeature(): FeatureModule {
  return { name: "storage-object-in-use-protection", setup: ({ options }) => ({ controllersOnceServing: (core) => startStorageProtection(core, enabledList(options)) }) };
}

/** kube-root-ca.crt in every namespace, holding the serving CA. */
export function rootCAPublisherFeature(): FeatureModule {
  return {
    name: "root-ca-publisher",
    setup: ({ options, tls }) => ({ controllers: (core) => startRootCAPublishing({ ...core, rootCA: tls.servingCA }, enabledList(options)) }),
  };
}

/** ResourceQuota status: used resources counted per namespace. */
export function resourceQuotaFeature(): FeatureModule {
  return {
    name: "resource-quota",
    setup: ({ options }) => ({
      controllers: (core) => (core.types.get("", "v1", "resourcequotas") && controllerEnabled(resourceQuotaController, enabledList(options)) ? [startResourceQuotaController(core)] : []),
    }),
  };
}

/** ValidatingAdmissionPolicy status: the type checking of each policy's expressions. */
export function validatingAdmissionPolicyStatusFeature(): FeatureModule {
  return {
    name: "validating-admission-policy-status",
    setup: ({ options, log }) => ({
      controllers(core) {
        const status = controllerEnabled(validatingAdmissionPolicyStatusController, enabledList(options)) ? startTypeCheckingStatus(core, log) : undefined;
        return status ? [status] : [];
      },
    }),
  };
}

/**
 * The garbage collector loads every stored type's cache to build its graph: it starts once the
 * server is serving, so a large store does not delay readiness (its informers list the caches'
 * current state, so changes made meanwhile are not missed).
 */
export function garbageCollectorFeature(): FeatureModule {
  return {
    name: "garbage-collector",
    setup: ({ options }) => ({ controllersOnceServing: (core) => (controllerEnabled(garbageCollectorController, enabledList(options)) ? [startGarbageCollector(core)] : []) }),
  };
}
