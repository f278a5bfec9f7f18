// Bootstrap tokens in one call from the server's assembly: the authenticator
// (--enable-bootstrap-token-auth) and the controllers --controllers enables (the token cleaner
// and the bootstrap signer, both on by default in kapi).
import type { Authenticator } from "../../authn/authenticator.js";
import { bootstrapTokenAuthenticator, type SecretReader } from "../../authn/bootstrap/authenticator.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Controller } from "../../controller-runtime/controller.js";
import { startBootstrapSigner } from "./bootstrap-signer.js";
import { bootstrapSignerController, controllerEnabled, controllersError, defaultControllers, tokenCleanerController } from "../../controller-runtime/controllers-flag.js";
import { startTokenCleaner } from "./token-cleaner.js";

export interface BootstrapTokenOptions {
  /** --enable-bootstrap-token-auth (default false). */
  enableBootstrapTokenAuth?: boolean;
  /** --controllers (default ["*"]). */
  controllers?: string[];
}

export interface BootstrapTokenDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** Where the controllers report failures. */
  log?: (msg: string) => void;
}

/** Refuses unknown --controllers names with upstream's message (start-up error). */
export function checkControllersOption(o: BootstrapTokenOptions): void {
  const err = controllersError(o.controllers ?? defaultControllers);
  if (err) throw new Error(`--controllers: ${err}`);
}

/**
 * Reads Secrets from the shared informer; until it has synced (just after start), from the
 * store, so that a token is not refused because the view is still loading.
 */
export function informerSecretReader(deps: Pick<BootstrapTokenDeps, "stores" | "types" | "informers">): SecretReader {
  const t = deps.types.get("", "v1", "secrets")!;
  const informer = deps.informers.forType(t);
  return {
    async get(ns, name): Promise<KObject | undefined> {
      if (informer.hasSynced() && !informer.isStopped) return informer.get(ns, name);
      try {
        return await deps.stores.for(t).get(ns, name);
      } catch (e) {
        if ((e as { reason?: string })?.reason === "NotFound") return undefined;
        throw e;
      }
    },
  };
}

export function startBootstrapTokens(o: BootstrapTokenOptions, deps: BootstrapTokenDeps): { authenticators: Authenticator[]; controllers: Controller[] } {
  checkControllersOption(o);
  return { authenticators: bootstrapTokenAuthenticators(o, deps), controllers: startBootstrapTokenControllers(o, deps) };
}

/** The authenticator, on every replica (--enable-bootstrap-token-auth). */
export function bootstrapTokenAuthenticators(o: BootstrapTokenOptions, deps: BootstrapTokenDeps): Authenticator[] {
  return o.enableBootstrapTokenAuth ? [bootstrapTokenAuthenticator({ secrets: informerSecretReader(deps) })] : [];
}

/** The token cleaner and bootstrap signer --controllers enables (the controller manager's). */
export function startBootstrapTokenControllers(o: BootstrapTokenOptions, deps: BootstrapTokenDeps): Controller[] {
  const list = o.controllers ?? defaultControllers;
  const controllers: Controller[] = [];
  const secretsType = deps.types.get("", "v1", "secrets");
  const configMapsType = deps.types.get("", "v1", "configmaps");
  if (secretsType && controllerEnabled(tokenCleanerController, list)) {
    controllers.push(startTokenCleaner({ stores: deps.stores, secretsType, secrets: deps.informers.forType(secretsType), log: deps.log }));
  }
  if (secretsType && configMapsType && controllerEnabled(bootstrapSignerController, list)) {
    controllers.push(
      startBootstrapSigner({
        stores: deps.stores,
        configMapsType,
        configMaps: deps.informers.forType(configMapsType),
        secrets: deps.informers.forType(secretsType),
        log: deps.log,
      }),
    );
  }
  return controllers;
}
