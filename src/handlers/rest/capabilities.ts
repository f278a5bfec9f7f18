// The verbs a REST storage serves, one small interface each (upstream's rest.Getter, rest.Lister,
// rest.Creater, ...). A storage serves one resource or one resource/subresource and declares what
// it serves only by the interfaces it implements: the router asks the storage, never a name.
// Each method serves the whole request (negotiation, body, response), as kapi's verb handlers do.
import type { ResourceHandler } from "../context.js";

export interface Getter {
  get: ResourceHandler;
}
export interface Lister {
  list: ResourceHandler;
}
export interface Watcher {
  watch: ResourceHandler;
}
export interface Creater {
  create: ResourceHandler;
}
export interface Updater {
  update: ResourceHandler;
}
export interface Patcher {
  patch: ResourceHandler;
}
/** DELETE of one object (with a grace period where the type has one). */
export interface GracefulDeleter {
  delete: ResourceHandler;
}
export interface CollectionDeleter {
  deleteCollection: ResourceHandler;
}
/**
 * A subresource that opens a stream to somewhere else (exec, attach, portforward, proxy), for the
 * HTTP methods it names (upstream's ConnectMethods: one route per method, whatever verb the
 * method is authorized as — OPTIONS as "").
 */
export interface Connecter {
  connect: ResourceHandler;
  connectMethods: readonly string[];
}

/**
 * How a verb the storage does not serve is answered. The object and its views through the
 * generic store (status, finalize, ...) answer 405 as for a verb the type does not serve;
 * subresources that act rather than store (scale, binding, eviction, token, log) answer 404 as
 * for an unknown path, which is what kapi has always answered for them; a connecter answers a
 * method it does not connect as go-restful answers a method its routes lack ("RouteMethod": 405
 * with a Status naming no resource).
 */
export type UnservedVerbAnswer = "MethodNotAllowed" | "NotFound" | "RouteMethod";

export type RestStorage = Partial<Getter & Lister & Watcher & Creater & Updater & Patcher & GracefulDeleter & CollectionDeleter & Connecter> & {
  readonly unservedVerb?: UnservedVerbAnswer;
};

/** The connecter of the HTTP method, when the storage connects it. */
export function connecterFor(storage: RestStorage, method: string): ResourceHandler | undefined {
  return storage.connect && storage.connectMethods?.includes(method) ? storage.connect : undefined;
}

/** The handler of `verb` among the storage's capabilities, or undefined when it does not serve it. */
export function handlerFor(storage: RestStorage, verb: string): ResourceHandler | undefined {
  switch (verb) {
    case "get":
      return storage.get;
    case "list":
      return storage.list;
    case "watch":
      return storage.watch;
    case "create":
      return storage.create;
    case "update":
      return storage.update;
    case "patch":
      return storage.patch;
    case "delete":
      return storage.delete;
    case "deletecollection":
      return storage.deleteCollection;
    default:
      return undefined;
  }
}
