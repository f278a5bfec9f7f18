// Service-account authentication assembled for one server: the configuration from the flags
// (keys loaded or generated), the authenticator, the issuer's OIDC discovery documents and the
// controllers (the serviceaccounts/token storage is built from the configuration by the
// service-accounts feature module). That module calls this once.
import type { Controller } from "../../controller-runtime/controller.js";
import type { NonResourceHandler } from "../../http/context.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Authenticator } from "../authenticator.js";
import { serviceAccountAuthenticator } from "./authenticator.js";
import { resolveServiceAccountConfig, type ServiceAccountConfig, type ServiceAccountFlags } from "./config.js";
import { startServiceAccountsController, startTokensController } from "./controllers.js";
import { storeGetter } from "./getter.js";
import { secretLastUsedRecorder } from "./legacy-tracking.js";
import { startTrackingConfigMapController } from "./tracking-configmap.js";
import { discoverable, openIdHandler } from "./openid.js";
import { controllerEnabled, serviceAccountController, serviceAccountTokenController } from "../../controller-runtime/controllers-flag.js";

export interface ServiceAccountSetup {
  config: ServiceAccountConfig;
  authenticator: Authenticator;
  nonResource: NonResourceHandler[];
  /**
   * Starts the serviceaccount and tokens controllers --controllers enables, and the server's
   * legacy-token tracking ConfigMap (after the bootstrap objects exist).
   */
  /** The API server's own (a post-start hook upstream, on every replica): the legacy token tracking ConfigMap. */
  startReplicaControllers(): Controller[];
  startControllers(enabled: readonly string[]): Controller[];
}

export interface ServiceAccountSetupDeps {
  /** The store, types and informers; read on first use (the setup runs before storage opens, so bad flags leave nothing open). */
  parts(): { stores: Stores; types: TypeRegistry; informers: InformerFactory };
  certDir: string | undefined;
  /** The serving CA bundle: ca.crt of legacy token Secrets. */
  rootCA: string;
  log: (m: string) => void;
}

export function setupServiceAccounts(flags: ServiceAccountFlags, deps: ServiceAccountSetupDeps): ServiceAccountSetup {
  const config = resolveServiceAccountConfig(flags, deps.certDir, deps.log);
  let inner: Authenticator | undefined;
  const authenticator: Authenticator = {
    name: "service-account",
    authenticate(req) {
      if (!inner) {
        const { stores, types, informers } = deps.parts();
        inner = serviceAccountAuthenticator({
          issuers: config.issuers,
          publicKeys: config.publicKeys,
          apiAudiences: config.apiAudiences,
          lookup: config.lookup,
          getter: storeGetter(stores, types, informers),
          recordLegacyTokenUse: secretLastUsedRecorder(stores, types, deps.log),
        });
      }
      return inner.authenticate(req);
    },
  };
  const nonResource = discoverable(config.issuers[0]) ? [openIdHandler(config.issuers[0], config.publicKeys)] : [];
  if (nonResource.length === 0) deps.log(`kapi: service-account issuer ${config.issuers[0]} is not an https URL: OIDC discovery is not served`);
  return {
    config,
    authenticator,
    nonResource,
    startReplicaControllers() {
      const tracking = startTrackingConfigMapController({ ...deps.parts(), log: deps.log });
      return tracking ? [tracking] : [];
    },
    startControllers(enabled) {
      const parts = { ...deps.parts(), log: deps.log };
      const served = (...resources: string[]) => resources.every((r) => parts.types.get("", "v1", r));
      const c: Controller[] = [];
      if (served("namespaces", "serviceaccounts") && controllerEnabled(serviceAccountController, enabled)) c.push(startServiceAccountsController(parts));
      if (config.signingKey && served("secrets", "serviceaccounts") && controllerEnabled(serviceAccountTokenController, enabled)) {
        c.push(startTokensController({ ...parts, signingKey: config.signingKey, rootCA: deps.rootCA }));
      }
      return c;
    },
  };
}
