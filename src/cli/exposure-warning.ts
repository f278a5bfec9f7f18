// The start-up warning of `kapi serve`: kube-apiserver's defaults (AlwaysAllow, anonymous
// requests on, every interface) suit a throw-away server on one machine, and are an open door
// anywhere else. kapi keeps the defaults, so the flags carry over, and says so when the door is
// open to the network. `exposureOf` reads the configuration files (I/O at the edge);
// `exposureWarnings` decides (pure).
import { readFileSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import { loadAuthenticationConfig } from "../authn/authentication-config.js";
import { decodeAuthorizationConfiguration } from "../authz/config.js";
import type { ServerOptions } from "../server/options.js";

export interface Exposure {
  bindAddress: string;
  /** The authorizer chain's types, in order. */
  authorizers: string[];
  /** Who may send a request without a credential: nobody, only to some paths, or to any path. */
  anonymous: "off" | "some paths" | "any path";
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** 127.0.0.0/8 and ::1 (in any spelling, IPv4-mapped too); 0.0.0.0 and :: are every interface. */
export function isLoopback(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? "ipv4" : "ipv6");
}

export function exposureWarnings(e: Exposure): string[] {
  if (isLoopback(e.bindAddress)) return [];
  const allowAll = e.authorizers.indexOf("AlwaysAllow");
  if (allowAll < 0) return [];
  const before = e.authorizers.slice(0, allowAll);
  // Only AlwaysDeny and a webhook ever deny; RBAC, Node and ABAC only add permissions.
  const qualifier = before.some((t) => t === "Webhook" || t === "AlwaysDeny") ? " not denied by an authorizer before it" : "";
  const where = `kapi serves on ${e.bindAddress}, which is reachable from other machines, with the AlwaysAllow authorizer`;
  const who =
    e.anonymous === "any path"
      ? `every request${qualifier} is allowed, including requests with no credential at all (anonymous requests are on): anyone who can reach the port can read every Secret and change anything`
      : `every authenticated request${qualifier} is allowed: any valid credential (a service account token, a bootstrap token) can read every Secret and change anything`;
  const fix = "Use --authorization-mode=Node,RBAC (what npm start runs), or --bind-address=127.0.0.1 to serve this machine only.";
  return [`${where}: ${who}. ${fix}`];
}

/** The exposure `kapi serve` will run with. A file that cannot be read is left to start-up to report. */
export function exposureOf(o: ServerOptions): Exposure | undefined {
  let authorizers: string[];
  let anonymous: Exposure["anonymous"] = o.anonymousAuth ? "any path" : "off";
  try {
    authorizers = o.authorizationConfig
      ? decodeAuthorizationConfiguration(readFileSync(o.authorizationConfig, "utf8")).authorizers.map((a) => a.type)
      : o.authorizationMode.length > 0
        ? o.authorizationMode
        : ["AlwaysAllow"];
    const anon = o.authenticationConfig ? loadAuthenticationConfig(o.authenticationConfig).anonymous : undefined;
    if (anon) anonymous = !anon.enabled ? "off" : anon.paths.length > 0 ? "some paths" : "any path";
  } catch {
    return undefined;
  }
  return { bindAddress: o.bindAddress, authorizers, anonymous };
}
