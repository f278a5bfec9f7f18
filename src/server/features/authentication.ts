// The authentication methods as feature modules, each in its slot of upstream's union order:
// request header and client certificates, the token file, service accounts, bootstrap tokens,
// JWT (OIDC flags or the structured configuration file), the token webhook; anonymous last.
import { anonymousAuthenticator } from "../../authn/anonymous.js";
import { loadAuthenticationConfig } from "../../authn/authentication-config.js";
import { jwtAuthentication, type JwtAuthentication } from "../../authn/jwt-authenticator/index.js";
import { authenticationMethods } from "../../authn/methods.js";
import { setupServiceAccounts } from "../../authn/serviceaccount/setup.js";
import { tokenFileAuthenticator } from "../../authn/token-file.js";
import type { Authenticator } from "../../authn/authenticator.js";
import { bootstrapTokenAuthenticators, checkControllersOption, startBootstrapTokenControllers } from "../../controllers/bootstrap/index.js";
import { defaultControllers } from "../../controller-runtime/controllers-flag.js";
import type { ServiceAccountConfig } from "../../authn/serviceaccount/config.js";
import type { StorageRegistration } from "../../handlers/rest/storage-table.js";
import { tokenRequestStorage } from "../../handlers/token-request.js";
import { authenticationConfigFlags, bootstrapTokenFlags, clientAuthenticationFlags, serviceAccountFlags, tokenFileFlags } from "./authentication-flags.js";
import type { FeatureModule } from "./feature-module.js";

/**
 * --authentication-config (its JWT authenticators and anonymous settings) or the OIDC flags, and
 * --anonymous-auth. The JWT authenticators are built when their flags are checked: building them
 * is how they are validated, before anything opens.
 */
export function authenticationConfigFeature(): FeatureModule {
  let anonymous: Authenticator | undefined;
  let jwt: JwtAuthentication | undefined;
  return {
    name: "authentication-config",
    flags: authenticationConfigFlags,
    checkFlags(o) {
      const config = o.authenticationConfig ? loadAuthenticationConfig(o.authenticationConfig) : undefined;
      if (config?.anonymous && !o.anonymousAuth) {
        throw new Error("--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file");
      }
      jwt = jwtAuthentication(o, config);
      anonymous = config?.anonymous ? anonymousAuthenticator({ enabled: config.anonymous.enabled, paths: config.anonymous.paths }) : anonymousAuthenticator({ enabled: o.anonymousAuth });
    },
    setup() {
      const built = jwt!;
      return {
        anonymous,
        authenticators: () => ({ jwt: built.authenticators }),
        registerMetrics: (metrics) => built.registerMetrics(metrics),
        stop: () => built.stop(),
      };
    },
  };
}

/** Service accounts: keys, the authenticator, serviceaccounts/token, OIDC discovery, their controllers. */
export function serviceAccountsFeature(): FeatureModule {
  return {
    name: "service-accounts",
    flags: serviceAccountFlags,
    setup({ options, certDir, tls, core, log }) {
      const sa = setupServiceAccounts(options, { parts: core, certDir, rootCA: tls.servingCA, log });
      return {
        apiAudiences: sa.config.apiAudiences,
        authenticators: () => ({ "service-account": [sa.authenticator] }),
        storages: () => tokenStorages(sa.config),
        nonResource: () => sa.nonResource,
        replicaControllers: () => sa.startReplicaControllers(),
        controllers: () => sa.startControllers(options.controllers ?? defaultControllers),
      };
    },
  };
}

/** Request header and x509 (the client slot), the token webhook last; their files are read and checked at setup. */
export function authenticationMethodsFeature(): FeatureModule {
  return {
    name: "authentication-methods",
    flags: clientAuthenticationFlags,
    setup({ options, tls, gates, apiAudiences, log }) {
      const methods = authenticationMethods(options, tls.clientCA, { gates, apiAudiences, log });
      return {
        tlsClientCA: methods.tlsClientCA,
        authenticators: () => ({ client: methods.leading, "token-webhook": methods.trailing }),
        registerMetrics: (metrics) => metrics.register(...methods.families),
      };
    },
  };
}

/** --token-auth-file (read when the union is assembled, as before). */
export function tokenFileFeature(): FeatureModule {
  return {
    name: "token-file",
    flags: tokenFileFlags,
    setup: ({ options }) => ({
      authenticators: () => (options.tokenAuthFile ? { "token-file": [tokenFileAuthenticator(options.tokenAuthFile)] } : {}),
    }),
  };
}

/**
 * Bootstrap tokens: the authenticator (--enable-bootstrap-token-auth) on every replica, the token
 * cleaner and bootstrap signer controllers (--controllers) where the controller manager runs.
 */
export function bootstrapTokensFeature(): FeatureModule {
  return {
    name: "bootstrap-tokens",
    flags: bootstrapTokenFlags,
    checkFlags: (options) => checkControllersOption(options),
    setup: ({ options }) => ({
      controllers: (core) => startBootstrapTokenControllers(options, core),
      authenticators: (core) => ({ "bootstrap-token": bootstrapTokenAuthenticators(options, core) }),
    }),
  };
}

/** serviceaccounts/token, built from the service-account configuration (none without a signing key). */
function tokenStorages(config: ServiceAccountConfig): StorageRegistration[] {
  const storage = tokenRequestStorage(config);
  return storage ? [{ group: "", resource: "serviceaccounts", subresource: "token", storage }] : [];
}
